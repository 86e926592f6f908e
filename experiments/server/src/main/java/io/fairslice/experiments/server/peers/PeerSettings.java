package io.fairslice.experiments.server.peers;

import io.fairslice.experiments.server.Numbers;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Settings of the Netflix partitioned-limiter peer, from system properties {@code fairslice.peer.netflix.*}:
 * {@code light-share} (default 0.9) and {@code heavy-share} (0.1), the partitions' guaranteed fractions of the
 * limit (Netflix's documented example splits 90/10 between live and batch traffic); {@code min-limit} (20),
 * {@code initial-limit} (20) and {@code max-limit} (200) of the Gradient2 limit (its own defaults);
 * {@code heavy-paths} (/heavy), comma-separated.
 */
public record PeerSettings(double lightShare, double heavyShare, int minLimit, int initialLimit, int maxLimit,
                           List<String> heavyPaths) {

    static final String PREFIX = "fairslice.peer.netflix.";

    public PeerSettings {
        heavyPaths = List.copyOf(heavyPaths);
        require(lightShare > 0 && lightShare <= 1, "light-share", "must be in (0, 1]", lightShare);
        require(heavyShare > 0 && heavyShare <= 1, "heavy-share", "must be in (0, 1]", heavyShare);
        require(lightShare + heavyShare <= 1.0 + 1e-9, "light-share + heavy-share", "must be at most 1",
                lightShare + heavyShare);
        require(maxLimit >= 1 && maxLimit <= 100_000, "max-limit", "must be 1..100000", maxLimit);
        // both values in the message: max-limit=10 alone was blamed on initial-limit's default
        require(initialLimit <= maxLimit, "initial-limit", "must be at most max-limit (" + maxLimit + ")",
                initialLimit);
        require(minLimit >= 1 && minLimit <= initialLimit, "min-limit", "must be 1..initial-limit (" + initialLimit
                + ")", minLimit);
        require(!heavyPaths.isEmpty() && heavyPaths.stream().allMatch(p -> p.startsWith("/")), "heavy-paths",
                "must be paths starting with '/'", heavyPaths);
    }

    /** The settings' names, after {@link #PREFIX}. */
    static final List<String> KEYS = List.of("light-share", "heavy-share", "min-limit", "initial-limit", "max-limit",
            "heavy-paths");

    /** Reads the settings, after refusing a {@code fairslice.peer.netflix.*} property that is none of them. */
    public static PeerSettings fromSystemProperties() {
        refuseUnknown(System.getProperties().stringPropertyNames());
        return from(System::getProperty);
    }

    /** A misspelt setting ({@code max_limit}) was ignored, and the peer ran with the default. */
    static void refuseUnknown(Iterable<String> propertyNames) {
        for (String name : propertyNames) {
            if (name.startsWith(PREFIX) && !KEYS.contains(name.substring(PREFIX.length()))) {
                throw new IllegalArgumentException(name + " is not a setting of the netflix peer (known: "
                        + String.join(", ", KEYS) + ")");
            }
        }
    }

    static PeerSettings from(UnaryOperator<String> lookup) {
        return new PeerSettings(
                decimal(lookup, "light-share", 0.9),
                decimal(lookup, "heavy-share", 0.1),
                integer(lookup, "min-limit", 20),
                integer(lookup, "initial-limit", 20),
                integer(lookup, "max-limit", 200),
                Arrays.stream(string(lookup, "heavy-paths", "/heavy").split(",")).map(String::trim)
                        .filter(s -> !s.isEmpty()).toList());
    }

    private static String string(UnaryOperator<String> lookup, String key, String fallback) {
        String v = lookup.apply(PREFIX + key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static double decimal(UnaryOperator<String> lookup, String key, double fallback) {
        String v = string(lookup, key, null);
        return v == null ? fallback : Numbers.decimal(PREFIX + key, v);
    }

    private static int integer(UnaryOperator<String> lookup, String key, int fallback) {
        String v = string(lookup, key, null);
        return v == null ? fallback : Numbers.wholeInt(PREFIX + key, v);
    }

    private static void require(boolean ok, String key, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(PREFIX + key + " " + rule + ", got " + value);
        }
    }
}
