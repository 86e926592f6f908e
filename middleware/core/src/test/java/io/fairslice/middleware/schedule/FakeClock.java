package io.fairslice.middleware.schedule;

/** A clock the test moves by hand: wall time and the CPU time of "the" thread (tests drive one at a time). */
final class FakeClock implements Clock {

    volatile long now = 1_000_000_000L;
    volatile long cpu;
    /** Bytes allocated (one counter for all threads, like {@link #cpu}). */
    volatile long allocated;
    /** What the scheduler reported off the CPU ({@link #offCpu}), all threads together. */
    volatile long offCpu;
    /** What {@link #idleSamples} answers: idle samples in a row. */
    volatile int idleSamples;

    @Override
    public int idleSamples(int cpus) {
        return idleSamples;
    }

    /** A thread whose next {@link #nanoTime} read fails as a too-deep stack would (then cleared). */
    volatile Thread overflowOn;

    @Override
    public long nanoTime() {
        if (overflowOn == Thread.currentThread()) {
            overflowOn = null;
            throw new StackOverflowError("FakeClock.overflowOn");
        }
        return now;
    }

    /** Run once at the next {@link #threadCpuNanos} read (then cleared): another thread acting at that moment. */
    volatile Runnable atNextCpuRead;

    @Override
    public long threadCpuNanos() {
        Runnable hook = atNextCpuRead;
        if (hook != null) {
            atNextCpuRead = null;
            hook.run();
        }
        return cpu;
    }

    @Override
    public long threadAllocatedBytes() {
        return allocated;
    }

    @Override
    public synchronized void offCpu(long nanos) {
        offCpu += nanos;
    }

    /** How long each {@link #yieldCpu} takes (wall time it advances), how many there were, and one to run at each. */
    volatile long yieldTakes;
    volatile int yields;
    volatile Runnable atYield;

    @Override
    public long yieldCpu() {
        yields++;
        Runnable hook = atYield;
        if (hook != null) {
            hook.run();
        }
        now += yieldTakes;
        return yieldTakes;
    }

    void advance(long wallNanos, long cpuNanos) {
        now += wallNanos;
        cpu += cpuNanos;
    }
}
