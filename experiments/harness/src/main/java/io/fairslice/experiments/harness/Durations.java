package io.fairslice.experiments.harness;

import java.time.Duration;
import java.util.Locale;

/** Durations as people write them: {@code 250ms}, {@code 20s}, {@code 2m}, {@code 1h}. */
final class Durations {

    private Durations() {
    }

    static Duration parse(String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            long unit;
            if (v.endsWith("s")) {
                unit = 1000;
            } else if (v.endsWith("m")) {
                unit = 60_000;
            } else if (v.endsWith("h")) {
                unit = 3_600_000;
            } else {
                throw new IllegalArgumentException("a duration needs a unit (ms, s, m, h): '" + text + "'");
            }
            double value = Double.parseDouble(v.substring(0, v.length() - 1).trim());
            if (value < 0 || Double.isNaN(value)) {
                throw new IllegalArgumentException("negative duration: '" + text + "'");
            }
            return Duration.ofMillis(Math.round(value * unit));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: '" + text + "'", e);
        }
    }

    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        return s >= 60 && s % 60 == 0 ? (s / 60) + "m" : s + "s";
    }

    /** For progress lines: {@code 4m05s}. */
    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60)
                : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
}
