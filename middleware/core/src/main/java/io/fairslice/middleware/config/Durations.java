package io.fairslice.middleware.config;

import java.time.Duration;
import java.util.Locale;

/** Parses and prints durations such as {@code 500us}, {@code 5ms}, {@code 2s}, {@code 1m}: a number and a unit. */
public final class Durations {

    private Durations() {
    }

    /** Parses {@code text}; returns null when it is not a duration (the caller names the key in its error). */
    public static Duration parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && (t.charAt(i) >= '0' && t.charAt(i) <= '9' || t.charAt(i) == '.')) {
            i++;
        }
        Double amount = i == t.length() ? null : Numbers.decimalOrNull(t.substring(0, i));
        if (amount == null) {
            return null;
        }
        double nanosPerUnit = switch (t.substring(i).trim()) {
            case "ns" -> 1;
            case "us", "µs" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m", "min" -> 60e9;
            case "h" -> 3600e9;
            default -> -1;
        };
        if (nanosPerUnit < 0 || amount * nanosPerUnit > Long.MAX_VALUE / 2.0) {
            return null;
        }
        return Duration.ofNanos(Math.round(amount * nanosPerUnit));
    }

    /** The shortest exact form: {@code 5ms}, {@code 250us}, {@code 30s}. */
    public static String format(Duration d) {
        long n = d.toNanos();
        if (n != 0 && n % 3_600_000_000_000L == 0) {
            return n / 3_600_000_000_000L + "h";
        }
        if (n != 0 && n % 60_000_000_000L == 0) {
            return n / 60_000_000_000L + "m";
        }
        if (n != 0 && n % 1_000_000_000L == 0) {
            return n / 1_000_000_000L + "s";
        }
        if (n != 0 && n % 1_000_000L == 0) {
            return n / 1_000_000L + "ms";
        }
        if (n != 0 && n % 1_000L == 0) {
            return n / 1_000L + "us";
        }
        return n + "ns";
    }
}
