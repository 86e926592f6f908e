package io.fairslice.probe;

/**
 * One reading of a thread's scheduler counters and settings: a caller-owned, reusable holder so that sampling
 * allocates nothing. Not thread-safe: one holder per reading thread.
 *
 * <p>Counters are cumulative since the thread started. A value the platform cannot give is {@link #UNSUPPORTED}
 * ({@link #isSupported(long)} says so), never an invented number.
 */
public final class ThreadStats {

    /** Marks a counter or setting the platform cannot give. */
    public static final long UNSUPPORTED = Long.MIN_VALUE;

    private long cpuTimeNanos = UNSUPPORTED;
    private long runQueueWaitNanos = UNSUPPORTED;
    private long dispatches = UNSUPPORTED;
    private long voluntarySwitches = UNSUPPORTED;
    private long involuntarySwitches = UNSUPPORTED;
    private SchedPolicy policy = SchedPolicy.UNKNOWN;
    private long nice = UNSUPPORTED;
    private long sliceNanos = UNSUPPORTED;

    /** True unless {@code value} is {@link #UNSUPPORTED}. */
    public static boolean isSupported(long value) {
        return value != UNSUPPORTED;
    }

    /** CPU (run) time in nanoseconds. */
    public long cpuTimeNanos() {
        return cpuTimeNanos;
    }

    /** Time spent runnable but waiting for a CPU, in nanoseconds (Linux credits it at the next dispatch). */
    public long runQueueWaitNanos() {
        return runQueueWaitNanos;
    }

    /** Times the scheduler put the thread on a CPU. */
    public long dispatches() {
        return dispatches;
    }

    /** Context switches where the thread blocked or slept. */
    public long voluntarySwitches() {
        return voluntarySwitches;
    }

    /** Context switches where the thread was preempted. */
    public long involuntarySwitches() {
        return involuntarySwitches;
    }

    /** The scheduling policy, {@link SchedPolicy#UNKNOWN} if not read. */
    public SchedPolicy policy() {
        return policy;
    }

    /** The nice value (-20..19 on Linux and FreeBSD), or {@link #UNSUPPORTED}. */
    public long nice() {
        return nice;
    }

    /**
     * The thread's configured timeslice in nanoseconds: EEVDF's {@code se.slice} for fair policies, the round-robin
     * quantum for RR, {@link #UNSUPPORTED} where there is none (FIFO) or the platform does not say.
     */
    public long sliceNanos() {
        return sliceNanos;
    }

    /** For probe implementations: sets the counters (use {@link #UNSUPPORTED} for missing ones). */
    public ThreadStats setCounters(long cpuTimeNanos, long runQueueWaitNanos, long dispatches,
            long voluntarySwitches, long involuntarySwitches) {
        this.cpuTimeNanos = cpuTimeNanos;
        this.runQueueWaitNanos = runQueueWaitNanos;
        this.dispatches = dispatches;
        this.voluntarySwitches = voluntarySwitches;
        this.involuntarySwitches = involuntarySwitches;
        return this;
    }

    /** For probe implementations: sets the scheduling settings. */
    public ThreadStats setScheduling(SchedPolicy policy, long nice, long sliceNanos) {
        this.policy = policy == null ? SchedPolicy.UNKNOWN : policy;
        this.nice = nice;
        this.sliceNanos = sliceNanos;
        return this;
    }

    /** For probe implementations: sets only the switch counters. */
    public ThreadStats setSwitches(long voluntarySwitches, long involuntarySwitches) {
        this.voluntarySwitches = voluntarySwitches;
        this.involuntarySwitches = involuntarySwitches;
        return this;
    }

    /** Marks every value unsupported. */
    public ThreadStats clear() {
        setCounters(UNSUPPORTED, UNSUPPORTED, UNSUPPORTED, UNSUPPORTED, UNSUPPORTED);
        return setScheduling(SchedPolicy.UNKNOWN, UNSUPPORTED, UNSUPPORTED);
    }

    /** Copies every value of {@code other} into this holder. */
    public ThreadStats copyFrom(ThreadStats other) {
        setCounters(other.cpuTimeNanos, other.runQueueWaitNanos, other.dispatches, other.voluntarySwitches,
                other.involuntarySwitches);
        return setScheduling(other.policy, other.nice, other.sliceNanos);
    }

    @Override
    public String toString() {
        return "ThreadStats{cpuTimeNanos=" + cpuTimeNanos + ", runQueueWaitNanos=" + runQueueWaitNanos
                + ", dispatches=" + dispatches + ", voluntarySwitches=" + voluntarySwitches
                + ", involuntarySwitches=" + involuntarySwitches + ", policy=" + policy + ", nice=" + nice
                + ", sliceNanos=" + sliceNanos + '}';
    }
}
