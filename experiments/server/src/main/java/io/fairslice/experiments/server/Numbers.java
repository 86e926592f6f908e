package io.fairslice.experiments.server;

import java.util.regex.Pattern;

/**
 * Numbers in the experiments' settings and options (the study's --config keys, the server's options, the peers'
 * properties), read strictly: ASCII digits, an optional sign and, in a decimal, a point and an exponent
 * ({@code 0.05}, {@code 5e-2}), finite. That is the middleware configuration's rule for a decimal
 * ({@code adaptive.alpha=5e-2}; its config.Numbers is package-private), so that one is written alike for both. Java's
 * own parsers read more: {@code Double.parseDouble} took {@code 1d}, {@code 2f}, {@code 0x1p-3} (a hex float),
 * {@code NaN} and {@code Infinity} (the netflix peer's {@code light-share=0.9d} ran as 0.9), and {@code Long.parseLong}
 * non-ASCII digits ({@code ٢٠} as 20).
 */
public final class Numbers {

    private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");
    private static final Pattern DECIMAL =
            Pattern.compile("[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?");

    private Numbers() {
    }

    /**
     * {@code value} as a whole number; {@code name} (the key or option) is what a refusal names.
     *
     * @throws IllegalArgumentException naming {@code name} and {@code value} when it is not one, or beyond a long
     */
    public static long whole(String name, String value) {
        if (WHOLE.matcher(value).matches()) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                // beyond a long: refused below, as before
            }
        }
        throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
    }

    /** As {@link #whole}, for a value that must fit an int (one beyond it is refused as no whole number, as before). */
    public static int wholeInt(String name, String value) {
        long n = whole(name, value);
        if (n != (int) n) {
            throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
        }
        return (int) n;
    }

    /**
     * {@code value} as a decimal number such as {@code 0.9}, {@code 12.5} or {@code 5e-2}; {@code name} is what a
     * refusal names.
     *
     * @throws IllegalArgumentException naming {@code name} and {@code value} when it is not one, or one beyond a double
     *     (400 digits were read as Infinity)
     */
    public static double decimal(String name, String value) {
        double d = DECIMAL.matcher(value).matches() ? Double.parseDouble(value) : Double.NaN;
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException(name + " must be a number such as 0.9 or 12.5, got '" + value + "'");
        }
        return d;
    }
}
