package io.fairslice.experiments.app;

import jakarta.servlet.ServletContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The study application's settings, read once at startup from a system property or, failing that, the context
 * parameter of the same name. A bad value stops the application with a message naming the setting.
 *
 * @param fibonacciN     {@code study.light.fibonacci}: which Fibonacci number /light computes (default 25, as in the
 *                       study)
 * @param primeLimit     {@code study.light2.primes}: /light2 counts the primes below this (default 20000: about the
 *                       cost of fib(25) on the Intel host it was set on; 1.3-1.5x on an AMD EPYC, docs/study-app.md)
 * @param documentBytes  {@code study.heavy.bytes}: approximate size of the heavy page's XML document (default 2 MB)
 * @param seed           {@code study.heavy.seed}: seed of the generated document (default 2005)
 * @param documentDir    {@code study.heavy.dir}: where the document is generated; null (the default) for the
 *                       application's private temporary folder ({@link StudyApplication}). Never a fixed folder
 *                       under /tmp: another local user could create it first, or make it a link, and so choose the
 *                       document the server (run as root by the study) parses, or where it writes
 */
public record StudySettings(int fibonacciN, int primeLimit, long documentBytes, long seed, Path documentDir) {

    public static final int DEFAULT_FIBONACCI_N = 25;
    public static final int DEFAULT_PRIME_LIMIT = 20_000;
    public static final long DEFAULT_DOCUMENT_BYTES = 2L * 1024 * 1024;
    public static final long DEFAULT_SEED = 2005;
    /** The settings' names. */
    static final List<String> NAMES = List.of("study.light.fibonacci", "study.light2.primes",
            "study.heavy.bytes", "study.heavy.seed", "study.heavy.dir");
    static final long MIN_DOCUMENT_BYTES = 1024;
    static final long MAX_DOCUMENT_BYTES = 1L << 30;
    /** A whole number as the experiments' settings take it: ASCII digits, an optional sign. */
    private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");

    public StudySettings {
        require(fibonacciN >= 1 && fibonacciN <= 40, "study.light.fibonacci", "must be 1..40", fibonacciN);
        require(primeLimit >= 2 && primeLimit <= 10_000_000, "study.light2.primes", "must be 2..10000000", primeLimit);
        require(documentBytes >= MIN_DOCUMENT_BYTES && documentBytes <= MAX_DOCUMENT_BYTES, "study.heavy.bytes",
                "must be 1KB..1GB", documentBytes);
    }

    /**
     * Checks a document size as this application will (such as {@code 2MB}: a size in 1KB..1GB), for a harness that
     * wants a bad one refused before it starts servers; the message names {@code name}.
     */
    public static void checkDocumentSize(String name, String value) {
        long bytes = parseSize(n -> value, name, -1);
        require(bytes >= MIN_DOCUMENT_BYTES && bytes <= MAX_DOCUMENT_BYTES, name, "must be a size in 1KB..1GB such "
                + "as 2MB", "'" + value + "'");
    }

    public static StudySettings defaults() {
        return new StudySettings(DEFAULT_FIBONACCI_N, DEFAULT_PRIME_LIMIT, DEFAULT_DOCUMENT_BYTES, DEFAULT_SEED,
                null);
    }

    /** Reads settings: a system property wins over a context parameter of the same name. */
    public static StudySettings from(ServletContext context) {
        return from(name -> {
            String value = System.getProperty(name);
            return value != null ? value : context.getInitParameter(name);
        });
    }

    static StudySettings from(UnaryOperator<String> lookup) {
        for (String name : NAMES) {
            String value = lookup.apply(name);
            if (value != null && value.isBlank()) {
                // taken for the default: -Dstudy.heavy.bytes=$SIZE with the variable unset measured the 2 MB page, and
                // a blank system property hid the context parameter of the same name (serve's --document-size)
                throw new IllegalArgumentException(name + " is set but empty: give it a value, or leave it out for"
                        + " its default");
            }
        }
        String dir = lookup.apply("study.heavy.dir");
        return new StudySettings(
                parseInt(lookup, "study.light.fibonacci", DEFAULT_FIBONACCI_N),
                parseInt(lookup, "study.light2.primes", DEFAULT_PRIME_LIMIT),
                parseSize(lookup, "study.heavy.bytes", DEFAULT_DOCUMENT_BYTES),
                parseLong(lookup, "study.heavy.seed", DEFAULT_SEED),
                dir == null || dir.isBlank() ? null : Path.of(dir.trim()));
    }

    private static long parseLong(UnaryOperator<String> lookup, String name, long fallback) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return whole(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
        }
    }

    /**
     * {@code s} as a whole number by the rule of the server module's {@code Numbers} (this module sits below it, and
     * the rule is one line): Long.parseLong alone also took non-ASCII digits, {@code ٢٥} as 25.
     *
     * @throws NumberFormatException when it is not one, or beyond a long
     */
    private static long whole(String s) {
        if (!WHOLE.matcher(s).matches()) {
            throw new NumberFormatException("not ASCII digits: '" + s + "'");
        }
        return Long.parseLong(s);
    }

    /**
     * A whole number that fits an int: the range check in the constructor must see the value given, not a wrapped one.
     */
    private static int parseInt(UnaryOperator<String> lookup, String name, int fallback) {
        long value = parseLong(lookup, name, fallback);
        if (value != (int) value) {
            throw new IllegalArgumentException(name + " is out of range, got " + value);
        }
        return (int) value;
    }

    /** Sizes such as {@code 2097152}, {@code 512KB}, {@code 2MB}, {@code 10MB} (binary units). */
    static long parseSize(UnaryOperator<String> lookup, String name, long fallback) {
        String value = lookup.apply(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        String v = value.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("KB")) {
            unit = 1024;
        } else if (v.endsWith("MB")) {
            unit = 1024 * 1024;
        } else if (v.endsWith("GB")) {
            unit = 1024L * 1024 * 1024;
        }
        String digits = unit == 1 ? v : v.substring(0, v.length() - 2).trim();
        try {
            return Math.multiplyExact(whole(digits), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    name + " must be a size such as 2097152, 512KB or 2MB, got '" + value + "'");
        }
    }

    private static void require(boolean ok, String name, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(name + " " + rule + ", got " + value);
        }
    }
}
