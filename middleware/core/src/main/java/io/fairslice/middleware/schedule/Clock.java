package io.fairslice.middleware.schedule;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** Wall time and the current thread's CPU time; injectable so that scheduler tests run on a fake clock. */
public interface Clock {

    /** Monotonic wall time, ns. */
    long nanoTime();

    /** The calling thread's CPU time, ns. */
    long threadCpuNanos();

    /**
     * Whether CPU capacity went unused recently: this process used less than 90 % of {@code cpus} processors over
     * the last sample and the machine as a whole was under 90 % busy, or the process used less than half of them. The share scheduler lets requests in beyond its
     * run slots only then (slot holders blocked on I/O, say), so the CPU never idles because of it. Sampled at most
     * every 20 ms; never throws.
     */
    default boolean cpuIdle(int cpus) {
        return false;
    }

    /**
     * The system clock: {@link System#nanoTime()} and the thread's own CPU clock from ThreadMXBean. Where the JVM
     * cannot measure thread CPU time, wall time stands in (parked time then counts as used, which makes the share
     * scheduler stricter, never looser).
     */
    static Clock system() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean cpu = threads.isCurrentThreadCpuTimeSupported();
        if (cpu && !threads.isThreadCpuTimeEnabled()) {
            try {
                threads.setThreadCpuTimeEnabled(true);
            } catch (UnsupportedOperationException | SecurityException e) {
                cpu = false;
            }
        }
        if (!cpu) {
            return new Clock() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public long threadCpuNanos() {
                    return System.nanoTime();
                }
            };
        }
        IdleSampler idle = new IdleSampler();
        return new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long threadCpuNanos() {
                return threads.getCurrentThreadCpuTime();
            }

            @Override
            public boolean cpuIdle(int cpus) {
                return idle.idle(cpus);
            }
        };
    }

    /** Process and machine CPU use over the last sample (20 ms or more). */
    final class IdleSampler {
        private static final long PERIOD_NANOS = 20_000_000L;
        private final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        private long lastWall = System.nanoTime();
        private long lastCpu = processCpu();
        /** Processors' worth of CPU the process used over the last sample, and whether the machine was busy. */
        private double processCpus = Double.MAX_VALUE;
        private boolean machineBusy = true;

        private long processCpu() {
            return os instanceof com.sun.management.OperatingSystemMXBean o ? o.getProcessCpuTime() : -1;
        }

        synchronized boolean idle(int cpus) {
            long now = System.nanoTime();
            if (now - lastWall >= PERIOD_NANOS) {
                long cpu = processCpu();
                // a sample over a long quiet spell says nothing of now: it only starts the next one
                boolean stale = now - lastWall > 5 * PERIOD_NANOS;
                processCpus = cpu < 0 || lastCpu < 0 || stale ? Double.MAX_VALUE
                        : (cpu - lastCpu) / (double) (now - lastWall);
                double machine = os instanceof com.sun.management.OperatingSystemMXBean o ? o.getCpuLoad() : 1;
                machineBusy = machine < 0 || machine >= 0.9;
                lastWall = now;
                lastCpu = cpu;
            }
            // under half its slots' worth means they wait (blocked, or starved by others): idle even on a busy machine
            return processCpus < 0.9 * cpus && (!machineBusy || processCpus < 0.5 * cpus);
        }
    }
}
