package io.fairslice.loadgen;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and validates the simulations' parameters. Every value comes from a lookup (system properties when run
 * by Gatling) and a bad value fails the run before any load is sent, with a {@link ParameterException} naming the
 * parameter.
 */
final class Parameters {

    /** A decimal number: digits, an optional fraction, an optional minus sign (refused by the ranges). */
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");
    /** A decimal number and an optional unit, lower case. */
    private static final Pattern DURATION = Pattern.compile("(-?[0-9]+(?:\\.[0-9]+)?)\\s*(ms|s|m|h)?");

    private final UnaryOperator<String> lookup;

    Parameters(UnaryOperator<String> lookup) {
        this.lookup = lookup;
    }

    String string(String name, String fallback) {
        String value = lookup.apply(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    int integer(String name, int fallback, int min, int max) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new ParameterException(name, "must be a whole number, got '" + value + "'");
        }
        if (parsed < min || parsed > max) {
            throw new ParameterException(name, "must be " + min + ".." + max + ", got " + parsed);
        }
        return parsed;
    }

    double decimal(String name, double fallback, double min, double max) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        if (!DECIMAL.matcher(value.trim()).matches()) {
            // Double.parseDouble alone took 12d, 12f, 0x1p3, NaN and Infinity
            throw new ParameterException(name, "must be a number such as 50 or 12.5, got '" + value + "'");
        }
        double parsed = Double.parseDouble(value.trim());
        if (!(parsed >= min && parsed <= max)) {
            throw new ParameterException(name, "must be " + min + ".." + max + ", got " + value.trim());
        }
        return parsed;
    }

    Duration duration(String name, Duration fallback, Duration min, Duration max) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        Duration parsed;
        try {
            parsed = parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(name, "must be a duration such as 500ms, 30s or 2m, got '" + value + "'");
        }
        if (parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
            throw new ParameterException(name, "must be between " + format(min) + " and " + format(max)
                    + ", got " + value.trim());
        }
        return parsed;
    }

    /** A base URL: http or https, no trailing slash. */
    String baseUrl(String name, String fallback) {
        String value = string(name, fallback);
        if (!value.startsWith("http://") && !value.startsWith("https://")) {
            throw new ParameterException(name, "must start with http:// or https://, got '" + value + "'");
        }
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    /** A comma-separated list of paths, each starting with a slash. */
    List<String> paths(String name, List<String> fallback) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        List<String> paths = new ArrayList<>();
        for (String part : value.split(",")) {
            String path = part.trim();
            if (!path.startsWith("/")) {
                throw new ParameterException(name, "must be paths starting with '/', separated by commas, got '"
                        + value + "'");
            }
            paths.add(path);
        }
        return List.copyOf(paths);
    }

    String path(String name, String fallback) {
        String value = string(name, fallback);
        if (!value.startsWith("/")) {
            throw new ParameterException(name, "must start with '/', got '" + value + "'");
        }
        return value;
    }

    /**
     * Durations such as {@code 250ms}, {@code 1.5ms}, {@code 30s}, {@code 2m}, {@code 1h}, as the middleware and the
     * study harness write them; a bare number is seconds. Anything else is refused: {@code 1d} (Java's double suffix,
     * which Double.parseDouble read as 1 s), {@code 2f}, {@code 0x1p3} (a hex float), {@code NaN}, {@code 1e3}.
     */
    static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
        double number = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofNanos(Math.round(number * 1e6));
            case "s" -> Duration.ofMillis(Math.round(number * 1000));
            case "m" -> Duration.ofMillis(Math.round(number * 60_000));
            case "h" -> Duration.ofMillis(Math.round(number * 3_600_000));
            default -> throw new IllegalStateException("unit " + unit); // the pattern allows no other
        };
    }

    static String format(Duration d) {
        long ns = d.toNanos();
        if (ns % 1_000_000_000L == 0) {
            return ns / 1_000_000_000L + "s";
        }
        return ns % 1_000_000 == 0 ? ns / 1_000_000 + "ms"
                : java.math.BigDecimal.valueOf(ns, 6).stripTrailingZeros().toPlainString() + "ms";
    }

    /** The request name Gatling records for a page: the class, a colon, the path ({@code light:/light}). */
    static String requestName(String requestClass, String path) {
        return requestClass + ":" + path;
    }
}
