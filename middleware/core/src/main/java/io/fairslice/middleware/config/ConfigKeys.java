package io.fairslice.middleware.config;

import java.util.List;

/**
 * Every configuration key, its default and its range: the single list that the parser validates against and that
 * docs/configuration.md is checked against by a test, so the documentation cannot drift. Keys are written without
 * the {@code fairslice.} prefix that system properties and context parameters carry; {@code <class>} stands for a
 * configured class name, {@code <n>} for a rule's or a route's number.
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    /** One key: its name (a pattern for per-class keys), the default as text, and the allowed values. */
    public record Spec(String name, String defaultValue, String range) {
    }

    public static final String ENABLED = "enabled";
    public static final String POLICY = "policy";
    public static final String CLASSES = "classes";
    public static final String DEFAULT_CLASS = "default-class";
    public static final String CLASS_PREFIX = "class.";
    public static final String SHARE = "share";
    public static final String MAX_CONCURRENCY = "max-concurrency";
    public static final String QUEUE_SIZE = "queue-size";
    public static final String QUEUE_TIMEOUT = "queue-timeout";
    public static final String RULE_PREFIX = "rule.";
    public static final String ADAPTIVE = "adaptive";
    public static final String ADAPTIVE_CLASS = "adaptive.class";
    public static final String ADAPTIVE_HEAVY_ABOVE = "adaptive.heavy-above";
    public static final String ADAPTIVE_LIGHT_BELOW = "adaptive.light-below";
    public static final String ADAPTIVE_ALPHA = "adaptive.alpha";
    public static final String ADAPTIVE_MIN_SAMPLES = "adaptive.min-samples";
    public static final String CPU_SAMPLE_INTERVAL = "cpu.sample-interval";
    public static final String ROUTE_PREFIX = "route.";
    public static final String ROUTES_MAX = "routes.max";
    public static final String ROUTES_MAX_PAGES = "routes.max-pages";
    public static final String ROUTES_EVICT_AFTER = "routes.evict-after";
    public static final String SHARE_QUANTUM = "share.quantum";
    public static final String SHARE_MAX_PARK = "share.max-park";
    public static final String SHARE_LINGER = "share.linger";
    public static final String SHARE_CPUS = "share.cpus";
    public static final String SHARE_TURN_BELOW = "share.turn-below";
    public static final String SHARE_CHARGE_GC = "share.charge-gc";
    public static final String SLEEP_QUANTUM = "sleep.quantum";
    public static final String SLEEP_DURATION = "sleep.duration";
    public static final String SLEEP_CLASSES = "sleep.classes";
    public static final String RETRY_AFTER_MAX = "retry-after.max";
    public static final String JMX = "jmx";

    /** Where the optional properties file is named (a system property or context parameter, not a key inside it). */
    public static final String CONFIG_FILE_PROPERTY = "fairslice.config";
    /** The prefix of system properties and context parameters. */
    public static final String PREFIX = "fairslice.";

    /** Every key in documentation order. Per-class defaults: see {@code ConfigParser}. */
    public static final List<Spec> ALL = List.of(
            new Spec(ENABLED, "true", "true, false"),
            new Spec(POLICY, "share", "observe, sleep, share"),
            new Spec(CLASSES, "light,heavy", "1..16 names matching [a-z][a-z0-9_-]{0,31}"),
            new Spec(DEFAULT_CLASS, "(first class)", "a configured class"),
            new Spec("class.<class>.share", "light 80, heavy 20, other classes 50", "1..1000"),
            new Spec("class.<class>.max-concurrency", "0", "0 (no cap) or 1..100000"),
            new Spec("class.<class>.queue-size", "1000", "0..100000"),
            new Spec("class.<class>.queue-timeout", "30s", "1ms..10m"),
            new Spec("rule.<n>", "(none)", "<n> 1..9999; value '<class> <condition>...'"),
            new Spec(ADAPTIVE, "true", "true, false"),
            new Spec(ADAPTIVE_CLASS, "(last class)", "a configured class"),
            new Spec(ADAPTIVE_HEAVY_ABOVE, "5ms",
                    "1us..10s, above adaptive.light-below (for 2ms or less, lower that too)"),
            new Spec(ADAPTIVE_LIGHT_BELOW, "2ms", "0ns..10s, below adaptive.heavy-above"),
            new Spec(ADAPTIVE_ALPHA, "0.05", "0.01..1"),
            new Spec(ADAPTIVE_MIN_SAMPLES, "10", "1..10000"),
            new Spec(CPU_SAMPLE_INTERVAL, "100ms", "0ns (every request)..10s"),
            new Spec("route.<n>", "(none)", "<n> 1..9999; value a path glob without a query string"),
            new Spec(ROUTES_MAX, "1000", "1..100000, at least routes.max-pages (for fewer than 50, lower that too)"),
            new Spec(ROUTES_MAX_PAGES, "50", "1..1000, at most routes.max"),
            new Spec(ROUTES_EVICT_AFTER, "60s", "0s (never), or 1s..24h"),
            new Spec(SHARE_QUANTUM, "5ms", "100us..1s"),
            new Spec(SHARE_MAX_PARK, "500ms", "1ms..60s"),
            new Spec(SHARE_LINGER, "200ms", "0ns..1s"),
            new Spec(SHARE_CPUS, "0", "0 (the JVM's available processors) or 1..1024"),
            new Spec(SHARE_TURN_BELOW, "2ms", "0ns (never)..1s"),
            new Spec(SHARE_CHARGE_GC, "true", "true, false"),
            new Spec(SLEEP_QUANTUM, "1ms", "10us..10s"),
            new Spec(SLEEP_DURATION, "1ms", "10us..10s"),
            new Spec(SLEEP_CLASSES, "(every class but the first)", "configured classes, comma-separated, at least one"),
            new Spec(RETRY_AFTER_MAX, "60s", "1s..1h"),
            new Spec(JMX, "true", "true, false"),
            new Spec("<listener>.<setting>", "(the listener's)", "settings a request listener declares"));

    /**
     * Whether a value of {@code enabled} turns fairslice off before any setting is checked: {@code false} in any case,
     * spaces around it allowed; null and anything else leave the decision to the filter, which refuses a value that is
     * not a boolean. One rule for the container initializer and Spring Boot's registration, which read it from
     * different places.
     */
    public static boolean turnsOff(String enabled) {
        return enabled != null && enabled.trim().equalsIgnoreCase("false");
    }
}
