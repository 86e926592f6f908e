package io.fairslice.loadgen;

import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads and validates the simulations' parameters. Every value comes from a lookup (system properties when run
 * by Gatling) and a bad value fails the run before any load is sent, with a {@link ParameterException} naming the
 * parameter.
 */
final class Parameters {

    /**
     * A number as people write it: ASCII digits with an optional fraction ({@code 12}, {@code 12.5}, {@code 12.},
     * {@code .5}), an optional sign (a minus is refused by the ranges); no exponent, type suffix or hex. A duration's
     * number, as the middleware's durations read one ({@code 1e3s} is refused there too).
     */
    private static final String NUMBER = "[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)";
    private static final Pattern PLAIN = Pattern.compile(NUMBER);
    /**
     * A decimal parameter (a rate): a number with an optional exponent ({@code 5e1}, {@code 2.5E-1}), as the
     * middleware's configuration ({@code adaptive.alpha=5e-2}) and the experiments' settings read one, where
     * {@code 1e3} was refused here alone. A value beyond a double reads as Infinity, which every range refuses.
     */
    private static final Pattern DECIMAL = Pattern.compile(NUMBER + "(?:[eE][-+]?[0-9]+)?");
    /** A whole number: ASCII digits and an optional sign (Integer.parseInt alone read other scripts' digits). */
    private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");
    /** A number and its unit, lower case. */
    private static final Pattern DURATION = Pattern.compile("(" + NUMBER + ")\\s*(ms|s|m|h)");

    /**
     * OverloadStudy's parameters ({@link StudyParameters}, whose record components they name), in the order the run's
     * first line shows them.
     */
    static final List<String> STUDY = List.of("baseUrl", "lightPaths", "heavyPath", "lightUsers", "heavyUsers",
            "warmUp", "duration", "thinkTime", "requestTimeout", "retryAfterDefault", "retryAfterMax",
            "requireSuccess");
    /** OverloadSpike's parameters ({@link SpikeParameters}), as {@link #STUDY}. */
    static final List<String> SPIKE = List.of("baseUrl", "lightPaths", "heavyPath", "lightRate", "heavyRate",
            "duration", "burstStart", "burstDuration", "requestTimeout", "requireSuccess");
    /** Every parameter's name, of both simulations: only an exact one is read. */
    private static final List<String> NAMES =
            Stream.concat(STUDY.stream(), SPIKE.stream()).distinct().toList();

    private final UnaryOperator<String> lookup;

    Parameters(UnaryOperator<String> lookup) {
        this.lookup = lookup;
    }

    /**
     * Reads a simulation's parameters as its field initialiser does, and when they are refused says why in one line on
     * stderr, {@code fairslice loadgen: <message>}, before rethrowing. Gatling reports a simulation whose constructor
     * throws as "Run crashed" with the exception twice (its log's stack trace, then the Maven plugin's), and the one
     * line that mattered was buried in ~50 lines of frames; it now comes first. The exception still ends the run with
     * a non-zero status.
     */
    static <T> T readOrSay(Supplier<T> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            System.err.println("fairslice loadgen: " + e.getMessage());
            System.err.flush();
            throw e;
        }
    }

    /**
     * The value given for {@code name}, or null when none is. An empty one is refused rather than read as the default:
     * {@code -DbaseUrl=$URL} with the variable unset loaded whatever listened on the default port, and the run's
     * first line did not even mark the value as a default, since the property was set.
     */
    private String given(String name) {
        String value = lookup.apply(name);
        if (value != null && value.isBlank()) {
            throw new ParameterException(name, "is empty: give a value, or leave " + name + " out for its default");
        }
        return value;
    }

    String string(String name, String fallback) {
        String value = given(name);
        return value == null ? fallback : value.trim();
    }

    int integer(String name, int fallback, int min, int max) {
        String value = given(name);
        if (value == null) {
            return fallback;
        }
        Integer parsed = null;
        if (WHOLE.matcher(value.trim()).matches()) {
            try {
                parsed = Integer.valueOf(value.trim());
            } catch (NumberFormatException e) {
                // beyond an int: refused below
            }
        }
        if (parsed == null) {
            throw new ParameterException(name, "must be a whole number, got '" + value + "'");
        }
        if (parsed < min || parsed > max) {
            throw new ParameterException(name, "must be " + min + ".." + max + ", got " + parsed);
        }
        return parsed;
    }

    double decimal(String name, double fallback, double min, double max) {
        String value = given(name);
        if (value == null) {
            return fallback;
        }
        if (!DECIMAL.matcher(value.trim()).matches()) {
            // Double.parseDouble alone took 12d, 12f, 0x1p3, NaN and Infinity; Java's regex [0-9] is ASCII only
            throw new ParameterException(name, "must be a number such as 50 or 12.5, got '" + value + "'");
        }
        double parsed = Double.parseDouble(value.trim());
        if (!(parsed >= min && parsed <= max)) {
            throw new ParameterException(name, "must be " + min + ".." + max + ", got " + value.trim());
        }
        return parsed;
    }

    /** {@code true} or {@code false}, in any case; anything else is refused rather than read as false. */
    boolean bool(String name, boolean fallback) {
        String value = given(name);
        if (value == null) {
            return fallback;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ParameterException(name, "must be true or false, got '" + value + "'");
        };
    }

    Duration duration(String name, Duration fallback, Duration min, Duration max) {
        String value = given(name);
        if (value == null) {
            return fallback;
        }
        Duration parsed;
        try {
            parsed = parseDuration(value);
        } catch (IllegalArgumentException e) {
            String number = value.trim();
            throw new ParameterException(name, PLAIN.matcher(number).matches()
                    ? "must name its unit (ms, s, m or h): " + number + "ms or " + number + "s, got '" + value + "'"
                    : "must be a duration such as 500ms, 30s or 2m, got '" + value + "'");
        }
        if (parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
            throw new ParameterException(name, "must be between " + format(min) + " and " + format(max)
                    + ", got " + value.trim());
        }
        if (parsed.toNanos() % 1_000_000 != 0) {
            // Gatling pauses and times out by the millisecond: 0.4ms was printed as given and paused 0
            throw new ParameterException(name, "must be whole milliseconds (the load generator pauses and times out"
                    + " by the millisecond), got " + value.trim());
        }
        return parsed;
    }

    /**
     * A base URL: an absolute http or https URL with a host, and maybe a context path ({@code http://host:8080/shop}),
     * returned without trailing slashes (the paths, which start with one, are appended to it). {@code http://},
     * {@code http:/x} (no host) and a query or fragment (the paths would land in it) are refused.
     */
    String baseUrl(String name, String fallback) {
        String value = string(name, fallback);
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            uri = null;
        }
        // the authority split once, for the host and the port: after any user info, the port after the last colon
        String hostPort = uri == null || uri.getRawAuthority() == null ? ""
                : uri.getRawAuthority().substring(uri.getRawAuthority().lastIndexOf('@') + 1);
        int colon = hostPort.lastIndexOf(':');
        if (uri == null || uri.getScheme() == null || !(uri.getScheme().equalsIgnoreCase("http")
                || uri.getScheme().equalsIgnoreCase("https")) || host(uri, hostPort, colon).isEmpty()) {
            throw new ParameterException(name, "must be an absolute http:// or https:// URL with a host, such as "
                    + "http://127.0.0.1:8080 or http://your-host:8080/shop, got '" + value + "'");
        }
        if (colon > hostPort.lastIndexOf(']') && hostPort.substring(0, colon).contains(":")
                && !hostPort.startsWith("[")) {
            // java.net.URI takes host:8080:9090 as a registry authority; Gatling could not parse it and every request
            // failed unsent, blamed on the network
            throw new ParameterException(name, "must have one port after the host, got '" + value + "'");
        }
        if (colon > hostPort.lastIndexOf(']')) { // a port (not a colon inside an IPv6 literal); empty is the default
            String port = hostPort.substring(colon + 1);
            if (!port.isEmpty() && (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1
                    || Integer.parseInt(port) > 65535)) {
                throw new ParameterException(name, "must have a port 1..65535 after the host, got '" + value + "'");
            }
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new ParameterException(name, "must not have a query or a fragment (the paths are appended to it),"
                    + " got '" + value + "'");
        }
        String url = value;
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        return url;
    }

    /**
     * The URL's host, or "" when it has none: URI's, else what its authority's {@code hostPort} has before its last
     * colon, at {@code colon} (a host_name is no host to URI).
     */
    private static String host(URI uri, String hostPort, int colon) {
        if (uri.getHost() != null) {
            return uri.getHost();
        }
        return colon < 0 ? hostPort : hostPort.substring(0, colon);
    }

    /** A comma-separated list of paths, each starting with a slash. */
    List<String> paths(String name, List<String> fallback) {
        String value = given(name);
        if (value == null) {
            return fallback;
        }
        List<String> paths = new ArrayList<>();
        for (String part : value.split(",", -1)) { // -1: "/a," and "," have empty entries too, refused alike
            String path = part.trim();
            if (!path.startsWith("/")) {
                throw new ParameterException(name, "must be paths starting with '/', separated by commas, got '"
                        + value + "'");
            }
            paths.add(literal(name, path));
        }
        return List.copyOf(paths);
    }

    /** One path, starting with a slash; a comma is refused (a list belongs in {@code lightPaths}). */
    String path(String name, String fallback) {
        String value = string(name, fallback);
        if (!value.startsWith("/")) {
            throw new ParameterException(name, "must start with '/', got '" + value + "'");
        }
        if (value.contains(",")) {
            // '/a,/b' was requested as one literal path: a 404 the run only named with requireSuccess on
            throw new ParameterException(name, "must be one path (lightPaths takes a list; write a comma in a path"
                    + " %2C, as lightPaths needs it too), got '" + value + "'");
        }
        return literal(name, value);
    }

    /**
     * A path without {@code #{}: Gatling reads a request's URL and name as its Expression Language, so {@code #{term}}
     * asked the session for an attribute no user has, and every request failed before it was sent (blamed on the
     * network in the run's summary). Percent-encode a literal one ({@code %23%7B}).
     */
    private static String literal(String name, String path) {
        if (path.contains("#{")) {
            throw new ParameterException(name, "must not contain '#{', which Gatling reads as an expression (write"
                    + " it %23%7B), got '" + path + "'");
        }
        return path;
    }

    /**
     * Durations such as {@code 250ms}, {@code 1.5s}, {@code 30s}, {@code 2m}, {@code 1h}, as the middleware and the
     * study harness write them, the unit always named, as the middleware wants it ({@link #duration} then wants whole
     * milliseconds). Anything else is refused:
     * {@code 1d} (Java's double suffix, which Double.parseDouble read as 1 s), {@code 2f}, {@code 0x1p3} (a hex
     * float), {@code NaN}, {@code 1e3}, and a bare number: read as seconds, {@code thinkTime=250} (meant 250 ms)
     * paused every client 250 s between requests, within the parameter's range, and the run went on.
     */
    static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
        double number = Double.parseDouble(m.group(1));
        String unit = m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofNanos(Math.round(number * 1e6));
            case "s" -> Duration.ofMillis(Math.round(number * 1000));
            case "m" -> Duration.ofMillis(Math.round(number * 60_000));
            case "h" -> Duration.ofMillis(Math.round(number * 3_600_000));
            default -> throw new IllegalStateException("unit " + unit); // the pattern allows no other
        };
    }

    /**
     * Refuses a property that is no parameter of either simulation but so close to one that it is most likely a typo
     * of it: its name in another case ({@code baseURL}), or one edit away from a name of up to six letters, two from a
     * longer one ({@code heavyPaths} for {@code heavyPath}). Left alone, the parameter it meant kept its default and
     * the run went on against the wrong page. Other properties pass, whatever they are: the JVM's, Maven's and
     * Gatling's own are there too, and none is this close to one of ours.
     */
    static void refuseNearMisses(Collection<String> properties) {
        for (String property : properties.stream().sorted().toList()) {
            if (NAMES.contains(property)) {
                continue;
            }
            String closest = null;
            int closestDistance = Integer.MAX_VALUE;
            for (String name : NAMES) {
                int distance = distance(property.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT));
                if (distance <= (name.length() > 6 ? 2 : 1) && distance < closestDistance) {
                    closest = name;
                    closestDistance = distance;
                }
            }
            if (closest != null) {
                throw new ParameterException(property, "is not a parameter; did you mean " + closest + "? (without "
                        + "it, " + closest + " keeps its default)");
            }
        }
    }

    /**
     * The notes for properties that are the other simulation's parameters ({@code -DheavyRate=30} given to
     * OverloadStudy): they pass, since one set of {@code -D} options may serve both, but the run ignores them and
     * says so, {@code fairslice loadgen: heavyRate is a parameter of OverloadSpike, not of OverloadStudy: ignored}.
     */
    static List<String> othersParameters(Collection<String> properties, String simulation, List<String> own) {
        return properties.stream().sorted().filter(p -> NAMES.contains(p) && !own.contains(p))
                .map(p -> "fairslice loadgen: " + p + " is a parameter of "
                        + (STUDY.contains(p) ? "OverloadStudy" : "OverloadSpike") + ", not of " + simulation
                        + ": ignored")
                .toList();
    }

    /**
     * The edits that turn {@code a} into {@code b}, an edit being a letter inserted, removed, replaced or two
     * neighbours swapped (optimal string alignment). A typo is one or two; the property names are compared in lower
     * case, so {@code baseURL} is a typo of {@code baseUrl} too.
     */
    static int distance(String a, String b) {
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

    /**
     * Reads a simulation's parameters from {@code properties} (the system properties when Gatling runs it): a property
     * that looks like a typo of a parameter is refused first, then the values are read, then a note is printed for each
     * of the other simulation's parameters, which the run ignores.
     */
    static <T> T read(Properties properties, String simulation, List<String> own,
                      Function<UnaryOperator<String>, T> from) {
        refuseNearMisses(properties.stringPropertyNames());
        T read = from.apply(properties::getProperty); // a refusal first, then the notes
        othersParameters(properties.stringPropertyNames(), simulation, own).forEach(System.err::println);
        return read;
    }

    /**
     * One line that says what a simulation runs with, its parameters {@code names} read from the record's components
     * of those names, each value marked "(default)" when {@code lookup} has none for it: a typo the refusal above
     * cannot tell (a name too far from ours) shows as a parameter left at its default.
     */
    static String describe(String simulation, Record parameters, List<String> names, UnaryOperator<String> lookup) {
        Map<String, Object> values = new LinkedHashMap<>();
        Map<String, RecordComponent> components = new HashMap<>();
        for (RecordComponent component : parameters.getClass().getRecordComponents()) {
            components.put(component.getName(), component);
        }
        for (String name : names) {
            try {
                values.put(name, components.get(name).getAccessor().invoke(parameters));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("parameter " + name + " of " + simulation, e);
            }
        }
        StringJoiner line = new StringJoiner(", ", "fairslice loadgen: " + simulation + " with ", "");
        values.forEach((name, value) -> {
            String shown = value instanceof Duration d ? format(d)
                    : value instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList())
                    : String.valueOf(value);
            String given = lookup.apply(name);
            line.add(name + "=" + shown + (given == null ? " (default)" : ""));
        });
        return line.toString();
    }

    static String format(Duration d) {
        long ns = d.toNanos();
        if (ns % 1_000_000_000L == 0) {
            return ns / 1_000_000_000L + "s";
        }
        return ns % 1_000_000 == 0 ? ns / 1_000_000 + "ms"
                : BigDecimal.valueOf(ns, 6).stripTrailingZeros().toPlainString() + "ms";
    }

    /** The request name Gatling records for a page: the class, a colon, the path ({@code light:/light}). */
    static String requestName(String requestClass, String path) {
        return requestClass + ":" + path;
    }
}
