package io.fairslice.experiments.harness;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What runs in the server between Tomcat and the study pages, as the server's command-line options and JVM
 * options that select it. The server refuses options it does not know, so a middleware that this checkout's
 * server does not have yet shows up as "not available" in the run, never as a silent baseline.
 */
public enum Middleware {
    /** No middleware: the baseline (the server runs fairslice's share policy unless told otherwise). */
    NONE("none", "no middleware", List.of("--policy", "none"), List.of(), false),
    /** fairslice measuring only, changing nothing. */
    OBSERVE("observe", "fairslice, observe policy", List.of("--policy", "observe"), List.of(Middleware.PROBE_OFF),
            true),
    /** fairslice making heavy requests sleep at yield points (the 2005 authors' proposal). */
    SLEEP("sleep", "fairslice, sleep policy", List.of("--policy", "sleep"), List.of(Middleware.PROBE_OFF), true),
    /** fairslice sharing the CPU between classes by run slots and yield points. */
    SHARE("share", "fairslice, share policy", List.of("--policy", "share"), List.of(Middleware.PROBE_OFF), true),
    /** Peer: Netflix concurrency-limits' partitioned limiter (light and heavy partitions) in a servlet filter. */
    NETFLIX("netflix", "Netflix concurrency-limits, partitioned limiter (light 90 %, heavy 10 %)",
            List.of("--policy", "none"), List.of("-Dfairslice.peer=netflix-partitioned"), false),
    /** Peer: heavy requests' threads run at nice 10, through kernel-probe's actuator. */
    NICE("nice", "OS nice 10 for heavy requests' threads (kernel-probe)",
            List.of("--policy", "observe"), List.of("-Dfairslice.kernel-probe.nice.heavy=10"), false),
    /** Peer: heavy requests' threads get a 1 ms EEVDF slice, through kernel-probe's actuator. */
    SLICE("slice", "OS slice 1 ms for heavy requests' threads (kernel-probe)",
            List.of("--policy", "observe"), List.of("-Dfairslice.kernel-probe.slice.heavy=1ms"), false);

    /**
     * The study server carries the kernel probe (for the dashboard); fairslice's own configurations run without it:
     * its per-request attribution (a /proc read and a getrusage at every request's entry and exit) cost 10-12 % of the
     * light page's capacity (OverheadCompare, docs/benchmarks), which is the probe's cost, not the policy's. The OS
     * peers need it: they act through its actuators.
     */
    static final String PROBE_OFF = "-Dfairslice.kernel-probe.enabled=false";

    private final String id;
    private final String description;
    private final List<String> serverArguments;
    private final List<String> jvmOptions;
    private final boolean yieldPoints;

    Middleware(String id, String description, List<String> serverArguments, List<String> jvmOptions,
               boolean yieldPoints) {
        this.id = id;
        this.description = description;
        this.serverArguments = serverArguments;
        this.jvmOptions = jvmOptions;
        this.yieldPoints = yieldPoints;
    }

    /** JVM options of the server (a peer is selected with {@code -Dfairslice.peer}). */
    public List<String> jvmOptions() {
        return jvmOptions;
    }

    /** Whether this needs the kernel probe in the server (its meters must show up in /metrics). */
    boolean kernelProbe() {
        return jvmOptions.stream().anyMatch(o -> o.startsWith("-Dfairslice.kernel-probe.") && !o.equals(PROBE_OFF));
    }

    /**
     * Whether the server runs fairslice's filter (any policy but the server's {@code --policy none}), whose meter gives
     * the pages' CPU in a window; without it (the baseline, the Netflix peer) there is nothing to sample, and a scrape
     * of /metrics under overload (the baseline under 100 ms slices) timed out and warned of CPU it could never read.
     */
    boolean fairsliceMeter() {
        int policy = serverArguments.indexOf("--policy");
        return policy < 0 || !"none".equals(serverArguments.get(policy + 1));
    }

    /** Whether the server must confirm it installed a peer ("fairslice peer: ... installed"). */
    boolean peer() {
        return jvmOptions.stream().anyMatch(o -> o.startsWith("-Dfairslice.peer="));
    }

    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    public List<String> serverArguments() {
        return serverArguments;
    }

    /**
     * Whether the server runs with yield points woven into the study app (the AspectJ agent, when the launcher
     * provides it): fairslice's policies act at yield points; the baseline and the peers run without the agent so
     * they pay nothing for it.
     */
    public boolean yieldPoints() {
        return yieldPoints;
    }

    public static Middleware of(String id) {
        for (Middleware m : values()) {
            if (m.id.equals(id)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown middleware '" + id + "'; known: "
                + Arrays.stream(values()).map(Middleware::id).collect(Collectors.joining(", ")));
    }
}
