package io.fairslice.middleware.config;

import static io.fairslice.middleware.config.ConfigKeys.*;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.Policy;
import io.fairslice.middleware.RequestClassConfig;
import io.fairslice.middleware.classify.RoutePattern;
import io.fairslice.middleware.classify.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a flat key/value map into a validated {@link FairsliceConfig}. Every key is consumed exactly once; a key
 * that nothing consumed is an error, so a typo never silently becomes a default.
 */
public final class ConfigParser {

    /** Built-in share weights of the default classes. */
    public static final int DEFAULT_SHARE = 50;
    private static final Map<String, Integer> BUILT_IN_SHARES = Map.of("light", 80, "heavy", 20);
    public static final int DEFAULT_QUEUE_SIZE = 1000;
    public static final Duration DEFAULT_QUEUE_TIMEOUT = Duration.ofSeconds(30);
    private static final String CLASS_NAME = "[a-z][a-z0-9_-]{0,31}";
    /** A key that ends in a number, as rule.<n> and route.<n> do: the number, for a misspelt numbered key. */
    private static final Pattern NUMBERED = Pattern.compile("\\.([0-9]{1,4})$");

    private final Map<String, String> keys;
    private final int processors;
    /** The keys a runtime change sets ({@link FairsliceConfig#with}): named first when two keys' values conflict. */
    private final Set<String> changed;
    private final Set<String> used = new HashSet<>();

    private ConfigParser(Map<String, String> keys, int processors, Set<String> changed) {
        this.keys = keys;
        this.processors = processors;
        this.changed = changed;
    }

    /** Parses {@code keys}; {@code listeners} maps each installed listener to its declared setting names. */
    public static FairsliceConfig parse(Map<String, String> keys, Map<String, Set<String>> listeners) {
        return parse(keys, listeners, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Parses {@code keys}, with {@code processors} for {@code share.cpus=0}: the JVM's available processors as read
     * when the filter started, which a runtime change of another key keeps ({@link FairsliceConfig#with}).
     */
    public static FairsliceConfig parse(Map<String, String> keys, Map<String, Set<String>> listeners,
                                        int processors) {
        return parse(keys, listeners, processors, Set.of());
    }

    /**
     * Parses {@code keys} as a runtime change of {@code changed} among them: where the value of a changed key
     * conflicts with another key's, the error names the changed key, whichever was set at startup.
     */
    public static FairsliceConfig parse(Map<String, String> keys, Map<String, Set<String>> listeners,
                                        int processors, Set<String> changed) {
        Map<String, String> trimmed = new LinkedHashMap<>();
        keys.forEach((k, v) -> {
            if (k == null) {
                throw FairsliceConfigException.unknownKey("(a key that is null)",
                        "is not a fairslice configuration key", v);
            }
            // an absent value (a parameter declared without one) is unset, like an empty one
            trimmed.put(k.trim(), v == null ? "" : v.trim());
        });
        Set<String> changedKeys = new HashSet<>();
        changed.forEach(k -> changedKeys.add(k == null ? null : k.trim()));
        return new ConfigParser(trimmed, processors, changedKeys).build(listeners);
    }

    private FairsliceConfig build(Map<String, Set<String>> listeners) {
        boolean enabled = bool(ENABLED, true);
        Policy policy = policy();
        List<String> names = classNames();
        List<RequestClassConfig> classes = new ArrayList<>();
        for (String name : names) {
            String p = CLASS_PREFIX + name + ".";
            classes.add(new RequestClassConfig(name,
                    integer(p + SHARE, BUILT_IN_SHARES.getOrDefault(name, DEFAULT_SHARE), 1, 1000),
                    integer(p + MAX_CONCURRENCY, 0, 0, 100_000),
                    integer(p + QUEUE_SIZE, DEFAULT_QUEUE_SIZE, 0, 100_000),
                    duration(p + QUEUE_TIMEOUT, DEFAULT_QUEUE_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(10))));
        }
        int defaultClass = classRef(DEFAULT_CLASS, names, 0);
        List<Rule> rules = rules(names);
        boolean adaptive = bool(ADAPTIVE, true);
        int adaptiveClass = classRef(ADAPTIVE_CLASS, names, names.size() - 1);
        Duration heavyAbove = duration(ADAPTIVE_HEAVY_ABOVE, Duration.ofMillis(5), Duration.ofNanos(1000),
                Duration.ofSeconds(10));
        Duration lightBelow = duration(ADAPTIVE_LIGHT_BELOW, Duration.ofMillis(2), Duration.ZERO,
                Duration.ofSeconds(10));
        if (lightBelow.compareTo(heavyAbove) >= 0) {
            if (blamed(ADAPTIVE_LIGHT_BELOW, ADAPTIVE_HEAVY_ABOVE).equals(ADAPTIVE_LIGHT_BELOW)) {
                throw FairsliceConfigException.of(ADAPTIVE_LIGHT_BELOW, "must be below " + ADAPTIVE_HEAVY_ABOVE + " ("
                        + Durations.format(heavyAbove) + ") so that routes do not flap", given(ADAPTIVE_LIGHT_BELOW)
                        ? keys.get(ADAPTIVE_LIGHT_BELOW) : Durations.format(lightBelow));
            }
            throw FairsliceConfigException.of(ADAPTIVE_HEAVY_ABOVE, "must be above " + ADAPTIVE_LIGHT_BELOW + " ("
                    + Durations.format(lightBelow) + ") so that routes do not flap", keys.get(ADAPTIVE_HEAVY_ABOVE));
        }
        double alpha = decimal(ADAPTIVE_ALPHA, 0.05, 0.01, 1.0);
        int minSamples = integer(ADAPTIVE_MIN_SAMPLES, 10, 1, 10_000);
        Duration cpuSampleInterval = duration(CPU_SAMPLE_INTERVAL, Duration.ofMillis(100), Duration.ZERO,
                Duration.ofSeconds(10));
        int routesMax = integer(ROUTES_MAX, 1000, 1, 100_000);
        int maxPages = integer(ROUTES_MAX_PAGES, 50, 1, 1000);
        Duration evictAfter = duration(ROUTES_EVICT_AFTER, Duration.ofSeconds(60), Duration.ZERO, Duration.ofDays(1));
        if (!evictAfter.isZero() && evictAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            // a route's last use is kept to the second (Route.touch): a route in use could look idle
            throw FairsliceConfigException.of(ROUTES_EVICT_AFTER, "must be 0s (never) or at least 1s",
                    keys.get(ROUTES_EVICT_AFTER));
        }
        List<RoutePattern> routePatterns = routePatterns();
        if (maxPages > routesMax) {
            if (blamed(ROUTES_MAX_PAGES, ROUTES_MAX).equals(ROUTES_MAX_PAGES)) {
                throw FairsliceConfigException.of(ROUTES_MAX_PAGES, "must be at most " + ROUTES_MAX + " (" + routesMax
                        + ")", String.valueOf(maxPages));
            }
            throw FairsliceConfigException.of(ROUTES_MAX, "must be at least " + ROUTES_MAX_PAGES + " (" + maxPages
                    + ")", keys.get(ROUTES_MAX));
        }
        Duration quantum = duration(SHARE_QUANTUM, Duration.ofMillis(5), Duration.ofNanos(100_000),
                Duration.ofSeconds(1));
        Duration maxPark = duration(SHARE_MAX_PARK, Duration.ofMillis(500), Duration.ofMillis(1),
                Duration.ofSeconds(60));
        Duration linger = duration(SHARE_LINGER, Duration.ofMillis(200), Duration.ZERO, Duration.ofSeconds(1));
        int cpus = integer(SHARE_CPUS, 0, 0, 1024);
        if (cpus == 0) {
            cpus = processors;
        }
        Duration turnBelow = duration(SHARE_TURN_BELOW, Duration.ofMillis(2), Duration.ZERO, Duration.ofSeconds(1));
        boolean chargeGc = bool(SHARE_CHARGE_GC, true);
        Duration sleepQuantum = duration(SLEEP_QUANTUM, Duration.ofMillis(1), Duration.ofNanos(10_000),
                Duration.ofSeconds(10));
        Duration sleepDuration = duration(SLEEP_DURATION, Duration.ofMillis(1), Duration.ofNanos(10_000),
                Duration.ofSeconds(10));
        Set<String> sleepClasses = sleepClasses(names);
        if (policy == Policy.SLEEP && sleepClasses.isEmpty()) { // the default with one class: nothing would sleep
            throw FairsliceConfigException.of(POLICY, "sleeps the classes of " + SLEEP_CLASSES + ", by default every"
                    + " class but the first, and " + CLASSES + " " + names + " has one: name it in " + SLEEP_CLASSES
                    + ", or the policy would sleep no request", keys.get(POLICY));
        }
        Duration retryAfterMax = duration(RETRY_AFTER_MAX, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofHours(1));
        boolean jmx = bool(JMX, true);
        Map<String, Map<String, String>> listenerSettings = listenerSettings(listeners);
        rejectUnused(names);
        return new FairsliceConfig(enabled, policy, classes, defaultClass, rules, adaptive, adaptiveClass, heavyAbove,
                lightBelow, alpha, minSamples, cpuSampleInterval, routePatterns, routesMax, maxPages, evictAfter,
                quantum, maxPark, linger, cpus, turnBelow, chargeGc, sleepQuantum, sleepDuration, sleepClasses,
                retryAfterMax, jmx, listenerSettings, keys, listeners);
    }

    /**
     * Which of two keys whose values conflict to name: the one a runtime change sets, if only one of them; else the
     * one the operator wrote (with the other left at its default, the written one is the one to fix); else
     * {@code first}.
     */
    private String blamed(String first, String second) {
        if (changed.contains(first) != changed.contains(second)) {
            return changed.contains(first) ? first : second;
        }
        return given(first) || !given(second) ? first : second;
    }

    private boolean given(String key) {
        String v = keys.get(key);
        return v != null && !v.isEmpty();
    }

    private String take(String key) {
        used.add(key);
        String v = keys.get(key);
        return v == null || v.isEmpty() ? null : v;
    }

    private boolean bool(String key, boolean fallback) {
        String v = take(key);
        if (v == null) {
            return fallback;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw FairsliceConfigException.of(key, "must be true or false", v);
        };
    }

    private int integer(String key, int fallback, int min, int max) {
        String v = take(key);
        if (v == null) {
            return fallback;
        }
        Long n = Numbers.wholeOrNull(v);
        if (n == null) {
            throw FairsliceConfigException.of(key, "must be a whole number " + min + ".." + max, v);
        }
        if (n < min || n > max) {
            throw FairsliceConfigException.of(key, "must be " + min + ".." + max, v);
        }
        return n.intValue();
    }

    private double decimal(String key, double fallback, double min, double max) {
        String v = take(key);
        if (v == null) {
            return fallback;
        }
        Double d = Numbers.decimalOrNull(v);
        if (d == null) {
            throw FairsliceConfigException.of(key, "must be a number " + min + ".." + max, v);
        }
        if (d < min || d > max) {
            throw FairsliceConfigException.of(key, "must be " + min + ".." + max, v);
        }
        return d;
    }

    private Duration duration(String key, Duration fallback, Duration min, Duration max) {
        String v = take(key);
        if (v == null) {
            return fallback;
        }
        Duration d = Durations.parseOrNull(v);
        String range = Durations.format(min) + ".." + Durations.format(max);
        if (d == null) {
            throw FairsliceConfigException.of(key, "must be a duration with a unit (ns, us, ms, s, m, h) in " + range
                    + ", such as 5ms", v);
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw FairsliceConfigException.of(key, "must be " + range, v);
        }
        return d;
    }

    private Policy policy() {
        String v = take(POLICY);
        if (v == null) {
            return Policy.SHARE;
        }
        Policy p = Policy.ofValue(v);
        if (p == null) {
            String off = v.trim().equalsIgnoreCase("none") || v.trim().equalsIgnoreCase("off")
                    || v.trim().equalsIgnoreCase("disabled") ? " (to switch fairslice off, set enabled=false)" : "";
            throw FairsliceConfigException.of(POLICY, "must be one of observe, sleep, share" + off, v);
        }
        return p;
    }

    private List<String> classNames() {
        String v = take(CLASSES);
        if (v == null) {
            return List.of("light", "heavy");
        }
        Set<String> names = new LinkedHashSet<>();
        for (String n : v.split(",", -1)) { // -1: a trailing empty name is refused as an inner one is
            String name = n.trim();
            if (!name.matches(CLASS_NAME)) {
                throw FairsliceConfigException.of(CLASSES, "must be a comma-separated list of names matching "
                        + CLASS_NAME + " (bad name '" + name + "')", v);
            }
            if (!names.add(name)) {
                throw FairsliceConfigException.of(CLASSES, "must not repeat a name ('" + name + "')", v);
            }
        }
        if (names.isEmpty()) {
            // "," splits into nothing: without this check a configuration with no class at all went on to crash
            throw FairsliceConfigException.of(CLASSES, "must name at least one class", v);
        }
        if (names.size() > 16) {
            throw FairsliceConfigException.of(CLASSES, "must name at most 16 classes (each is a metric tag value)", v);
        }
        return List.copyOf(names);
    }

    private int classRef(String key, List<String> names, int fallback) {
        String v = take(key);
        if (v == null) {
            return fallback;
        }
        int i = names.indexOf(v);
        if (i < 0) {
            throw FairsliceConfigException.of(key, "must be one of the configured classes " + names, v);
        }
        return i;
    }

    private List<Rule> rules(List<String> names) {
        return numbered(RULE_PREFIX, (key, order, value) -> Rule.parse(key, order, value, names));
    }

    private List<RoutePattern> routePatterns() {
        return numbered(ROUTE_PREFIX, RoutePattern::parse);
    }

    private interface NumberedParser<T> {
        T parse(String key, int order, String value);
    }

    /** The values of keys {@code <prefix><n>}, <n> 1..9999, parsed and in the order of <n>. */
    private <T> List<T> numbered(String prefix, NumberedParser<T> parser) {
        TreeMap<Integer, T> entries = new TreeMap<>();
        String name = prefix.substring(0, prefix.length() - 1);
        for (String key : keys.keySet()) {
            if (!key.startsWith(prefix)) {
                continue;
            }
            String n = key.substring(prefix.length());
            int order = n.matches("\\d{1,4}") ? Integer.parseInt(n) : -1;
            if (order < 1) {
                throw FairsliceConfigException.of(key, "must be " + name + ".<n> with <n> a whole number 1..9999",
                        keys.get(key));
            }
            String v = take(key);
            if (v == null) {
                throw FairsliceConfigException.of(key, "must not be empty", keys.get(key));
            }
            T previous = entries.put(order, parser.parse(key, order, v));
            if (previous != null) {
                // rule.1 and rule.01 are the same position: keeping one would silently drop the other
                throw FairsliceConfigException.of(key, "must not repeat the position of " + previous, v);
            }
        }
        return new ArrayList<>(entries.values());
    }

    private Set<String> sleepClasses(List<String> names) {
        String v = take(SLEEP_CLASSES);
        if (v == null) {
            return Set.copyOf(names.subList(1, names.size()));
        }
        Set<String> set = new LinkedHashSet<>();
        for (String n : v.split(",", -1)) { // -1: "heavy," and "," have an empty name, refused as "a,,b"'s is
            if (!names.contains(n.trim())) {
                String which = n.isBlank() ? "an empty name: a comma too many?" : "'" + n.trim() + "' is not one";
                throw FairsliceConfigException.of(SLEEP_CLASSES, "must list configured classes " + names + " (" + which
                        + ")", v);
            }
            set.add(n.trim());
        }
        return set;
    }

    private Map<String, Map<String, String>> listenerSettings(Map<String, Set<String>> listeners) {
        Map<String, Map<String, String>> result = new HashMap<>();
        for (var listener : listeners.entrySet()) {
            Map<String, String> settings = new LinkedHashMap<>();
            String prefix = listener.getKey() + ".";
            for (var e : keys.entrySet()) {
                if (!e.getKey().startsWith(prefix)) {
                    continue;
                }
                String setting = e.getKey().substring(prefix.length());
                if (!declares(listener.getValue(), setting)) {
                    throw FairsliceConfigException.unknownKey(e.getKey(), "is not a setting of the request listener '"
                            + listener.getKey() + "' (it declares " + new TreeSet<>(listener.getValue())
                            + ")", e.getValue());
                }
                used.add(e.getKey());
                settings.put(setting, e.getValue());
            }
            result.put(listener.getKey(), Map.copyOf(settings));
        }
        return result;
    }

    /** A declared name ending in {@code .*} accepts any setting below it (per-class settings, for example). */
    private static boolean declares(Set<String> declared, String setting) {
        if (declared.contains(setting)) {
            return true;
        }
        for (String d : declared) {
            if (d.endsWith(".*") && setting.startsWith(d.substring(0, d.length() - 1))
                    && setting.length() > d.length() - 1) {
                return true;
            }
        }
        return false;
    }

    private void rejectUnused(List<String> classNames) {
        for (var e : keys.entrySet()) {
            if (!used.contains(e.getKey())) {
                String near = nearestKey(e.getKey(), classNames);
                throw FairsliceConfigException.unknownKey(e.getKey(), "is not a fairslice configuration key"
                        + (near == null ? " " : "; did you mean " + near + "? ")
                        + "(see docs/configuration.md; per-class keys need a configured class)", e.getValue());
            }
        }
    }

    /**
     * The key of {@link ConfigKeys#ALL} (per-class keys for the configured classes, numbered keys with the key's own
     * number) closest to {@code key} within two edits (a letter left out, added, changed or two swapped), or null: the
     * likely intent of a misspelt key; for {@code fairslice.<key>}, the one closest to {@code <key>}.
     */
    static String nearestKey(String key, List<String> classNames) {
        if (key.startsWith(PREFIX)) { // a system property's name where the key is wanted (JMX's set, say)
            String bare = nearestKey(key.substring(PREFIX.length()), classNames);
            if (bare != null) {
                return bare;
            }
        }
        Matcher numbered = NUMBERED.matcher(key);
        String number = numbered.find() ? numbered.group(1) : null; // rules.3 -> rule.3
        String nearest = null;
        int best = 3;
        for (ConfigKeys.Spec spec : ConfigKeys.ALL) {
            List<String> candidates = spec.name().contains("<class>")
                    ? classNames.stream().map(c -> spec.name().replace("<class>", c)).toList()
                    : spec.name().contains("<n>") && number != null ? List.of(spec.name().replace("<n>", number))
                    : spec.name().contains("<") ? List.of() : List.of(spec.name());
            for (String candidate : candidates) {
                int d = edits(key, candidate);
                if (d < best) {
                    best = d;
                    nearest = candidate;
                }
            }
        }
        return nearest;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    static int edits(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
