package io.fairslice.middleware.config;

import java.util.regex.Pattern;

/**
 * Numbers as a configuration writes them: ASCII digits in base 10, a sign, and for a decimal a fraction and an
 * exponent ({@code 0.05}, {@code 5e-2}). Java's own parsers take more: {@code Double.parseDouble} a type suffix
 * ({@code 0.05d}, {@code 0.05f}), hex ({@code 0x1p-4}), {@code NaN} and {@code Infinity}; {@code Long.parseLong}
 * digits of any script ({@code ٥}); {@code Long.decode} hex and octal ({@code 010} is 8). A value that reads as
 * something else in another tool, or only as a Java literal, is refused by the caller, naming the key.
 */
final class Numbers {

    private static final Pattern WHOLE = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");

    private Numbers() {
    }

    /** The whole number {@code text} writes, or null when it writes none or one beyond a long. */
    static Long wholeOrNull(String text) {
        if (text == null || !WHOLE.matcher(text).matches()) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) { // beyond a long
            return null;
        }
    }

    /** The decimal number {@code text} writes, or null when it writes none or one beyond a double. */
    static Double decimalOrNull(String text) {
        if (text == null || !DECIMAL.matcher(text).matches()) {
            return null;
        }
        double d = Double.parseDouble(text);
        return Double.isInfinite(d) ? null : d;
    }
}
