package io.fairslice.middleware;

import io.fairslice.middleware.classify.RoutePattern;
import io.fairslice.middleware.classify.Rule;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigParser;
import io.fairslice.middleware.config.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The middleware's whole configuration: immutable and validated when built. Build one with {@link #parse(Map)}
 * from keys without the {@code fairslice.} prefix (docs/configuration.md lists them); the filter merges init
 * parameters, context parameters, system properties and an optional properties file into that map. A runtime
 * change (JMX) parses the changed map again and swaps the whole object, so every reader sees one consistent
 * version.
 */
public final class FairsliceConfig {

    final boolean enabled;
    final Policy policy;
    final List<RequestClassConfig> classes;
    final int defaultClass;
    final List<Rule> rules;
    final boolean adaptive;
    final int adaptiveClass;
    final Duration adaptiveHeavyAbove;
    final Duration adaptiveLightBelow;
    final double adaptiveAlpha;
    final int adaptiveMinSamples;
    final Duration cpuSampleInterval;
    final List<RoutePattern> routePatterns;
    final int routesMax;
    final int routesMaxPages;
    final Duration routesEvictAfter;
    final Duration shareQuantum;
    final Duration shareMaxPark;
    final Duration shareLinger;
    final Duration shareTurnBelow;
    final boolean shareChargeGc;
    final int cpus;
    final Duration sleepQuantum;
    final Duration sleepDuration;
    final Set<String> sleepClasses;
    final Duration retryAfterMax;
    final boolean jmx;
    final Map<String, Map<String, String>> listenerSettings;
    final Map<String, String> source;
    final Map<String, Set<String>> declaredListeners;

    /** Used by {@link ConfigParser} only; every argument is already validated. */
    public FairsliceConfig(boolean enabled, Policy policy, List<RequestClassConfig> classes, int defaultClass,
                           List<Rule> rules, boolean adaptive, int adaptiveClass, Duration adaptiveHeavyAbove,
                           Duration adaptiveLightBelow, double adaptiveAlpha, int adaptiveMinSamples,
                           Duration cpuSampleInterval, List<RoutePattern> routePatterns, int routesMax,
                           int routesMaxPages, Duration routesEvictAfter, Duration shareQuantum, Duration shareMaxPark,
                           Duration shareLinger, int cpus, Duration shareTurnBelow, boolean shareChargeGc,
                           Duration sleepQuantum, Duration sleepDuration, Set<String> sleepClasses,
                           Duration retryAfterMax, boolean jmx, Map<String, Map<String, String>> listenerSettings,
                           Map<String, String> source, Map<String, Set<String>> declaredListeners) {
        this.enabled = enabled;
        this.policy = policy;
        this.classes = List.copyOf(classes);
        this.defaultClass = defaultClass;
        this.rules = List.copyOf(rules);
        this.adaptive = adaptive;
        this.adaptiveClass = adaptiveClass;
        this.adaptiveHeavyAbove = adaptiveHeavyAbove;
        this.adaptiveLightBelow = adaptiveLightBelow;
        this.adaptiveAlpha = adaptiveAlpha;
        this.adaptiveMinSamples = adaptiveMinSamples;
        this.cpuSampleInterval = cpuSampleInterval;
        this.routePatterns = List.copyOf(routePatterns);
        this.routesMax = routesMax;
        this.routesMaxPages = routesMaxPages;
        this.routesEvictAfter = routesEvictAfter;
        this.shareQuantum = shareQuantum;
        this.shareMaxPark = shareMaxPark;
        this.shareLinger = shareLinger;
        this.shareTurnBelow = shareTurnBelow;
        this.shareChargeGc = shareChargeGc;
        this.cpus = cpus;
        this.sleepQuantum = sleepQuantum;
        this.sleepDuration = sleepDuration;
        this.sleepClasses = Set.copyOf(sleepClasses);
        this.retryAfterMax = retryAfterMax;
        this.jmx = jmx;
        this.listenerSettings = Map.copyOf(listenerSettings);
        this.source = Map.copyOf(source);
        this.declaredListeners = Map.copyOf(declaredListeners);
    }

    /** The defaults (no keys given). */
    public static FairsliceConfig ofDefaults() {
        return parse(Map.of());
    }

    /** Parses and validates {@code keys} (no {@code fairslice.} prefix); no request listeners are installed. */
    public static FairsliceConfig parse(Map<String, String> keys) {
        return ConfigParser.parse(keys, Map.of());
    }

    /**
     * Parses and validates {@code keys}; {@code listenerSettings} maps each installed listener's name to the
     * settings it declares, so that its {@code <name>.<setting>} keys are accepted.
     */
    public static FairsliceConfig parse(Map<String, String> keys, Map<String, Set<String>> listenerSettings) {
        return ConfigParser.parse(keys, listenerSettings);
    }

    /**
     * This configuration with {@code changes} applied, validated the same way (listener keys still accepted). With
     * {@code share.cpus} 0, the processors stay those read at startup unless {@code changes} sets {@code share.cpus}:
     * switching the policy must not change the run slots of a server moved to other CPUs since.
     */
    public FairsliceConfig with(Map<String, String> changes) {
        Map<String, String> merged = new LinkedHashMap<>(source);
        merged.putAll(changes);
        boolean cpusChanged = changes.keySet().stream()
                .anyMatch(k -> k != null && k.trim().equals(ConfigKeys.SHARE_CPUS));
        return ConfigParser.parse(merged, declaredListeners,
                cpusChanged ? Runtime.getRuntime().availableProcessors() : cpus, changes.keySet());
    }

    public boolean enabled() {
        return enabled;
    }

    public Policy policy() {
        return policy;
    }

    public List<RequestClassConfig> classes() {
        return classes;
    }

    public List<String> classNames() {
        return classes.stream().map(RequestClassConfig::name).toList();
    }

    /** The class of requests no rule (and no adaptive decision) claims. */
    public int defaultClass() {
        return defaultClass;
    }

    public List<Rule> rules() {
        return rules;
    }

    public boolean adaptive() {
        return adaptive;
    }

    /** The class that the adaptive classifier moves CPU-heavy routes into. */
    public int adaptiveClass() {
        return adaptiveClass;
    }

    public Duration adaptiveHeavyAbove() {
        return adaptiveHeavyAbove;
    }

    public Duration adaptiveLightBelow() {
        return adaptiveLightBelow;
    }

    public double adaptiveAlpha() {
        return adaptiveAlpha;
    }

    public int adaptiveMinSamples() {
        return adaptiveMinSamples;
    }

    /**
     * At most one request per route and interval has its CPU time measured (every request of a route until the
     * adaptive classifier's first decision on it; zero: every request); a measurement counts for the route's requests
     * since the one before. Reading the thread's CPU clock is a system call that lets Linux preempt the thread at its
     * slice's end instead of at the next tick, so reading it twice per request made the server's threads switch three
     * to four times as often.
     */
    public Duration cpuSampleInterval() {
        return cpuSampleInterval;
    }

    /** The configured routes ({@code route.<n>}), in the order they are tried. */
    public List<RoutePattern> routePatterns() {
        return routePatterns;
    }

    public int routesMax() {
        return routesMax;
    }

    public int routesMaxPages() {
        return routesMaxPages;
    }

    /** How long a route must be unused before a full route table may give its place to a new page; 0: never. */
    public Duration routesEvictAfter() {
        return routesEvictAfter;
    }

    public Duration shareQuantum() {
        return shareQuantum;
    }

    public Duration shareMaxPark() {
        return shareMaxPark;
    }

    public Duration shareLinger() {
        return shareLinger;
    }

    /**
     * A class whose requests use less CPU than this on average (measured) runs in turns while it holds every run
     * slot: its requests start as they come, without a slot each, each charged the class's mean CPU per request as it
     * starts (0: never).
     */
    public Duration shareTurnBelow() {
        return shareTurnBelow;
    }

    /**
     * Whether the share scheduler charges the collector's pauses to the classes whose requests allocated the garbage
     * (each pause split by the bytes they allocated since the one before), beside their requests' own CPU.
     */
    public boolean shareChargeGc() {
        return shareChargeGc;
    }

    /** Processors the share scheduler keeps busy before it holds anything back (resolved, never 0). */
    public int cpus() {
        return cpus;
    }

    public Duration sleepQuantum() {
        return sleepQuantum;
    }

    public Duration sleepDuration() {
        return sleepDuration;
    }

    public Set<String> sleepClasses() {
        return sleepClasses;
    }

    public Duration retryAfterMax() {
        return retryAfterMax;
    }

    public boolean jmx() {
        return jmx;
    }

    /** Each installed listener's settings (keys without the {@code <name>.} prefix). */
    public Map<String, Map<String, String>> listenerSettings() {
        return listenerSettings;
    }

    /** The keys this configuration was parsed from. */
    public Map<String, String> source() {
        return source;
    }

    @Override
    public String toString() {
        return "FairsliceConfig{enabled=" + enabled + ", policy=" + policy.value() + ", classes=" + classes
                + ", default-class=" + classes.get(defaultClass).name() + ", rules=" + rules
                + ", adaptive=" + adaptive + (adaptive ? "(class=" + classes.get(adaptiveClass).name()
                + ", heavy-above=" + Durations.format(adaptiveHeavyAbove) + ", light-below="
                + Durations.format(adaptiveLightBelow) + ", alpha=" + adaptiveAlpha + ", min-samples="
                + adaptiveMinSamples + ")" : "")
                + ", cpu.sample-interval=" + Durations.format(cpuSampleInterval)
                + ", routes=" + routePatterns + ", routes.max=" + routesMax + ", routes.max-pages=" + routesMaxPages
                + ", routes.evict-after=" + Durations.format(routesEvictAfter)
                + ", share.quantum=" + Durations.format(shareQuantum) + ", share.max-park="
                + Durations.format(shareMaxPark) + ", share.linger=" + Durations.format(shareLinger)
                + ", share.turn-below=" + Durations.format(shareTurnBelow) + ", share.charge-gc=" + shareChargeGc
                + ", cpus=" + cpus + ", sleep.quantum=" + Durations.format(sleepQuantum) + ", sleep.duration="
                + Durations.format(sleepDuration) + ", sleep.classes=" + sleepClasses
                + ", retry-after.max=" + Durations.format(retryAfterMax) + ", jmx=" + jmx
                + ", listeners=" + listeners() + "}";
    }

    /**
     * Each installed listener with the settings given to it, in order of name ({@code kernel-probe{enabled=false}}):
     * the log's started line and the JMX attribute print the whole configuration, and a listener's names alone hid
     * the values in force (a probe switched off read as one running). The listener's own defaults are its own.
     */
    private String listeners() {
        StringJoiner all = new StringJoiner(", ", "[", "]");
        new TreeMap<>(listenerSettings).forEach((name, settings) -> all.add(name
                + (settings.isEmpty() ? "" : new TreeMap<>(settings).toString())));
        return all.toString();
    }
}
