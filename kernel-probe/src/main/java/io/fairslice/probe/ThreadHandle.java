package io.fairslice.probe;

/**
 * An open view of one OS thread's scheduler counters (on Linux it keeps its {@code /proc} files open, so a reading
 * costs one system call per file). Safe to read from any thread; reads that pass their own holder and may run
 * concurrently.
 */
public interface ThreadHandle extends AutoCloseable {

    /** The OS thread id. */
    long tid();

    /**
     * Reads the counters into {@code into}; with {@code scheduling} also the policy, nice and slice (dearer on
     * Linux). Returns false, leaving {@code into} unspecified, when the thread is gone or the read failed.
     */
    boolean read(ThreadStats into, boolean scheduling);

    /** Releases the open files; later reads return false. */
    @Override
    void close();
}
