package io.fairslice.experiments.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The progress line: step, elapsed time and an ETA. The ETA starts from a plan (server start, JIT warm-up, and per
 * point Gatling's start-up, warm-up, window and drain) and is rescaled by how long the finished work really took.
 */
final class Progress {

    private static final double SERVER_START_SECONDS = 4;
    private static final double GATLING_START_SECONDS = 4;
    private static final double DRAIN_SECONDS = 1.5;

    private final PrintStream console;
    private final double serverSeconds;
    private final int servers;
    private final double pointSeconds;
    private final int pointsPerConfiguration;
    private final long started = System.currentTimeMillis();
    private double plannedRemaining;
    private double plannedDone;
    /** Per configuration id: the planned seconds it has done, which a skip must not take off a second time. */
    private final Map<String, Double> doneIn = new HashMap<>();

    Progress(StudyConfig config, PrintStream console) {
        this.console = console;
        this.serverSeconds = serverSeconds(config);
        this.servers = config.serversPerConfiguration();
        this.pointSeconds = pointSeconds(config);
        this.pointsPerConfiguration = config.heavyUsers().size() * config.repetitions();
        this.plannedRemaining = plannedSeconds(config);
        console.println(planLine(config) + " (ETA updates as it runs)");
    }

    /** Per server (one per configuration, or per repetition): its start and the JIT warm-up. */
    private static double serverSeconds(StudyConfig config) {
        return SERVER_START_SECONDS + (config.jitWarmUp().isZero() ? 0
                : GATLING_START_SECONDS + config.jitWarmUp().toMillis() / 1000.0 + DRAIN_SECONDS);
    }

    /** Per point: Gatling's start, warm-up, window and drain; and one step of JIT settling (often the only one). */
    private static double pointSeconds(StudyConfig config) {
        double settle = config.jitSettle().isZero() ? 0 : GATLING_START_SECONDS + DRAIN_SECONDS
                + StudyRunner.settleSteps(config.jitSettle()).get(0).toMillis() / 1000.0;
        return settle + GATLING_START_SECONDS + (config.warmUp().toMillis() + config.measure().toMillis()) / 1000.0
                + DRAIN_SECONDS;
    }

    /**
     * The plan the ETA starts from, in seconds: every configuration run, every point measured once per repetition,
     * no re-runs of disturbed windows (each re-run adds a point).
     */
    static double plannedSeconds(StudyConfig config) {
        return config.configurations().size() * (config.serversPerConfiguration() * serverSeconds(config)
                + config.heavyUsers().size() * config.repetitions() * pointSeconds(config));
    }

    /** The first line of a run, and what {@code --plan} prints. */
    static String planLine(StudyConfig config) {
        return String.format(Locale.ROOT, "fairslice study: %d configuration(s) x %d point(s) x %d repetition(s); "
                        + "planned %s", config.configurations().size(), config.heavyUsers().size(),
                config.repetitions(), clock(Duration.ofSeconds(Math.round(plannedSeconds(config)))));
    }

    /** A server of the configuration has started and warmed its JIT up. */
    void warmedUp(String configuration) {
        advance(configuration, serverSeconds);
    }

    void pointDone(String configuration) {
        advance(configuration, pointSeconds);
    }

    /**
     * A configuration that will not run on (skipped, failed, or kept from an earlier run): what is left of its
     * planned time is no longer ahead. The part it ran before it failed has been taken off already.
     */
    void skipConfiguration(String configuration) {
        double left = servers * serverSeconds + pointsPerConfiguration * pointSeconds
                - doneIn.getOrDefault(configuration, 0.0);
        plannedRemaining = Math.max(0, plannedRemaining - Math.max(0, left));
    }

    private void advance(String configuration, double seconds) {
        doneIn.merge(configuration, seconds, Double::sum);
        plannedDone += seconds;
        plannedRemaining = Math.max(0, plannedRemaining - seconds);
    }

    /** The planned seconds still ahead, before the pace of the finished work rescales them. */
    double plannedRemaining() {
        return plannedRemaining;
    }

    void step(String configuration, String what) {
        double elapsed = (System.currentTimeMillis() - started) / 1000.0;
        double pace = plannedDone > 0 ? elapsed / plannedDone : 1.0;
        console.printf(Locale.ROOT, "[%s elapsed, ETA %s] %s: %s%n",
                clock(Duration.ofSeconds(Math.round(elapsed))),
                clock(Duration.ofSeconds(Math.round(plannedRemaining * pace))), configuration, what);
    }

    void report(PointResult r) {
        console.printf(Locale.ROOT, "    light %.1f req/s (p99 %d ms), heavy %.1f req/s, server CPU %.3f%s%s%n",
                r.light().throughput(), r.light().p99Millis(), r.heavy().throughput(), r.serverCpu(),
                Double.isNaN(r.lightCpu()) ? ""
                        : String.format(Locale.ROOT, " (light pages %.1f %%, heavy %.1f %% of it)",
                                r.lightCpu() * 100, r.heavyCpu() * 100),
                r.note().isEmpty() ? "" : " -- " + r.note());
    }

    /** For progress lines and the report: {@code 4m05s}, {@code 1h05m}. */
    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60)
                : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }

    void done() {
        double elapsed = (System.currentTimeMillis() - started) / 1000.0;
        console.printf(Locale.ROOT, "fairslice study: measured in %s%n",
                clock(Duration.ofSeconds(Math.round(elapsed))));
    }
}
