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
        return new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long threadCpuNanos() {
                return threads.getCurrentThreadCpuTime();
            }
        };
    }
}
