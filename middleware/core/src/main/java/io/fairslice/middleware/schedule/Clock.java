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
     * Whether CPU capacity went unused recently: this process used less than 90 % of its processors over the last
     * sample and the machine as a whole was under 90 % busy. The share scheduler lets a class beyond its share only
     * then, so the CPU never idles because of it. Sampled at most every 20 ms; never throws.
     */
    default boolean cpuIdle() {
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
            public boolean cpuIdle() {
                return idle.idle();
            }
        };
    }

    /** Process and machine CPU use over the last sample (20 ms or more). */
    final class IdleSampler {
        private static final long PERIOD_NANOS = 20_000_000L;
        private final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        private final int cpus = Runtime.getRuntime().availableProcessors();
        private long lastWall = System.nanoTime();
        private long lastCpu = processCpu();
        private volatile boolean idle;

        private long processCpu() {
            return os instanceof com.sun.management.OperatingSystemMXBean o ? o.getProcessCpuTime() : -1;
        }

        synchronized boolean idle() {
            long now = System.nanoTime();
            if (now - lastWall >= PERIOD_NANOS) {
                long cpu = processCpu();
                double process = cpu < 0 || lastCpu < 0 ? 1 : (cpu - lastCpu) / ((double) (now - lastWall) * cpus);
                double machine = os instanceof com.sun.management.OperatingSystemMXBean o ? o.getCpuLoad() : 1;
                idle = process < 0.9 && machine >= 0 && machine < 0.9;
                lastWall = now;
                lastCpu = cpu;
            }
            return idle;
        }
    }
}
