package io.fairslice.probe;

/**
 * OS scheduler statistics for the threads of this JVM (and, where the OS allows, of another process), chosen per
 * platform by {@link KernelProbes}. Implementations never throw from reads: a failed read returns false.
 */
public interface KernelProbe extends AutoCloseable {

    /** {@code linux}, {@code freebsd}, {@code windows}, or {@code none} for the no-op probe. */
    String platform();

    /** False for the no-op probe: every read returns false. */
    boolean isOperational();

    /**
     * The OS id of the calling thread, cached per thread after the first call (no public JDK API gives it), or
     * -1 if unknown.
     */
    long currentThreadId();

    /** Opens a view of thread {@code tid} of this process; null if it does not exist or cannot be read. */
    ThreadHandle openThread(long tid);

    /**
     * Opens the calling thread's own handle, which enables the cheap {@link #readCurrentThread} path; null on failure.
     */
    ThreadHandle openCurrentThread();

    /**
     * Reads the calling thread's counters the cheapest way the platform has (Linux: schedstat plus
     * {@code getrusage(RUSAGE_THREAD)}); {@code handle} must be the calling thread's own.
     */
    boolean readCurrentThread(ThreadHandle handle, ThreadStats into);

    /** Reads the system-wide signals. */
    boolean readSystem(SystemStats into);

    /** The per-thread actuator, {@link ThreadActuator#NONE} where there is none. */
    ThreadActuator actuator();

    /** Releases native resources. */
    @Override
    void close();
}
