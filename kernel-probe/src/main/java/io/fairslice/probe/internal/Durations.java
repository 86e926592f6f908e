package io.fairslice.probe.internal;

import java.time.Duration;

/**
 * The probe's duration settings in nanoseconds. The grammar is the middleware's
 * ({@link io.fairslice.middleware.config.Durations}: a number and a unit, {@code 250ns}, {@code 100us},
 * {@code 1.5ms}, {@code 2s}, {@code 1m}, {@code 1h}), so every fairslice setting reads a duration the same way; this
 * only adds the probe's error message, which names the key.
 */
public final class Durations {

    private Durations() {
    }

    /**
     * The duration in nanoseconds; {@link IllegalArgumentException} naming {@code key}, the {@code range} the caller
     * checks next ("from 100ms to 60s") and the value when it has no unit, an unknown unit or no number, or is too
     * large for a duration ({@code 100000000h}: it has a unit, so only the range says what is wrong with it).
     */
    public static long parseNanos(String key, String value, String range) {
        Duration d = io.fairslice.middleware.config.Durations.parseOrNull(value);
        if (d == null) {
            throw new IllegalArgumentException(key + " must be a duration with a unit (ns, us, ms, s, m, h) " + range
                    + ", such as 1s, got '" + value + "'");
        }
        return d.toNanos();
    }

    /** {@code 1500us}-style text for a nanosecond value: the shortest exact form. */
    public static String format(long nanos) {
        return io.fairslice.middleware.config.Durations.format(Duration.ofNanos(nanos));
    }
}
