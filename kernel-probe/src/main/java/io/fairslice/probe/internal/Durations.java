package io.fairslice.probe.internal;

import java.util.Locale;

/** Parses durations written as a number and a unit: {@code 250ns}, {@code 100us}, {@code 1.5ms}, {@code 2s}, {@code 1m}. */
public final class Durations {

    private Durations() {
    }

    /**
     * The duration in nanoseconds; {@link IllegalArgumentException} naming {@code key} and the value when it has no
     * unit, an unknown unit or no number.
     */
    public static long parseNanos(String key, String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < v.length() && (Character.isDigit(v.charAt(i)) || v.charAt(i) == '.')) {
            i++;
        }
        String number = v.substring(0, i);
        String unit = v.substring(i).trim();
        long scale;
        switch (unit) {
            case "ns": scale = 1L; break;
            case "us": scale = 1_000L; break;
            case "ms": scale = 1_000_000L; break;
            case "s": scale = 1_000_000_000L; break;
            case "m": scale = 60_000_000_000L; break;
            default:
                throw new IllegalArgumentException(key + " must be a duration with a unit (ns, us, ms, s, m) such as "
                        + "1ms or 1s, got '" + value + "'");
        }
        try {
            return Math.round(Double.parseDouble(number) * scale);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a duration such as 1ms or 1s, got '" + value + "'", e);
        }
    }

    /** {@code 1.5ms}-style text for a nanosecond value. */
    public static String format(long nanos) {
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        }
        if (nanos % 1_000L == 0) {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }
}
