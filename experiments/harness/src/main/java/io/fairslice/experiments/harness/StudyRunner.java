package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.ProcCpu;
import io.fairslice.loadgen.StudyParameters;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs the study: for every configuration, start the server, warm its JIT up, then measure every point (heavy
 * clients) as many times as configured, draining between points; a window that other processes disturbed is
 * re-run, and kept flagged if it stays disturbed. Configurations the machine or the checkout cannot run are
 * reported as such and the rest still runs. The data files are written after every configuration, so an interrupted
 * run keeps what it finished ({@code --report DIR} makes a report of it) and can go on ({@code --resume DIR}).
 * With {@code freshServer = repetition} every repetition has a server of its own, and the repetitions run in rounds
 * across the configurations ({@link #runInRounds}).
 */
public final class StudyRunner {

    /**
     * Before a point is measured its load runs in steps of at most this length until the server's JIT compiler
     * threads used less than {@link ProcCpu#JIT_SETTLED} of the server's CPU in a step, for at most {@code jitSettle}:
     * windows measure compiled code, not the compiler. Without it, after the JIT warm-up (the heaviest point) the
     * compiler still took 3-6 % of the server in a light-only window that followed (2026-11-26, docs/study.md), more in
     * fairslice's server, whose own code is more to compile, and 0.6-1.9 % in the loaded window: both read a few
     * percent low. The light-only reference is now measured last ({@link StudyConfig#measurementOrder}).
     */
    static final Duration SETTLE_STEP = Duration.ofSeconds(10);

    /**
     * The settling steps' lengths for {@code jitSettle}: {@link #SETTLE_STEP} each, and a remainder shorter than the
     * load generator's shortest run ({@link StudyParameters#MIN_DURATION}) added to the step before it (10.5 s: one
     * step of 10.5 s, not 10 s and 0.5 s, which Gatling refuses). A jitSettle under that minimum gives one step the
     * load generator refuses, which {@link StudyConfig} reports.
     */
    static List<Duration> settleSteps(Duration jitSettle) {
        List<Duration> steps = new ArrayList<>();
        Duration left = jitSettle;
        while (!left.isZero() && !left.isNegative()) {
            Duration step = left.compareTo(SETTLE_STEP) < 0 ? left : SETTLE_STEP;
            if (left.minus(step).compareTo(StudyParameters.MIN_DURATION) < 0) {
                step = left;
            }
            steps.add(step);
            left = left.minus(step);
        }
        return steps;
    }

    /**
     * Where the child JVMs get their classes; extra JVM options for every server; and the options that weave yield
     * points into the study app (the AspectJ agent), used for fairslice's own configurations only.
     */
    public record Classpaths(String server, String loadgen, List<String> serverJvmOptions,
                             List<String> weavingJvmOptions) {
        public Classpaths {
            serverJvmOptions = List.copyOf(serverJvmOptions);
            weavingJvmOptions = List.copyOf(weavingJvmOptions);
        }
    }

    private final StudyConfig config;
    private final Classpaths classpaths;
    private final Path out;
    private final PrintStream console;
    private final Progress progress;
    private final StudyResult previous;

    public StudyRunner(StudyConfig config, Classpaths classpaths, Path out, PrintStream console) {
        this(config, classpaths, out, console, null);
    }

    /**
     * A runner that goes on with {@code previous} (read from {@code out}): its measured configurations are kept as
     * they are and not run again; the others run. {@link #checkResumable} says whether that is sound.
     */
    public StudyRunner(StudyConfig config, Classpaths classpaths, Path out, PrintStream console,
                       StudyResult previous) {
        this.config = config;
        this.classpaths = classpaths;
        this.out = out;
        this.console = console;
        this.progress = new Progress(config, console);
        this.previous = previous;
    }

    public StudyResult run() throws IOException, InterruptedException {
        long started = previous == null ? System.currentTimeMillis() : previous.startEpochMillis();
        List<PointResult> points = new ArrayList<>();
        List<ConfigurationOutcome> outcomes = new ArrayList<>();
        Map<String, String> settings = settings();
        Map<String, String> machine;
        try (Host host = new Host()) {
            machine = host.facts();
            if (previous == null) {
                machine.put(CORE_SPEED_AT_START, coreSpeed(host, BEFORE_RUN, "core-speed-start.log"));
            } else {
                checkResumable(previous, settings, machine);
                if (Report.removeEarlier(out)) {
                    console.println("fairslice study: the run's earlier report (report.md, report.html, figures/) is "
                            + "removed: it is made again when this run ends, or by --report " + out);
                }
                settings.put("resumed", (previous.settings().containsKey("resumed")
                        ? previous.settings().get("resumed") + ", " : "") + Instant.now());
                resumeCoreSpeed(host, machine);
            }
            for (Scheduler s : config.configurations().stream().map(Configuration::scheduler).distinct().toList()) {
                String unavailable = host.unavailableReason(s);
                if (unavailable != null) {
                    console.println("fairslice study: " + unavailable + " here; the *@" + s.id()
                            + " configurations are skipped and the rest runs");
                }
            }
            if (!host.pinning) {
                // the study's machine is a server on one core and Gatling on another (docs/study.md)
                console.println("fairslice study: warning: the server and Gatling are not pinned to cores of their "
                        + "own (" + host.pinningUnavailableReason() + "): they share the cores, and the windows "
                        + "measure that");
            }
            if (!config.heavyUsers().contains(0)) {
                // allowed: a run may look at one load only (docs/study.md, "Custom runs")
                console.println("fairslice study: heavyUsers = " + config.describe().get("heavyUsers") + " has no "
                        + "light-only point 0, which light retention divides by: retention will read n/a");
            }
            String interrupts = interruptWarning(host.interruptAccounting);
            if (interrupts != null) {
                console.println(interrupts);
            }
            LoadGenerator load = new LoadGenerator(host, classpaths.loadgen(), config.gatlingJvmOptions());
            if (config.serversPerConfiguration() == 1) {
                for (Configuration configuration : config.configurations()) {
                    ConfigurationOutcome done = keep(configuration, points);
                    outcomes.add(done != null ? done
                            : runConfiguration(host, load, configuration, 1, config.repetitions(), points));
                    // after every configuration: an interrupted run keeps what it finished
                    settings.put("completed", completed(outcomes));
                    ResultsFiles.write(result(settings, machine, points, outcomes, started), out);
                }
            } else {
                runInRounds(host, load, points, outcomes, settings, machine, started);
            }
            machine.put(CORE_SPEED_AT_END, coreSpeed(host, AFTER_RUN, "core-speed-end.log"));
            // against the run's own start (a resumed run's, read back), or the resume's where that cannot be read
            CoreSpeed.Samples start = speeds.getOrDefault(BEFORE_RUN, speeds.get(AT_RESUME));
            speedChanged(machine, CoreSpeed.change(start, speeds.get(AFTER_RUN)),
                    "ran at another speed after the run than before it", "at either end");
        }
        progress.done();
        return result(settings, machine, points, outcomes, started);
    }

    private StudyResult result(Map<String, String> settings, Map<String, String> machine, List<PointResult> points,
                               List<ConfigurationOutcome> outcomes, long started) {
        return new StudyResult(out.getFileName().toString(), settings, machine, points, outcomes, started,
                System.currentTimeMillis(), config.heaviest());
    }

    /** The {@code completed} setting: how many configurations have an outcome. */
    private String completed(List<ConfigurationOutcome> outcomes) {
        return outcomes.size() + " of " + config.configurations().size() + " configurations";
    }

    /**
     * A server per repetition: the repetitions run in rounds (every configuration's first repetition, then every
     * configuration's second, ...), so that a machine whose speed drifts during the run (a shared host) shifts every
     * configuration alike instead of the ones that happened to run late. A configuration that fails or is not
     * available is not run in later rounds. The data files are written after every server; a configuration counts as
     * completed (and is kept by {@code --resume}) once its last round is measured.
     */
    private void runInRounds(Host host, LoadGenerator load, List<PointResult> points,
                             List<ConfigurationOutcome> outcomes, Map<String, String> settings,
                             Map<String, String> machine, long started) throws IOException, InterruptedException {
        Map<String, ConfigurationOutcome> ended = new LinkedHashMap<>();
        for (Configuration configuration : config.configurations()) {
            ConfigurationOutcome done = keep(configuration, points);
            if (done != null) {
                ended.put(configuration.id(), done);
            }
        }
        for (int round = 1; round <= config.repetitions(); round++) {
            for (Configuration configuration : config.configurations()) {
                if (ended.containsKey(configuration.id())) {
                    continue;
                }
                ConfigurationOutcome outcome = runConfiguration(host, load, configuration, round, round, points);
                if (outcome.status() != ConfigurationOutcome.Status.MEASURED || round == config.repetitions()) {
                    ended.put(configuration.id(), outcome);
                }
                inConfigurationOrder(ended, outcomes);
                settings.put("completed", completed(outcomes) + " (round " + round + " of " + config.repetitions()
                        + ")");
                ResultsFiles.write(result(settings, machine, points, outcomes, started), out);
            }
        }
        inConfigurationOrder(ended, outcomes);
        settings.put("completed", completed(outcomes));
    }

    /** Fills {@code outcomes} with the outcomes in {@code ended}, in the order the configurations were listed. */
    private void inConfigurationOrder(Map<String, ConfigurationOutcome> ended, List<ConfigurationOutcome> outcomes) {
        outcomes.clear();
        for (Configuration c : config.configurations()) {
            if (ended.containsKey(c.id())) {
                outcomes.add(ended.get(c.id()));
            }
        }
    }

    /** The earlier run's outcome and points of a configuration it measured (added to {@code points}), or null. */
    private ConfigurationOutcome keep(Configuration configuration, List<PointResult> points) {
        ConfigurationOutcome done = previousOutcome(configuration);
        if (done != null) {
            progress.skipConfiguration(configuration.id());
            console.println("fairslice study: " + configuration.id() + " was measured before; kept");
            points.addAll(previous.points().stream()
                    .filter(p -> p.configuration().equals(configuration.id())).toList());
        }
        return done;
    }

    /** The system property through which the launcher names the code a run measures ({@code source_revision}). */
    static final String SOURCE_PROPERTY = "fairslice.source";

    /**
     * The code this run measures, its setting {@code source}: the commit, and whether the checkout was modified, as
     * the launcher says. What "share" means has changed from commit to commit; a run goes on only with the same code.
     */
    static String source() {
        return System.getProperty(SOURCE_PROPERTY, "unknown (not started by ./fairslice study)");
    }

    private Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>(config.describe());
        settings.put("source", source());
        settings.put("components", Components.describe(classpaths));
        settings.put("extraServerJvmOptions", String.join(" ", classpaths.serverJvmOptions()));
        settings.put("weaving", classpaths.weavingJvmOptions().isEmpty()
                ? "none (no yield points woven)"
                : String.join(" ", classpaths.weavingJvmOptions()) + " (fairslice configurations only)");
        return settings;
    }

    /** The earlier run's outcome of a configuration it measured, or null: it runs (again). */
    private ConfigurationOutcome previousOutcome(Configuration configuration) {
        if (previous == null) {
            return null;
        }
        return previous.outcomes().stream()
                .filter(o -> o.configuration().equals(configuration.id())
                        && o.status() == ConfigurationOutcome.Status.MEASURED)
                .findFirst().orElse(null);
    }

    static final String CORE_SPEED_AT_START = "core_speed_at_start";
    /** The speed when the run last went on ({@code --resume}); the run's start keeps its own. */
    static final String CORE_SPEED_AT_RESUME = "core_speed_at_resume";
    static final String CORE_SPEED_AT_END = "core_speed_at_end";
    /**
     * Set only when the speed after the run, or when it went on, differs from the speed at its start by more than the
     * steady spread; kept through later resumes.
     */
    static final String CORE_SPEED_CHANGE = "core_speed_change";
    private static final String BEFORE_RUN = "before the run";
    private static final String AT_RESUME = "as the run goes on";
    private static final String AFTER_RUN = "after the run";
    /**
     * The core speed samples taken, by when ({@link #coreSpeed}: {@link #BEFORE_RUN}, {@link #AT_RESUME},
     * {@link #AFTER_RUN}).
     */
    private final Map<String, CoreSpeed.Samples> speeds = new LinkedHashMap<>();
    /** Per configuration, the latest end of the load's first heavy requests warned of ({@link #warmUpShort}). */
    private final Map<String, Long> warmUpWarned = new HashMap<>();
    private static final int CORE_SPEED_SAMPLES = 6;

    /**
     * Facts that may differ when a run goes on later: the realtime settings found at start (the harness restores them)
     * and how fast the host ran the server's core.
     */
    private static final Set<String> VOLATILE_FACTS = Set.of("sched_rr_timeslice_ms_at_start",
            "sched_rt_runtime_us_at_start", CORE_SPEED_AT_START, CORE_SPEED_AT_RESUME, CORE_SPEED_AT_END,
            CORE_SPEED_CHANGE);

    /**
     * A resumed run keeps its start's core speed (the fact and {@code logs/core-speed-start.log}, which it read the
     * samples from) and a change found before; the host is sampled again now, into {@code logs/core-speed-resume.log},
     * and a speed other than the start's is warned of and recorded: the configurations measured before and after
     * are not alike. (The resume's samples replaced the start's, and a host that changed speed between the sessions
     * went unremarked.)
     */
    private void resumeCoreSpeed(Host host, Map<String, String> machine) throws InterruptedException {
        for (String kept : List.of(CORE_SPEED_AT_START, CORE_SPEED_CHANGE)) {
            String value = previous.machine().get(kept);
            if (value != null) {
                machine.put(kept, value);
            }
        }
        Path startLog = out.resolve("logs").resolve("core-speed-start.log");
        try {
            speeds.put(BEFORE_RUN, CoreSpeed.Samples.parse(Files.readString(startLog)));
        } catch (IOException | IllegalArgumentException e) {
            console.println("fairslice study: the run's start core speed cannot be read back from " + startLog + " ("
                    + e.getMessage() + "); the run's end is compared with this resume's");
        }
        machine.put(CORE_SPEED_AT_RESUME, coreSpeed(host, AT_RESUME, "core-speed-resume.log"));
        speedChanged(machine, CoreSpeed.change(speeds.get(BEFORE_RUN), speeds.get(AT_RESUME), AT_RESUME,
                "at its start"), "runs at another speed as the run goes on than at its start", "before and after");
    }

    /**
     * A change of the core's speed ({@link CoreSpeed#change}; null: none), recorded beside any found before and
     * warned of: the server's core {@code how}, and the configurations measured {@code when} are not alike.
     */
    private void speedChanged(Map<String, String> machine, String change, String how, String when) {
        if (change != null) {
            machine.merge(CORE_SPEED_CHANGE, change, (was, now) -> was + "; " + now);
            console.println("fairslice study: warning: the server's core " + how + " (" + change + "); the"
                    + " configurations measured " + when + " are not alike (docs/study.md, \"A host that changes"
                    + " speed\")");
        }
    }

    /**
     * Samples the server core's speed ({@link CoreSpeed}) and says what it found; a host that does not run it
     * steadily gets a warning, since retention then spreads with the host's speed. A sampler that cannot run costs
     * the run nothing but the fact. Its output goes to {@code logs/<log>}; the samples, when taken, to
     * {@link #speeds} under {@code when}.
     */
    private String coreSpeed(Host host, String when, String log) throws InterruptedException {
        try {
            CoreSpeed.Samples samples = host.coreSpeed(CORE_SPEED_SAMPLES, out.resolve("logs").resolve(log));
            console.println("fairslice study: the server's core " + when + ": " + samples.describe());
            if (!samples.steady()) {
                console.println("fairslice study: warning: this host does not run the server's core at a steady speed;"
                        + " a server's windows, minutes apart, may run at different speeds and light retention spreads"
                        + " with them (docs/study.md, \"A host that changes speed\")");
            }
            speeds.put(when, samples);
            return samples.describe();
        } catch (IOException | IllegalArgumentException e) {
            console.println("fairslice study: the server's core speed " + when + " could not be sampled: "
                    + e.getMessage());
            return "not sampled: " + e.getMessage();
        }
    }

    /**
     * Refuses to go on with a run whose settings or machine differ from this one's: its points would not be
     * comparable. Names the first difference.
     */
    static void checkResumable(StudyResult previous, Map<String, String> settings, Map<String, String> machine) {
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String before = previous.settings().get(e.getKey());
            if (!e.getKey().equals("completed") && !e.getKey().equals("resumed") && !e.getValue().equals(before)) {
                throw new IllegalArgumentException("cannot resume " + previous.runId() + ": "
                        + difference("setting", e.getKey(), before, e.getValue()));
            }
        }
        for (Map.Entry<String, String> e : machine.entrySet()) {
            String before = previous.machine().get(e.getKey());
            if (!VOLATILE_FACTS.contains(e.getKey()) && !e.getValue().equals(before)) {
                throw new IllegalArgumentException("cannot resume " + previous.runId()
                        + (before == null ? ": " : " on another machine: ")
                        + difference("machine fact", e.getKey(), before, e.getValue()));
            }
        }
    }

    /** A setting or fact that differs; one the run did not record at all was added to the harness since it started. */
    private static String difference(String kind, String key, String before, String now) {
        if (before == null) {
            return "it was started by a harness that did not record " + kind + " " + key + " (now '" + now
                    + "'); start a new run";
        }
        return kind + " " + key + " was '" + before + "', now '" + now + "'";
    }

    /** Measures repetitions {@code firstRep..lastRep} of the configuration: on one server, or one server each. */
    private ConfigurationOutcome runConfiguration(Host host, LoadGenerator load, Configuration configuration,
                                                  int firstRep, int lastRep, List<PointResult> points)
            throws InterruptedException {
        String id = configuration.id();
        String unavailable = host.unavailableReason(configuration.scheduler());
        if (unavailable != null) {
            progress.skipConfiguration(id);
            return new ConfigurationOutcome(id, ConfigurationOutcome.Status.NOT_AVAILABLE, unavailable);
        }
        String safe = id.replace('@', '-');
        try {
            if (configuration.scheduler().realtime()) {
                host.setRrTimeslice(configuration.scheduler().timesliceMillis());
                if (config.liftRealtimeThrottle()) {
                    try {
                        host.liftRealtimeThrottle();
                    } catch (UnsupportedOperationException e) {
                        throw new StudyServerProcess.NotAvailableException(e.getMessage());
                    }
                }
            }
            if (config.serversPerConfiguration() == 1) {
                runServer(host, load, configuration, safe, firstRep, lastRep, points);
            } else {
                for (int rep = firstRep; rep <= lastRep; rep++) {
                    runServer(host, load, configuration, safe + "-r" + rep, rep, rep, points);
                }
            }
            return new ConfigurationOutcome(id, ConfigurationOutcome.Status.MEASURED, "");
        } catch (StudyServerProcess.NotAvailableException e) {
            stopped(host, e);
            progress.skipConfiguration(id);
            console.println("fairslice study: " + id + " skipped: " + e.getMessage());
            return new ConfigurationOutcome(id, ConfigurationOutcome.Status.NOT_AVAILABLE, e.getMessage());
        } catch (PageNotServedException e) {
            throw e; // not this configuration's fault: the run stops
        } catch (IOException | RuntimeException e) {
            stopped(host, e);
            progress.skipConfiguration(id);
            String why = e instanceof FileSystemException || e.getMessage() == null ? e.toString()
                    : e.getMessage();
            console.println("fairslice study: " + id + " failed: " + why);
            return new ConfigurationOutcome(id, ConfigurationOutcome.Status.FAILED, why);
        } finally {
            if (configuration.scheduler().realtime()) {
                host.restoreRealtime();
            }
        }
    }

    /**
     * Throws when the harness is stopping (SIGTERM, Ctrl-C): its shutdown hook killed the server and Gatling, and
     * {@code e} is what that did to the configuration, not its outcome. Recorded, it would count as completed (as
     * failed, in {@code run.properties} and {@code outcomes.csv}) in a run that was interrupted.
     */
    private static void stopped(Host host, Exception e) throws InterruptedException {
        if (host.stopping()) {
            InterruptedException stop = new InterruptedException("the study was stopped");
            stop.initCause(e);
            throw stop;
        }
    }

    /**
     * Starts a server for the configuration, warms its JIT up and measures repetitions {@code firstRep..lastRep} of
     * every point on it; {@code name} names its logs.
     */
    private void runServer(Host host, LoadGenerator load, Configuration configuration, String name, int firstRep,
                           int lastRep, List<PointResult> points)
            throws IOException, InterruptedException, StudyServerProcess.NotAvailableException {
        String id = configuration.id();
        Path logs = out.resolve("logs");
        progress.step(id, "starting the server" + (config.serversPerConfiguration() > 1
                ? " for repetition " + firstRep : ""));
        try (StudyServerProcess server = StudyServerProcess.start(host, configuration, config, classpaths.server(),
                classpaths.serverJvmOptions(), classpaths.weavingJvmOptions(), logs.resolve(name + "-server.log"));
             CpuSampler cpu = new CpuSampler(server.pid(), host.serverCore(), host.ticksPerSecond,
                     host.interruptAccounting);
             MeterSampler meter = configuration.middleware().fairsliceMeter()
                     ? new MeterSampler(server.pid(), server.baseUrl, host.ticksPerSecond) : null) {
            StudyParameters pages = StudyParameters.from(parameters(server, 0, Duration.ZERO, config.measure())::get);
            List<String> paths = new ArrayList<>(pages.lightPaths());
            paths.add(pages.heavyPath());
            StudyServerProcess.Unserved unserved = server.unservedPage(paths);
            if (unserved != null) {
                String page = unserved.path().equals(pages.heavyPath()) && !pages.lightPaths().contains(unserved.path())
                        ? "the heavy page " + unserved.path() : "lightPaths = " + config.lightPaths();
                throw new PageNotServedException(page + ": the study server (" + id + ") answered GET "
                        + unserved.path() + " with " + unserved.status() + " (see " + server.log + "), so every "
                        + "such request of the study would fail; nothing is measured");
            }
            if (!config.jitWarmUp().isZero()) {
                progress.step(id, "JIT warm-up " + StudyConfig.format(config.jitWarmUp()));
                load.run(parameters(server, config.heaviest(), Duration.ZERO, config.jitWarmUp()),
                        config.jitWarmUp(), out.resolve("gatling").resolve(name + "-jit"),
                        logs.resolve(name + "-jit-gatling.log"), id + " JIT warm-up");
                drain(cpu, server);
            }
            if (configuration.middleware().kernelProbe()
                    && !server.scrapeMetrics().contains("fairslice_probe_")) {
                // without the probe the -D settings are ignored: measuring would pass the baseline off as the peer
                throw new StudyServerProcess.NotAvailableException("the kernel probe is not active in the study "
                        + "server (no fairslice_probe_* meters in /metrics after the warm-up), so "
                        + configuration.middleware().jvmOptions() + " would do nothing");
            }
            progress.warmedUp(id);
            for (int rep = firstRep; rep <= lastRep; rep++) {
                for (int heavy : config.measurementOrder()) {
                    measure(host, load, cpu, meter, server, configuration, heavy, rep, points);
                    progress.pointDone(id);
                }
            }
        }
    }

    /**
     * A page the load requests is not served by the study server ({@link StudyServerProcess#unservedPage}): the whole
     * study stops, since every configuration would measure the same failures (exit 2, as for a bad setting).
     */
    static final class PageNotServedException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        PageNotServedException(String message) {
            super(message);
        }
    }

    /** Whether a window counts, and what its point says about the server's CPU in it ("" when nothing). */
    record Verdict(boolean accepted, String note) {
    }

    /**
     * A window is disturbed, and re-run, when the server had less than {@code threshold} of its core because other
     * processes ran on it (more than {@code 1 - threshold}, the hypervisor's steal included); a core that sat idle
     * is the server's own doing (RT throttling, a class that cannot use its share) and counts, with a note. A
     * window without samples does not count.
     */
    static Verdict verdict(CpuSampler.Share share, double threshold) {
        return verdict(share, threshold, true);
    }

    /**
     * As {@link #verdict(CpuSampler.Share, double)} for a server pinned to its core; one that is not ({@code pinned}
     * false: one core, or no taskset) shares the cores with Gatling, whose CPU the core's time then holds too: the
     * window is kept, unchecked, with a note. Taken for other processes, Gatling's CPU had every window re-run once
     * and kept as disturbed.
     */
    static Verdict verdict(CpuSampler.Share share, double threshold, boolean pinned) {
        if (!share.known()) {
            return new Verdict(false, "server CPU share unknown (no /proc samples in the window)");
        }
        if (!pinned) {
            return new Verdict(true, "not pinned: not checked for disturbance");
        }
        if (share.server() < threshold && share.others() > 1 - threshold) {
            return new Verdict(false, String.format(Locale.ROOT,
                    "disturbed: server had %.3f of its core (< %.2f), other processes %.3f", share.server(), threshold,
                    share.others()) + (share.steal() >= 0.005
                    ? String.format(Locale.ROOT, ", hypervisor steal %.3f", share.steal()) : ""));
        }
        if (share.server() < threshold) {
            return new Verdict(true, String.format(Locale.ROOT, "server used %.3f of its core; %.3f idle",
                    share.server(), share.idle()));
        }
        return new Verdict(true, "");
    }

    /**
     * The window's verdict once its simulation.log is read: a log cut short (Gatling stopped mid-write) lacks the
     * requests after the cut, so the window's counts and throughput read low; it is re-run as a disturbed one is. It
     * was accepted with a note, and its low light throughput went into the means.
     */
    static Verdict withLog(Verdict cpu, boolean logTruncated) {
        if (!logTruncated) {
            return cpu;
        }
        return new Verdict(false, (cpu.note().isEmpty() ? "" : cpu.note() + "; ")
                + "simulation.log truncated (requests after the cut not counted)");
    }

    /**
     * Measures one point, re-running a disturbed window or one whose simulation.log is truncated; every window
     * measured goes to {@code points}. {@code meter} is null for a server without fairslice's meter.
     */
    private void measure(Host host, LoadGenerator load, CpuSampler cpu, MeterSampler meter, StudyServerProcess server,
                         Configuration configuration, int heavy, int rep, List<PointResult> points)
            throws IOException, InterruptedException {
        String id = configuration.id();
        String safe = id.replace('@', '-');
        String settled = settle(load, cpu, server, configuration, heavy, rep);
        for (int attempt = 1; attempt <= 1 + config.retries(); attempt++) {
            progress.step(id, String.format(Locale.ROOT, "H=%d rep %d/%d%s", heavy, rep, config.repetitions(),
                    attempt > 1 ? " (re-run " + (attempt - 1) + ")" : ""));
            String point = String.format(Locale.ROOT, "%s-h%02d-r%d-a%d", safe, heavy, rep, attempt);
            Map<String, String> parameters = parameters(server, heavy, config.warmUp(), config.measure());
            StudyParameters pages = StudyParameters.from(parameters::get); // the pages Gatling will request
            Path log = load.run(parameters,
                    config.warmUp().plus(config.measure()), out.resolve("gatling").resolve(point),
                    out.resolve("logs").resolve(point + "-gatling.log"), id + " H=" + heavy);
            if (!server.alive()) {
                throw new IOException("the study server died during " + point + "; see " + server.log);
            }
            long from = config.warmUp().toMillis();
            long to = from + config.measure().toMillis();
            WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, from, to);
            CpuSampler.Share share = cpu.share(window.fromEpochMillis(), window.toEpochMillis());
            Verdict verdict = withLog(verdict(share, configuration.scheduler().minimumCpuShare(),
                    host.pinningUnavailableReason() == null), window.logTruncated());
            String note = verdict.note();
            String warmUpShort = warmUpShort(id, heavy, config.warmUp(), window.firstHeavyEndMillis());
            if (warmUpShort != null) {
                note = (note.isEmpty() ? "" : note + "; ") + String.format(Locale.ROOT,
                        "the load's first heavy requests ran until %.1f s, past the %s warm-up",
                        window.firstHeavyEndMillis() / 1000.0, StudyConfig.format(config.warmUp()));
                if (window.firstHeavyEndMillis() > warmUpWarned.getOrDefault(id, -1L)) {
                    warmUpWarned.put(id, window.firstHeavyEndMillis());
                    console.println("fairslice study: warning: " + warmUpShort);
                }
            }
            if (share.jit() >= ProcCpu.JIT_SETTLED) {
                note = (note.isEmpty() ? "" : note + "; ") + String.format(Locale.ROOT,
                        "JIT compiler %.1f %% of the server's CPU in the window (%s)", share.jit() * 100, settled);
            }
            PointResult result = new PointResult(id, heavy, config.lightUsers(), rep, attempt, window.fromEpochMillis(),
                    config.measure().toMillis() / 1000.0, window.light(), window.heavy(), share.server(),
                    share.others(), share.interrupts(), share.idle(),
                    part(meter, window, pages.lightPaths()), part(meter, window, List.of(pages.heavyPath())),
                    share.jit(), verdict.accepted(), note);
            progress.report(result);
            points.add(result);
            drain(cpu, server);
            if (result.accepted()) {
                return;
            }
        }
    }

    /** The pages' part of the server's CPU in the window; NaN without fairslice's meter ({@code meter} null). */
    private static double part(MeterSampler meter, WindowAnalyzer.Window window, List<String> pages) {
        return meter == null ? Double.NaN : meter.part(window.fromEpochMillis(), window.toEpochMillis(), pages);
    }

    /**
     * What to say of a host whose kernel configuration could not be read (a container, a VM image without /boot's
     * config), or null: its interrupts are taken as kept out of the server's CPU time, and if the kernel charges them
     * to the tasks they interrupt, as these project's hosts' do, other processes read low by them and a disturbed
     * window may pass (docs/study.md, step 5).
     */
    static String interruptWarning(ProcFs.InterruptAccounting accounting) {
        return accounting != ProcFs.InterruptAccounting.UNKNOWN ? null
                : "fairslice study: warning: the kernel's configuration could not be read (/proc/config.gz, "
                + "/boot/config-<release>), so whether the server's CPU time holds the interrupts handled on its "
                + "threads is not known: taken as not, a window where other processes took the server's core up to the "
                + "interrupts' share is not found disturbed (docs/study.md, step 5)";
    }

    /**
     * What to say when a window began before the load's first heavy requests ended ({@code firstHeavyEndMillis},
     * since the load's start; {@link WindowAnalyzer.Window#firstHeavyEndMillis}), or null when they ended in the
     * warm-up. Every client starts with the load, so a heavy request that outlasts the warm-up (the 10 MB page under
     * 40 heavy clients took a median 5-14 s in docs/measurements/cpu-sample-bias-20261206) puts the load's start,
     * where heavy pages took most of the server for seconds (docs/measurements/rr-heavy-onset-20261206), in the
     * window. How long they run depends on the host, the page and the configuration: it is known once a window's load
     * has run, not from the settings.
     */
    static String warmUpShort(String configuration, int heavy, Duration warmUp, long firstHeavyEndMillis) {
        if (firstHeavyEndMillis < warmUp.toMillis()) {
            return null;
        }
        return String.format(Locale.ROOT, "%s H=%d: the load's first heavy requests ran until %.1f s into it, past "
                        + "the %s warm-up, so its window holds the load's start; set warmUp above that (%ds or more)",
                configuration, heavy, firstHeavyEndMillis / 1000.0, StudyConfig.format(warmUp),
                firstHeavyEndMillis / 1000 + 1);
    }

    /**
     * Runs the point's load in steps until the JIT has settled, for at most {@code jitSettle} ({@link #SETTLE_STEP});
     * says how that went, for a window's note.
     */
    private String settle(LoadGenerator load, CpuSampler cpu, StudyServerProcess server, Configuration configuration,
                          int heavy, int rep) throws IOException, InterruptedException {
        String id = configuration.id();
        String safe = id.replace('@', '-');
        Duration spent = Duration.ZERO;
        double jit = Double.NaN;
        if (config.jitSettle().isZero()) {
            return "no settling (jitSettle 0s)";
        }
        for (Duration length : settleSteps(config.jitSettle())) {
            progress.step(id, String.format(Locale.ROOT, "H=%d rep %d/%d: JIT settling%s", heavy, rep,
                    config.repetitions(), Double.isNaN(jit) ? "" : String.format(Locale.ROOT,
                            " (compiler %.1f %% of the server)", jit * 100)));
            String step = String.format(Locale.ROOT, "%s-h%02d-r%d-settle-%ds", safe, heavy, rep,
                    spent.toSeconds());
            Path log = load.run(parameters(server, heavy, Duration.ZERO, length), length,
                    out.resolve("gatling").resolve(step), out.resolve("logs").resolve(step + "-gatling.log"),
                    id + " H=" + heavy + " JIT settling");
            spent = spent.plus(length);
            if (!server.alive()) {
                throw new IOException("the study server died during " + step + "; see " + server.log);
            }
            WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, 0, length.toMillis());
            jit = cpu.share(window.fromEpochMillis(), window.toEpochMillis()).jit();
            if (Double.isNaN(jit) || jit < ProcCpu.JIT_SETTLED) {
                break; // settled, or no way to tell (no /proc): measure
            }
        }
        drain(cpu, server);
        return String.format(Locale.ROOT, "after %s of settling, the compiler at %.1f %% in its last step",
                StudyConfig.format(spent), jit * 100);
    }

    private Map<String, String> parameters(StudyServerProcess server, int heavy, Duration warmUp, Duration duration) {
        return config.loadParameters(server.baseUrl, heavy, warmUp, duration);
    }

    /**
     * Waits until the server is idle (below 5 % of its core over the last second), then a short quiet period: Gatling
     * has ended, so nothing new arrives, but requests it gave up on may still be running, and the next window must not
     * pay for them.
     */
    private void drain(CpuSampler cpu, StudyServerProcess server) throws InterruptedException {
        long deadline = System.currentTimeMillis() + config.drainTimeout().toMillis();
        Thread.sleep(500);
        while (System.currentTimeMillis() < deadline && server.alive()) {
            CpuSampler.Share recent = cpu.recent(1000);
            if (recent.known() && recent.server() < 0.05) {
                break;
            }
            Thread.sleep(200);
        }
        Thread.sleep(500);
    }
}
