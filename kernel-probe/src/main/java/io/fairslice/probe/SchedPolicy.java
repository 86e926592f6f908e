package io.fairslice.probe;

/** A thread's scheduling policy, as the OS names it. Values other platforms have map to the nearest meaning. */
public enum SchedPolicy {
    /** Linux SCHED_OTHER (CFS/EEVDF), FreeBSD timeshare, Windows normal dynamic priority. */
    OTHER,
    /** Linux SCHED_BATCH. */
    BATCH,
    /** Linux SCHED_IDLE, FreeBSD idle class. */
    IDLE,
    /** Linux SCHED_FIFO, FreeBSD real-time FIFO: no timeslice. */
    FIFO,
    /** Linux SCHED_RR, FreeBSD real-time: round robin with a fixed quantum. */
    RR,
    /** Linux SCHED_DEADLINE. */
    DEADLINE,
    /** Linux SCHED_EXT (BPF scheduler). */
    EXT,
    /** The platform gives no policy, or a value this probe does not know. */
    UNKNOWN;

    /** Maps a Linux {@code policy} number ({@code /proc/<tid>/sched}, {@code sched_getattr}). */
    public static SchedPolicy ofLinux(long policy) {
        switch ((int) policy) {
            case 0: return OTHER;
            case 1: return FIFO;
            case 2: return RR;
            case 3: return BATCH;
            case 5: return IDLE;
            case 6: return DEADLINE;
            case 7: return EXT;
            default: return UNKNOWN;
        }
    }
}
