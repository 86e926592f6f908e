package io.fairslice.experiments.harness;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How the server JVM is scheduled by Linux: the machine's default (EEVDF), or SCHED_RR with a long or a short
 * quantum to emulate the operating systems of the 2005 study (shared/GUIDE.md section 3); or the default scheduler
 * with the server's threads in SCHED_BATCH, a deployment option rather than an emulated system (docs/operations.md).
 */
public enum Scheduler {
    /** The default scheduler: the baseline. */
    DEFAULT("default", 0, List.of(), true),
    /**
     * The default scheduler, every server thread SCHED_BATCH ({@code chrt -b 0}): the same fair scheduler without
     * wake-up preemption, so a thread that wakes (a new request's worker, the poller) waits for the tick instead of
     * preempting the request that runs. Not in the full preset: it emulates no system of the study.
     */
    BATCH("batch", 0, List.of("chrt", "-b", "0"), false),
    /** SCHED_RR with a 100 ms quantum: the long-slice operating systems (Linux 2.6, FreeBSD, Windows). */
    RR_100MS("rr-100ms", 100, List.of("chrt", "-r", "1"), true),
    /** SCHED_RR with an 8 ms quantum: the short slice (Solaris-like). */
    RR_8MS("rr-8ms", 8, List.of("chrt", "-r", "1"), true);

    private final String id;
    private final int timesliceMillis;
    private final List<String> launchPrefix;
    private final boolean inFullPreset;

    Scheduler(String id, int timesliceMillis, List<String> launchPrefix, boolean inFullPreset) {
        this.id = id;
        this.timesliceMillis = timesliceMillis;
        this.launchPrefix = launchPrefix;
        this.inFullPreset = inFullPreset;
    }

    public String id() {
        return id;
    }

    /** The SCHED_RR quantum to write to /proc/sys/kernel/sched_rr_timeslice_ms; 0 unless realtime. */
    public int timesliceMillis() {
        return timesliceMillis;
    }

    public boolean realtime() {
        return timesliceMillis > 0;
    }

    /** The command the server JVM is started under to get this policy (empty: the default). */
    public List<String> launchPrefix() {
        return launchPrefix;
    }

    /** Whether {@code --full} measures this scheduler (the study's: the default and the two round-robin slices). */
    public boolean inFullPreset() {
        return inFullPreset;
    }

    /**
     * The lowest server CPU share of a window that counts as undisturbed: RT throttling caps a realtime task at
     * 95 % of its core, so realtime windows get a lower bar (GUIDE section 2).
     */
    public double minimumCpuShare() {
        return realtime() ? 0.94 : 0.97;
    }

    /** The schedulers {@code --full} measures, in order. */
    public static List<Scheduler> fullPreset() {
        return Arrays.stream(values()).filter(Scheduler::inFullPreset).toList();
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
