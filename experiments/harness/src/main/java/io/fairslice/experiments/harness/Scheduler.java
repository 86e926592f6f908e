package io.fairslice.experiments.harness;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How the server JVM is scheduled by Linux: the machine's default (EEVDF), or SCHED_RR with a long or a short
 * quantum to emulate the operating systems of the 2005 study (shared/GUIDE.md section 3).
 */
public enum Scheduler {
    /** The default scheduler: the baseline. */
    DEFAULT("default", 0),
    /** SCHED_RR with a 100 ms quantum: the long-slice operating systems (Linux 2.6, FreeBSD, Windows). */
    RR_100MS("rr-100ms", 100),
    /** SCHED_RR with an 8 ms quantum: the short slice (Solaris-like). */
    RR_8MS("rr-8ms", 8);

    private final String id;
    private final int timesliceMillis;

    Scheduler(String id, int timesliceMillis) {
        this.id = id;
        this.timesliceMillis = timesliceMillis;
    }

    public String id() {
        return id;
    }

    /** The SCHED_RR quantum to write to /proc/sys/kernel/sched_rr_timeslice_ms; 0 for the default scheduler. */
    public int timesliceMillis() {
        return timesliceMillis;
    }

    public boolean realtime() {
        return timesliceMillis > 0;
    }

    /**
     * The lowest server CPU share of a window that counts as undisturbed: RT throttling caps a realtime task at
     * 95 % of its core, so realtime windows get a lower bar (GUIDE section 2).
     */
    public double minimumCpuShare() {
        return realtime() ? 0.94 : 0.97;
    }

    public static Scheduler of(String id) {
        for (Scheduler s : values()) {
            if (s.id.equals(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scheduler '" + id + "'; known: "
                + Arrays.stream(values()).map(Scheduler::id).collect(Collectors.joining(", ")));
    }
}
