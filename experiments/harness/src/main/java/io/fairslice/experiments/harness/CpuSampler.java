package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.ProcCpu;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Samples, every 200 ms, the server process's CPU time and its core's times from /proc, so that the share of the
 * core the server had in any window can be computed afterwards (the window is only known once Gatling's log is
 * read). A window where the server had less than its threshold because <em>other</em> processes ran on its core
 * is disturbed; one where the core sat idle is not (the server simply did not use it, e.g. under RT throttling).
 * It also samples the server's JIT compiler threads, so that a window can say how much of the server's CPU went to
 * compiling rather than serving.
 */
final class CpuSampler implements AutoCloseable {

    /**
     * CPU share of a window: the server's (as /proc/PID/stat gives it: with the interrupts charged to its threads, on a
     * kernel that charges them), other tasks' (with the hypervisor's steal, which {@code steal} also gives alone),
     * the interrupts' not already in the server's, and idle, each a fraction of one core, which the four add up to;
     * and {@code jit}, the fraction of the server's own CPU time its JIT compiler threads used (NaN when the server
     * used none or they could not be read).
     */
    record Share(double server, double others, double interrupts, double idle, double steal, double jit) {
        static final Share UNKNOWN = new Share(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN);

        boolean known() {
            return !Double.isNaN(server);
        }
    }

    /** {@code compilerTicks} is -1 where the compiler threads could not be read. */
    record Sample(long epochMillis, long serverTicks, long compilerTicks, ProcFs.CoreTimes core) {
    }

    private final long pid;
    private final ProcCpu.CompilerThreads compilerThreads;
    private final int core;
    private final long ticksPerSecond;
    private final ProcFs.InterruptAccounting interrupts;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    CpuSampler(long pid, int core, long ticksPerSecond, ProcFs.InterruptAccounting interrupts) {
        this.pid = pid;
        this.interrupts = interrupts;
        this.compilerThreads = new ProcCpu.CompilerThreads(pid);
        this.core = core;
        this.ticksPerSecond = ticksPerSecond;
        this.thread = new Thread(this::loop, "fairslice-cpu-sampler");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            try {
                long serverTicks = ProcCpu.ticks(pid);
                long compilerTicks;
                try {
                    compilerTicks = compilerThreads.ticks();
                } catch (IOException e) {
                    compilerTicks = -1;
                }
                Sample s = new Sample(System.currentTimeMillis(), serverTicks, compilerTicks, ProcFs.coreTimes(core));
                synchronized (samples) {
                    samples.add(s);
                }
                Thread.sleep(200);
            } catch (IOException e) {
                return; // the process is gone: nothing more to sample
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The shares over [from, to) (epoch ms), from the samples closest inside the window; UNKNOWN if too few. */
    Share share(long fromEpochMillis, long toEpochMillis) {
        List<Sample> ends = ends(samples, Sample::epochMillis, fromEpochMillis, toEpochMillis);
        return ends.isEmpty() ? Share.UNKNOWN : between(ends.get(0), ends.get(1), ticksPerSecond, interrupts);
    }

    /**
     * The shares between two samples; UNKNOWN when they are less than 500 ms apart (too few ticks to tell). Other
     * tasks' time is the core's task time less the server's own outside interrupts ({@link #serverInterrupts}): taken
     * as the core's task time less all of the server's, until 2026-12-06, it lost the interrupts charged to the
     * server, which were counted in the interrupts' share as well.
     */
    static Share between(Sample first, Sample last, long ticksPerSecond, ProcFs.InterruptAccounting interrupts) {
        if (last.epochMillis - first.epochMillis < 500) {
            return Share.UNKNOWN;
        }
        double ticks = (last.epochMillis - first.epochMillis) / 1000.0 * ticksPerSecond;
        long server = last.serverTicks - first.serverTicks;
        long task = last.core.task() - first.core.task();
        long irq = last.core.irq() - first.core.irq();
        long idle = last.core.idle() - first.core.idle();
        long steal = last.core.steal() - first.core.steal();
        double serverIrq = serverInterrupts(server, task - steal, irq, idle, interrupts);
        double jit = first.compilerTicks < 0 || last.compilerTicks < 0 || server <= 0 ? Double.NaN
                : (last.compilerTicks - first.compilerTicks) / (double) server;
        return new Share(server / ticks, Math.max(0, task - server + serverIrq) / ticks, (irq - serverIrq) / ticks,
                idle / ticks, steal / ticks, jit);
    }

    /**
     * The core's interrupt ticks ({@code irq}) that the server's ticks hold too. At least what the server's ticks
     * have beyond the core's user, nice and system ticks ({@code userSystem}), which can only be interrupts; at most
     * all of them. On a kernel that charges an interrupt to the task it interrupted ({@code IN_TASK_TIME}) which task
     * that was is not known: the server's part of them is taken as its part of the core's time outside steal. (In
     * the 1 424 windows committed with the old accounting with interrupts at 1 % of the core or more and other
     * processes read as 0, the server's time held a median 0.99 of the interrupts, and the server had a median 0.999
     * of its core: docs/measurements/interrupt-accounting-20261206.)
     */
    static double serverInterrupts(long server, long userSystem, long irq, long idle,
                                   ProcFs.InterruptAccounting interrupts) {
        long core = userSystem + irq + idle;
        double charged = interrupts != ProcFs.InterruptAccounting.IN_TASK_TIME || core <= 0 ? 0
                : irq * Math.min(1.0, server / (double) core);
        return Math.min(Math.min(irq, server), Math.max(server - userSystem, charged));
    }

    /**
     * The first sample at or after {@code from} and the last at or before {@code to} (epoch ms) of a list kept in time
     * order and guarded by its own lock; empty when either is missing. Both samplers measure a window between these.
     */
    static <S> List<S> ends(List<S> samples, ToLongFunction<S> epochMillis, long from, long to) {
        S first = null;
        S last = null;
        synchronized (samples) {
            for (S s : samples) {
                if (first == null && epochMillis.applyAsLong(s) >= from) {
                    first = s;
                }
                if (epochMillis.applyAsLong(s) <= to) {
                    last = s;
                }
            }
        }
        return first == null || last == null ? List.of() : List.of(first, last);
    }

    /** The server's share of its core over the last {@code millis} of samples (for drain decisions). */
    Share recent(long millis) {
        long now = System.currentTimeMillis();
        return share(now - millis, now);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
