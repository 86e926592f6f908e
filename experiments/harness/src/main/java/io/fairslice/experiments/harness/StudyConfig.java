package io.fairslice.experiments.harness;

import io.fairslice.experiments.app.StudySettings;
import io.fairslice.experiments.server.Numbers;
import io.fairslice.experiments.server.ServerOptions;
import io.fairslice.loadgen.ParameterException;
import io.fairslice.loadgen.StudyParameters;
import io.fairslice.middleware.config.Durations;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a study run measures: configurations, heavy-client points, windows, repetitions and the server's JVM. Built
 * from a preset ({@link #quick()}, {@link #full()}) and optionally a properties file ({@code --config FILE}) whose
 * keys override the preset's; unknown keys and bad values stop the run before anything starts, including values the
 * load generator would refuse in any load the run makes of them.
 *
 * @param preset             the preset this started from (quick, full)
 * @param configurations     what to compare, each {@code middleware@scheduler}
 * @param heavyUsers         the points: heavy clients per point (the study: 0, 10, 20, 30, 40), measured heaviest
 *                           first ({@link #measurementOrder})
 * @param lightUsers         light clients at every point (the study: 30)
 * @param lightPaths         light page(s), comma-separated; two pages is the study's second experiment
 * @param repetitions        how often every point is measured; repetitions are interleaved (point order repeats)
 * @param warmUp             per point: load before the measured window, not counted
 * @param measure            per point: the measured window
 * @param jitWarmUp          per configuration: load after the server starts, before the first point
 * @param jitSettle          per point: at most this much of the point's load before its windows, in steps of 10 s
 *                           (a remainder under 1 s joins the last; {@link StudyRunner#settleSteps}) until the
 *                           server's JIT compiler threads use less than 1 % of its CPU in a step (0s: none);
 *                           windows then measure compiled code, not the compiler at work
 * @param drainTimeout       between points: longest wait for the server to go idle
 * @param retries            re-runs of a point whose window another process disturbed
 * @param documentSize       the heavy page's XML document (2MB: ~25 ms of CPU; 10MB: ~120 ms)
 * @param maxThreads         Tomcat worker threads (above the client population)
 * @param virtualThreads     every request on a virtual thread of its own (the connector's useVirtualThreads, Java 21+:
 *                           run the study with such a JDK) instead of the {@code maxThreads} pool
 * @param serverJvmOptions   the server JVM's options (heap and GC per GUIDE section 2)
 * @param gatlingJvmOptions  the load generator JVM's options
 * @param realtimeThrottle   under SCHED_RR: {@code off} lifts Linux's realtime throttling while a realtime
 *                           configuration runs (it stops every realtime thread for ~50 ms once a second, which no
 *                           emulated OS does; docs/study.md); {@code kernel} leaves the machine's setting alone
 * @param freshServer        {@code configuration}: one server JVM measures every repetition of a configuration;
 *                           {@code repetition}: every repetition starts its own server (and JIT warm-up), so that the
 *                           spread over repetitions includes how differently fresh JVMs compile the pages
 * @param retryAfterDefault  the load generator's pause after a shed request (503, 429) whose answer has no valid
 *                           Retry-After (the loadgen's {@code retryAfterDefault})
 * @param retryAfterMax      the load generator's longest pause after a shed request, whatever its Retry-After asks;
 *                           0s retries at once, as the study's clients did before 2026-11-27 (the loadgen's
 *                           {@code retryAfterMax})
 */
public record StudyConfig(String preset, List<Configuration> configurations, List<Integer> heavyUsers, int lightUsers,
                          String lightPaths, int repetitions, Duration warmUp, Duration measure, Duration jitWarmUp,
                          Duration jitSettle, Duration drainTimeout, int retries, String documentSize, int maxThreads,
                          boolean virtualThreads, List<String> serverJvmOptions, List<String> gatlingJvmOptions,
                          String realtimeThrottle,
                          String freshServer, Duration retryAfterDefault, Duration retryAfterMax) {

    /** The keys a --config file may set. */
    public static final Set<String> KEYS = Set.of("configurations", "heavyUsers", "lightUsers", "lightPaths",
            "repetitions", "warmUp", "measure", "jitWarmUp", "jitSettle", "drainTimeout", "retries", "documentSize",
            "maxThreads", "virtualThreads",
            "serverJvmOptions", "gatlingJvmOptions", "realtimeThrottle", "freshServer", "retryAfterDefault",
            "retryAfterMax");

    /** The values of {@code realtimeThrottle}. */
    public static final List<String> REALTIME_THROTTLE = List.of("off", "kernel");
    /** The values of {@code freshServer}. */
    public static final List<String> FRESH_SERVER = List.of("configuration", "repetition");

    /**
     * The longest drainTimeout: the presets wait 15 s at most, and a server still busy after minutes is stuck, not
     * draining; a typo such as 99999h would have a stuck server hold the run for years.
     */
    static final Duration MAX_DRAIN_TIMEOUT = Duration.ofMinutes(10);
    /**
     * The longest jitSettle: the presets settle 20-60 s; the harness checks each 10 s step's load before the run, so
     * a typo such as 1000000h built hundreds of millions of steps and ran out of memory before anything started.
     */
    static final Duration MAX_JIT_SETTLE = Duration.ofHours(1);

    public static final List<String> DEFAULT_SERVER_JVM_OPTIONS = ServerOptions.JVM_OPTIONS;
    public static final List<String> DEFAULT_GATLING_JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g");

    public StudyConfig {
        configurations = List.copyOf(configurations);
        heavyUsers = List.copyOf(heavyUsers);
        serverJvmOptions = List.copyOf(serverJvmOptions);
        gatlingJvmOptions = List.copyOf(gatlingJvmOptions);
        require(!configurations.isEmpty(), "configurations", "must name at least one configuration", "nothing");
        require(configurations.stream().distinct().count() == configurations.size(), "configurations",
                "must not repeat a configuration", configurations);
        require(!heavyUsers.isEmpty(), "heavyUsers", "must list at least one point", "nothing");
        for (int h : heavyUsers) {
            require(h >= 0 && h <= 1000, "heavyUsers", "must be 0..1000 each", heavyUsers);
        }
        require(heavyUsers.stream().distinct().count() == heavyUsers.size(), "heavyUsers",
                "must not repeat a point", heavyUsers);
        require(lightUsers >= 1 && lightUsers <= 1000, "lightUsers", "must be 1..1000", lightUsers);
        require(lightPaths.startsWith("/"), "lightPaths", "must be paths starting with '/'", lightPaths);
        require(repetitions >= 1 && repetitions <= 100, "repetitions", "must be 1..100", repetitions);
        require(!measure.isNegative() && measure.toMillis() >= 1000, "measure", "must be at least 1s",
                format(measure));
        require(!warmUp.isNegative(), "warmUp", "must not be negative", format(warmUp));
        require(!jitWarmUp.isNegative(), "jitWarmUp", "must not be negative", format(jitWarmUp));
        require(!jitSettle.isNegative() && jitSettle.compareTo(MAX_JIT_SETTLE) <= 0, "jitSettle",
                "must be 0s.." + format(MAX_JIT_SETTLE), format(jitSettle));
        require(!serverJvmOptions.isEmpty(), "serverJvmOptions", "must name at least one option (the study's are "
                + String.join(" ", DEFAULT_SERVER_JVM_OPTIONS) + ")", "nothing");
        require(!gatlingJvmOptions.isEmpty(), "gatlingJvmOptions", "must name at least one option (the study's are "
                + String.join(" ", DEFAULT_GATLING_JVM_OPTIONS) + ")", "nothing");
        require(!drainTimeout.isNegative() && drainTimeout.compareTo(MAX_DRAIN_TIMEOUT) <= 0, "drainTimeout",
                "must be 0s.." + format(MAX_DRAIN_TIMEOUT), format(drainTimeout));
        require(retries >= 0 && retries <= 5, "retries", "must be 0..5", retries);
        require(maxThreads >= 1 && maxThreads <= 10_000, "maxThreads", "must be 1..10000", maxThreads);
        require(maxThreads > lightUsers + heavyUsers.stream().mapToInt(Integer::intValue).max().orElse(0),
                "maxThreads", "must be above the largest client population (light + heavy users)", maxThreads);
        require(!virtualThreads || Runtime.version().feature() >= 21, "virtualThreads",
                "needs Java 21 or later (this is Java " + Runtime.version().feature() + ": set JAVA_HOME)", true);
        StudySettings.checkDocumentSize("documentSize", documentSize); // the server's own rule, before any server
        require(REALTIME_THROTTLE.contains(realtimeThrottle), "realtimeThrottle", "must be one of "
                + REALTIME_THROTTLE, "'" + realtimeThrottle + "'");
        require(FRESH_SERVER.contains(freshServer), "freshServer", "must be one of " + FRESH_SERVER,
                "'" + freshServer + "'");
        checkLoads(heavyUsers, lightUsers, lightPaths, warmUp, measure, jitWarmUp, jitSettle, retryAfterDefault,
                retryAfterMax);
    }

    /**
     * Builds the load generator's parameters for every load the study will run and has the load generator's own
     * validation ({@link StudyParameters#from}) check them, so that a value it would refuse stops the run here, naming
     * this config's key, instead of failing every configuration after its server started.
     */
    private static void checkLoads(List<Integer> heavyUsers, int lightUsers, String lightPaths, Duration warmUp,
                                   Duration measure, Duration jitWarmUp, Duration jitSettle, Duration retryAfterDefault,
                                   Duration retryAfterMax) {
        int heaviest = heavyUsers.stream().mapToInt(Integer::intValue).max().orElseThrow();
        if (!jitWarmUp.isZero()) {
            checkLoad("the JIT warm-up", "jitWarmUp",
                    loadParameters(StudyParameters.DEFAULT_BASE_URL, lightUsers, lightPaths, heaviest, Duration.ZERO,
                            jitWarmUp, retryAfterDefault, retryAfterMax));
        }
        for (int heavy : heavyUsers) {
            for (Duration step : StudyRunner.settleSteps(jitSettle)) {
                checkLoad("a JIT settling step at H=" + heavy, "jitSettle",
                        loadParameters(StudyParameters.DEFAULT_BASE_URL, lightUsers, lightPaths, heavy, Duration.ZERO,
                                step, retryAfterDefault, retryAfterMax));
            }
            checkLoad("the point H=" + heavy, "measure",
                    loadParameters(StudyParameters.DEFAULT_BASE_URL, lightUsers, lightPaths, heavy, warmUp, measure,
                            retryAfterDefault, retryAfterMax));
        }
    }

    /**
     * Has the load generator check one load's parameters; its {@code duration} comes from {@code durationKey}, the
     * rest from the keys of the same name.
     */
    private static void checkLoad(String load, String durationKey, Map<String, String> parameters) {
        try {
            StudyParameters.from(parameters::get);
        } catch (ParameterException e) {
            String key = e.parameter().equals("duration") ? durationKey : e.parameter();
            throw new IllegalArgumentException(key + ": the load generator refuses " + load + " with it ("
                    + e.getMessage() + ")", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the load generator refuses " + load + ": " + e.getMessage(), e);
        }
    }

    /**
     * The load generator's parameters (OverloadStudy's system properties) for this config's light clients and
     * {@code heavy} heavy clients against {@code baseUrl}.
     */
    public Map<String, String> loadParameters(String baseUrl, int heavy, Duration warmUp, Duration duration) {
        return loadParameters(baseUrl, lightUsers, lightPaths, heavy, warmUp, duration, retryAfterDefault,
                retryAfterMax);
    }

    private static Map<String, String> loadParameters(String baseUrl, int lightUsers, String lightPaths, int heavy,
                                                      Duration warmUp, Duration duration, Duration retryAfterDefault,
                                                      Duration retryAfterMax) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("baseUrl", baseUrl);
        p.put("lightUsers", Integer.toString(lightUsers));
        p.put("heavyUsers", Integer.toString(heavy));
        p.put("lightPaths", lightPaths);
        p.put("warmUp", warmUp.toMillis() + "ms");
        p.put("duration", duration.toMillis() + "ms");
        p.put("retryAfterDefault", retryAfterDefault.toMillis() + "ms");
        p.put("retryAfterMax", retryAfterMax.toMillis() + "ms");
        return p;
    }

    /** Server JVMs started per configuration: one, or one per repetition. */
    public int serversPerConfiguration() {
        return freshServer.equals("repetition") ? repetitions : 1;
    }

    /** Whether realtime configurations run with Linux's realtime throttling lifted. */
    public boolean liftRealtimeThrottle() {
        return realtimeThrottle.equals("off");
    }

    /**
     * The default run (planned 6m42s; 8-13 minutes, as the JIT compiler settles): the baseline and fairslice's share
     * policy, with no heavy clients and with 40, under the default scheduler and the long-slice SCHED_RR emulation.
     */
    public static StudyConfig quick() {
        return new StudyConfig("quick",
                List.of(Configuration.parse("none@default"), Configuration.parse("share@default"),
                        Configuration.parse("none@rr-100ms"), Configuration.parse("share@rr-100ms")),
                List.of(0, 40), 30, "/light", 1, Duration.ofSeconds(5), Duration.ofSeconds(12),
                Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofSeconds(15), 1, "2MB", 200, false,
                DEFAULT_SERVER_JVM_OPTIONS,
                DEFAULT_GATLING_JVM_OPTIONS, "off", "configuration", StudyParameters.DEFAULT_RETRY_AFTER,
                StudyParameters.DEFAULT_RETRY_AFTER_MAX);
    }

    /**
     * The whole matrix: every middleware under each of the study's schedulers ({@link Scheduler#inFullPreset}) where
     * it applies ({@link Configuration#applies}), heavy clients 0..40, three repetitions.
     */
    public static StudyConfig full() {
        List<Configuration> all = new ArrayList<>();
        for (Scheduler s : Scheduler.fullPreset()) {
            for (Middleware m : Middleware.values()) {
                if (Configuration.applies(m, s)) {
                    all.add(new Configuration(m, s));
                }
            }
        }
        return new StudyConfig("full", all, List.of(0, 10, 20, 30, 40), 30, "/light", 3, Duration.ofSeconds(5),
                Duration.ofSeconds(20), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(15),
                1, "2MB", 200, false,
                DEFAULT_SERVER_JVM_OPTIONS, DEFAULT_GATLING_JVM_OPTIONS, "off", "configuration",
                StudyParameters.DEFAULT_RETRY_AFTER, StudyParameters.DEFAULT_RETRY_AFTER_MAX);
    }

    /** Reads a properties file over this config. */
    public StudyConfig withFile(Path file) throws IOException {
        Map<String, String> read = new LinkedHashMap<>();
        Properties properties = new Properties() {
            @Override
            public synchronized Object put(Object key, Object value) {
                // the format keeps a repeated key's last value without a word: a second measure pasted below the
                // first replaced it; the middleware refuses a repeated key in fairslice.properties too (ConfigSources)
                String before = read.putIfAbsent((String) key, (String) value);
                if (before != null) {
                    throw new RepeatedKeyException(file + ": " + key + " is given twice ('" + before + "', then '"
                            + value + "'): give each key once");
                }
                return super.put(key, value);
            }
        };
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(file + ": not UTF-8 text (" + e + "); save it as UTF-8", e);
        } catch (RepeatedKeyException e) {
            throw e;
        } catch (IllegalArgumentException e) { // a malformed unicode escape
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String key : properties.stringPropertyNames()) {
            values.put(key, properties.getProperty(key));
        }
        try {
            return with(values);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** A --config file that sets a key twice: said as it is, not as a malformed file. */
    private static final class RepeatedKeyException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        RepeatedKeyException(String message) {
            super(message);
        }
    }

    /** This config with some keys replaced; an unknown key is an error naming the known ones. */
    public StudyConfig with(Map<String, String> values) {
        Set<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown key(s) " + unknown + "; known keys: " + new TreeSet<>(KEYS));
        }
        return new StudyConfig(
                preset,
                values.containsKey("configurations") ? parseConfigurations(values.get("configurations"))
                        : configurations,
                values.containsKey("heavyUsers") ? parseInts("heavyUsers", values.get("heavyUsers")) : heavyUsers,
                values.containsKey("lightUsers") ? parseInt("lightUsers", values.get("lightUsers")) : lightUsers,
                values.getOrDefault("lightPaths", lightPaths).trim(),
                values.containsKey("repetitions") ? parseInt("repetitions", values.get("repetitions")) : repetitions,
                duration(values, "warmUp", warmUp),
                duration(values, "measure", measure),
                duration(values, "jitWarmUp", jitWarmUp),
                duration(values, "jitSettle", jitSettle),
                duration(values, "drainTimeout", drainTimeout),
                values.containsKey("retries") ? parseInt("retries", values.get("retries")) : retries,
                values.getOrDefault("documentSize", documentSize).trim(),
                values.containsKey("maxThreads") ? parseInt("maxThreads", values.get("maxThreads")) : maxThreads,
                values.containsKey("virtualThreads") ? parseBoolean("virtualThreads", values.get("virtualThreads"))
                        : virtualThreads,
                values.containsKey("serverJvmOptions") ? words(values.get("serverJvmOptions")) : serverJvmOptions,
                values.containsKey("gatlingJvmOptions") ? words(values.get("gatlingJvmOptions")) : gatlingJvmOptions,
                values.getOrDefault("realtimeThrottle", realtimeThrottle).trim(),
                values.getOrDefault("freshServer", freshServer).trim(),
                duration(values, "retryAfterDefault", retryAfterDefault),
                duration(values, "retryAfterMax", retryAfterMax));
    }

    /** The number of measured points, repetitions included (without re-runs). */
    public int pointCount() {
        return configurations.size() * heavyUsers.size() * repetitions;
    }

    /**
     * The points in the order a server measures them: heaviest first (where the JIT warm-up left off), the light-only
     * reference (H=0) last, on a JVM that has compiled everything the loaded windows ran. Measured first, it read a
     * JVM still compiling: the compiler took 0.2-2.8 % of the server in the light-only windows of a share run so
     * measured, 0.05-0.6 % in two measured last (2026-11-26, docs/study.md).
     */
    public List<Integer> measurementOrder() {
        return heavyUsers.stream().sorted(Comparator.reverseOrder()).toList();
    }

    /** The heaviest point: where the headline retention is read. */
    public int heaviest() {
        return heavyUsers.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /**
     * A duration as the settings, the report and the console give it: the middleware's form ({@link Durations#format}),
     * but zero as {@code 0s}, where that form says {@code 0ns} (a jitWarmUp of 0s read "0ns" in the report's settings).
     */
    static String format(Duration d) {
        return d.isZero() ? "0s" : Durations.format(d);
    }

    /** Settings as key/value pairs, for the run's JSON and the report. */
    public Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("preset", preset);
        m.put("configurations", String.join(", ", configurations.stream().map(Configuration::id).toList()));
        m.put("heavyUsers", heavyUsers.toString().replaceAll("[\\[\\] ]", ""));
        m.put("lightUsers", Integer.toString(lightUsers));
        m.put("lightPaths", lightPaths);
        m.put("repetitions", Integer.toString(repetitions));
        m.put("warmUp", format(warmUp));
        m.put("measure", format(measure));
        m.put("jitWarmUp", format(jitWarmUp));
        m.put("jitSettle", format(jitSettle));
        m.put("drainTimeout", format(drainTimeout));
        m.put("retries", Integer.toString(retries));
        m.put("documentSize", documentSize);
        m.put("maxThreads", Integer.toString(maxThreads));
        m.put("virtualThreads", Boolean.toString(virtualThreads));
        m.put("serverJvmOptions", String.join(" ", serverJvmOptions));
        m.put("gatlingJvmOptions", String.join(" ", gatlingJvmOptions));
        m.put("realtimeThrottle", realtimeThrottle);
        m.put("freshServer", freshServer);
        m.put("retryAfterDefault", format(retryAfterDefault));
        m.put("retryAfterMax", format(retryAfterMax));
        return m;
    }

    private static List<Configuration> parseConfigurations(String text) {
        List<Configuration> list = new ArrayList<>();
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                try {
                    list.add(Configuration.parse(part));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("configurations: " + e.getMessage(), e);
                }
            }
        }
        return list;
    }

    private static List<Integer> parseInts(String key, String text) {
        List<Integer> list = new ArrayList<>();
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                list.add(parseInt(key, part));
            }
        }
        return list;
    }

    private static boolean parseBoolean(String key, String value) {
        String v = value.trim();
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException(key + " must be true or false, got '" + value + "'");
        }
        return Boolean.parseBoolean(v);
    }

    private static int parseInt(String key, String text) {
        return Numbers.wholeInt(key, text.trim());
    }

    private static Duration duration(Map<String, String> values, String key, Duration fallback) {
        String text = values.get(key);
        if (text == null) {
            return fallback;
        }
        Duration parsed = Durations.parseOrNull(text);
        if (parsed == null) {
            // a number and a unit too large to read (over about 146 years) was said to be no duration at all
            String why = text.trim().matches("(?i)[0-9]+(\\.[0-9]*)?\\s*(ns|us|µs|ms|s|m|min|h)")
                    ? " (too long to be read)" : "";
            throw new IllegalArgumentException(key + " must be a duration such as 500ms, 20s or 2m, got '"
                    + text.trim() + "'" + why);
        }
        if (parsed.getNano() % 1_000_000 != 0) { // the load generator's resolution: 500us was sent as 0ms
            throw new IllegalArgumentException(key + " must be whole milliseconds, got '" + text.trim() + "'");
        }
        return parsed;
    }

    private static List<String> words(String text) {
        return Arrays.stream(text.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    private static void require(boolean ok, String key, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(key + " " + rule + ", got " + value);
        }
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
