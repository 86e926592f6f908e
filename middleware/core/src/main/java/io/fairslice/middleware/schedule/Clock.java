package io.fairslice.middleware.schedule;

import io.fairslice.middleware.internal.Loggers;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/** Wall time and the current thread's CPU time; injectable so that scheduler tests run on a fake clock. */
public interface Clock {

    /** Monotonic wall time, ns. */
    long nanoTime();

    /** The calling thread's CPU time, ns. */
    long threadCpuNanos();

    /**
     * Bytes the calling thread has allocated so far; negative when the JVM cannot tell. What the share scheduler
     * splits the collector's pauses by ({@code share.charge-gc}).
     */
    default long threadAllocatedBytes() {
        return -1;
    }

    /**
     * The calling thread spent {@code nanos} parked by the scheduler or in a blocking call its request declared: a
     * clock that stands wall time in for a thread's CPU time ({@link WallStandIn}) leaves it out. Others ignore it.
     */
    default void offCpu(long nanos) {
    }

    /**
     * Lets the OS run the threads that wait for the calling thread's CPU first ({@link Thread#yield}) and answers how
     * long that took, ns: about a system call's time when none waited. A waiter that a free run slot is held from
     * yields so while a cheap class's request may still be behind other threads (Scheduler's anticipation).
     */
    default long yieldCpu() {
        long start = System.nanoTime();
        Thread.yield();
        return System.nanoTime() - start;
    }

    /** Another thread's CPU time, ns; negative when unknown (not supported, or the thread has ended). */
    default long threadCpuNanos(Thread thread) {
        return -1;
    }

    /**
     * How many samples in a row, up to the last one, found CPU capacity unused; 0 when the last one did not. A sample
     * is idle when this process used less than 90 % of {@code cpus} processors over it and the machine as a whole was
     * under 90 % busy, or the process used less than half of them. The share scheduler lets as many requests run
     * beyond its run slots (slot holders blocked on I/O, a class that cannot use its share), so the CPU never idles
     * because of it. Samples last 20 ms, or ten granules of a coarse process CPU clock (100 ms with Linux's 10 ms
     * ticks, see {@link IdleSampler}); never throws.
     */
    default int idleSamples(int cpus) {
        return 0;
    }

    /**
     * The system clock: {@link System#nanoTime()} and the thread's own CPU clock from ThreadMXBean. Where the JVM
     * cannot measure a thread's CPU time (a virtual thread, up to Java 25 at least; a JVM without the clock), wall time
     * stands in, less what the thread spent parked by the scheduler or in declared blocking calls
     * ({@link WallStandIn}).
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
            WallStandIn.warn("this JVM has no thread CPU clock (ThreadMXBean)");
            return new Clock() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public long threadCpuNanos() {
                    return WallStandIn.now();
                }

                @Override
                public void offCpu(long nanos) {
                    WallStandIn.offCpu(nanos);
                }
            };
        }
        IdleSampler idle = new IdleSampler();
        boolean others = threads.isThreadCpuTimeSupported();
        com.sun.management.ThreadMXBean allocation = allocationCounter(threads);
        return new Clock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long threadCpuNanos() {
                long cpu = threads.getCurrentThreadCpuTime();
                if (cpu >= 0) {
                    return cpu;
                }
                WallStandIn.warnOnce();
                return WallStandIn.now();
            }

            @Override
            public void offCpu(long nanos) {
                WallStandIn.offCpu(nanos);
            }

            @Override
            public long threadAllocatedBytes() {
                return allocation == null ? -1 : allocation.getCurrentThreadAllocatedBytes();
            }

            @Override
            @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
            public long threadCpuNanos(Thread thread) {
                return others ? threads.getThreadCpuTime(thread.getId()) : -1;
            }

            @Override
            public int idleSamples(int cpus) {
                return idle.idleSamples(cpus);
            }
        };
    }

    /**
     * What stands in for a thread's CPU clock where the JVM has none for it: a virtual thread (ThreadMXBean answers -1
     * for one, up to Java 25 at least: Tomcat's {@code useVirtualThreads="true"} serves every request on one), or a JVM
     * without the clock. It is the wall time, less the time the thread spent parked by the scheduler (waiting for a run
     * slot, at admission or at a yield point) and in the blocking calls its request declared ({@code
     * Fairslice.blocking()}), both of which the scheduler reports ({@link Clock#offCpu}). It still counts the waits the
     * thread's request did not declare (an undeclared query, a lock) and, for a virtual thread, the time it waited for
     * a carrier thread: requests read dearer than they are, which makes the share scheduler stricter, not looser, and
     * the adaptive classifier take waiting pages for heavy ones (classify them by rule, or declare their waits).
     */
    final class WallStandIn {
        /** Per thread: the time it spent off the CPU as the scheduler reported it (ns). */
        private static final ThreadLocal<long[]> OFF_CPU = ThreadLocal.withInitial(() -> new long[1]);
        private static final AtomicBoolean WARNED =
                new AtomicBoolean();

        private WallStandIn() {
        }

        static long now() {
            return System.nanoTime() - OFF_CPU.get()[0];
        }

        static void offCpu(long nanos) {
            if (nanos > 0) {
                OFF_CPU.get()[0] += nanos;
            }
        }

        /** Logs, once per JVM, that the calling thread's CPU time could not be read, naming the thread. */
        static void warnOnce() {
            if (!WARNED.get()) {
                Thread t = Thread.currentThread();
                warn(OsThreads.isVirtual(t)
                        ? "requests run on virtual threads (" + t + "; Tomcat's useVirtualThreads=\"true\", or an"
                                + " executor of virtual threads), whose CPU time the JVM does not measure"
                        : "the JVM does not measure the CPU time of thread '" + t.getName() + "'");
            }
        }

        /** Logs, once per JVM (whichever of the two says it first), that thread CPU time stands in, and {@code why}. */
        static void warn(String why) {
            if (!WARNED.compareAndSet(false, true)) {
                return;
            }
            Loggers.of(Clock.class).warning("fairslice: " + why + ": such"
                    + " requests' CPU time is taken as their elapsed time less their parks in fairslice and their"
                    + " declared blocking calls (Fairslice.blocking()), so waits they do not declare (a slow client, a"
                    + " query outside woven code, a collector pause) count as CPU: shares are stricter and the adaptive"
                    + " classifier may take waiting pages for heavy ones (docs/configuration.md, \"Virtual threads\")");
        }
    }

    /** The JVM's per-thread allocation counter, switched on if it is off; null where there is none. */
    private static com.sun.management.ThreadMXBean allocationCounter(ThreadMXBean threads) {
        if (!(threads instanceof com.sun.management.ThreadMXBean t) || !t.isThreadAllocatedMemorySupported()) {
            return null;
        }
        if (!t.isThreadAllocatedMemoryEnabled()) {
            try {
                t.setThreadAllocatedMemoryEnabled(true);
            } catch (UnsupportedOperationException | SecurityException e) {
                return null;
            }
        }
        return t;
    }

    /**
     * Process and machine CPU use over the last samples, for {@link #idleSamples}. The process CPU clock can be
     * coarse: on Linux the JDK reads it with times(2), in clock ticks of 10 ms, so over 20 ms a process busy all along
     * reads 10, 20 or 30 ms and would look half idle. The sampler learns the clock's step (the smallest increase
     * between two reads at least 1 ms apart; 50 ms until it has seen one), samples over at least ten steps and at least
     * 20 ms, and counts a sample idle only if the process used too little even with one step added.
     */
    final class IdleSampler {
        static final long MIN_PERIOD_NANOS = 20_000_000L;
        static final long MAX_STEP_NANOS = 50_000_000L;
        private static final long READ_INTERVAL_NANOS = 1_000_000L;
        private static final OperatingSystemMXBean OS =
                ManagementFactory.getOperatingSystemMXBean();
        private final LongSupplier processCpu;
        private final DoubleSupplier machineLoad;
        private final LongSupplier wall;
        private long lastRead;
        private long lastReadCpu;
        /** The process CPU clock's step: the smallest increase seen between two reads (ns). */
        private long step = MAX_STEP_NANOS;
        private long sampleStart;
        private long sampleStartCpu;
        /** Samples in a row, up to the last one, that found capacity unused. */
        private int idleInARow;

        IdleSampler() {
            this(IdleSampler::systemProcessCpu, IdleSampler::systemMachineLoad, System::nanoTime);
        }

        /**
         * @param processCpu  the process's CPU time (ns), negative when unknown
         * @param machineLoad the machine's CPU use since the previous call (0 to 1), negative when unknown
         * @param wall        monotonic wall time (ns)
         */
        IdleSampler(LongSupplier processCpu, DoubleSupplier machineLoad, LongSupplier wall) {
            this.processCpu = processCpu;
            this.machineLoad = machineLoad;
            this.wall = wall;
            this.lastRead = wall.getAsLong();
            this.lastReadCpu = processCpu.getAsLong();
            this.sampleStart = lastRead;
            this.sampleStartCpu = lastReadCpu;
        }

        private static long systemProcessCpu() {
            return OS instanceof com.sun.management.OperatingSystemMXBean o ? o.getProcessCpuTime() : -1;
        }

        private static double systemMachineLoad() {
            return OS instanceof com.sun.management.OperatingSystemMXBean o ? o.getCpuLoad() : -1;
        }

        /** The sample period now: ten steps of the process CPU clock, 20 ms at least. */
        synchronized long periodNanos() {
            return Math.max(MIN_PERIOD_NANOS, 10 * step);
        }

        synchronized int idleSamples(int cpus) {
            long now = wall.getAsLong();
            if (now - lastRead >= READ_INTERVAL_NANOS) {
                long cpu = processCpu.getAsLong();
                if (cpu > lastReadCpu && lastReadCpu >= 0) {
                    step = Math.min(step, cpu - lastReadCpu);
                }
                lastRead = now;
                lastReadCpu = cpu;
                long period = periodNanos();
                if (now - sampleStart >= period) {
                    // a sample over a long quiet spell says nothing of now: it only starts the next one
                    boolean stale = now - sampleStart > 5 * period;
                    boolean idleSample = false;
                    if (cpu >= 0 && sampleStartCpu >= 0 && !stale) {
                        // the most the process can have used: its clock may lag by up to one step
                        double used = (cpu - sampleStartCpu + step) / (double) (now - sampleStart);
                        double machine = machineLoad.getAsDouble();
                        boolean machineBusy = machine < 0 || machine >= 0.9;
                        // under half its slots' worth means they wait (blocked, or starved by others): idle on a
                        // busy machine too
                        idleSample = used < 0.9 * cpus && (!machineBusy || used < 0.5 * cpus);
                    }
                    idleInARow = idleSample ? idleInARow + 1 : 0;
                    sampleStart = now;
                    sampleStartCpu = cpu;
                }
            }
            return idleInARow;
        }
    }
}
