package io.fairslice.probe;

/**
 * Changes the OS scheduling of one thread: nice and (Linux &gt;= 6.12) the EEVDF slice. Calls are made by the thread
 * itself with its own {@code tid} on the request path, so they allocate nothing unless they fail.
 */
public interface ThreadActuator {

    /** True if {@link #setNice} works on this platform. */
    boolean supportsNice();

    /** True if {@link #setSlice} works on this platform (Linux with EEVDF custom slices, 6.12 or newer). */
    boolean supportsSlice();

    /** Reads policy, nice and slice of {@code tid} into {@code into}; false if it could not. */
    boolean readScheduling(long tid, ThreadStats into);

    /** Sets the nice value of thread {@code tid} (-20..19). */
    void setNice(long tid, int nice) throws ActuatorException;

    /**
     * Sets the EEVDF slice of thread {@code tid} (the kernel clamps it to 0.1..100 ms), keeping its policy, nice and
     * reset-on-fork flag. {@code sliceNanos == 0} restores the default slice. Returns false, changing nothing, when
     * the thread runs under a policy that has no such slice (real-time or SCHED_IDLE): that thread's matter, not a
     * failure of the actuator.
     */
    boolean setSlice(long tid, long sliceNanos) throws ActuatorException;

    /** An actuator for platforms that have none. */
    ThreadActuator NONE = new ThreadActuator() {
        @Override
        public boolean supportsNice() {
            return false;
        }

        @Override
        public boolean supportsSlice() {
            return false;
        }

        @Override
        public boolean readScheduling(long tid, ThreadStats into) {
            return false;
        }

        @Override
        public void setNice(long tid, int nice) throws ActuatorException {
            throw new ActuatorException("setNice", 0, "no thread actuator on this platform");
        }

        @Override
        public boolean setSlice(long tid, long sliceNanos) throws ActuatorException {
            throw new ActuatorException("setSlice", 0, "no thread actuator on this platform");
        }
    };
}
