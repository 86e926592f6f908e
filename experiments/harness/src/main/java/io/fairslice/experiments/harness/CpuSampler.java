package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.ProcCpu;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
     * CPU share of a window: the server's, other tasks' (with the hypervisor's steal, which {@code steal} also gives
     * alone), interrupts', and idle, each a fraction of one core; and {@code jit}, the fraction of the server's own
     * CPU time its JIT compiler threads used (NaN when the server used none or they could not be read).
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
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    CpuSampler(long pid, int core, long ticksPerSecond) {
        this.pid = pid;
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
        return ends.isEmpty() ? Share.UNKNOWN : between(ends.get(0), ends.get(1), ticksPerSecond);
    }

    /** The shares between two samples; UNKNOWN when they are less than 500 ms apart (too few ticks to tell). */
    static Share between(Sample first, Sample last, long ticksPerSecond) {
        if (last.epochMillis - first.epochMillis < 500) {
            return Share.UNKNOWN;
        }
        double ticks = (last.epochMillis - first.epochMillis) / 1000.0 * ticksPerSecond;
        double server = (last.serverTicks - first.serverTicks) / ticks;
        double task = (last.core.task() - first.core.task()) / ticks;
        double irq = (last.core.irq() - first.core.irq()) / ticks;
        double idle = (last.core.idle() - first.core.idle()) / ticks;
        double steal = (last.core.steal() - first.core.steal()) / ticks;
        long serverTicks = last.serverTicks - first.serverTicks;
        double jit = first.compilerTicks < 0 || last.compilerTicks < 0 || serverTicks <= 0 ? Double.NaN
                : (last.compilerTicks - first.compilerTicks) / (double) serverTicks;
        return new Share(server, Math.max(0, task - server), irq, idle, steal, jit);
    }

    /**
     * The first sample at or after {@code from} and the last at or before {@code to} (epoch ms) of a list kept in time
     * order and guarded by its own lock; empty when either is missing. Both samplers measure a window between these.
     */
    static <S> List<S> ends(List<S> samples, java.util.function.ToLongFunction<S> epochMillis, long from, long to) {
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
