package io.fairslice.middleware.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** The system clock's CPU time, where the JVM measures it and where it does not (a virtual thread). */
class ClockTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * ThreadMXBean answers -1 for a virtual thread's CPU time (Tomcat's useVirtualThreads serves every request on
     * one): the clock stands in the thread's wall time less the time the scheduler reported it off the CPU, so a
     * request that computes is charged and learnt, and one that parked is not charged its park.
     */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldStandWallTimeLessReportedParksInForAVirtualThreadsCpuClock() throws Exception {
        Clock clock = Clock.system();
        AtomicReference<long[]> reads = new AtomicReference<>();
        Thread virtual = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null,
                (Runnable) () -> {
                    long before = clock.threadCpuNanos();
                    spin(30 * MS);
                    long computed = clock.threadCpuNanos();
                    long start = System.nanoTime();
                    LockSupport.parkNanos(100 * MS);
                    clock.offCpu(System.nanoTime() - start);
                    long parked = clock.threadCpuNanos();
                    reads.set(new long[] {before, computed, parked});
                });
        virtual.join();
        long[] r = reads.get();
        assertThat(r[0]).as("a clock, not the JVM's -1").isPositive();
        assertThat(r[1] - r[0]).as("30 ms of computing").isGreaterThanOrEqualTo(30 * MS);
        assertThat(r[2] - r[1]).as("a park of 100 ms reported off the CPU").isLessThan(50 * MS);
    }

    /** On a platform thread the JVM's CPU clock is read: a wait counts nothing, reported or not. */
    @Test
    void shouldReadThePlatformThreadsOwnCpuClock() throws Exception {
        Clock clock = Clock.system();
        long before = clock.threadCpuNanos();
        spin(30 * MS);
        long computed = clock.threadCpuNanos();
        Thread.sleep(100);
        long slept = clock.threadCpuNanos();
        clock.offCpu(100 * MS);
        assertThat(computed - before).isPositive();
        assertThat(slept - computed).as("asleep: no CPU").isLessThan(20 * MS);
        assertThat(clock.threadCpuNanos()).as("a report changes nothing where the JVM has the clock")
                .isGreaterThanOrEqualTo(slept);
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < until) {
            x += x ^ until;
        }
        if (x == 42) {
            System.out.print("");
        }
    }
}
