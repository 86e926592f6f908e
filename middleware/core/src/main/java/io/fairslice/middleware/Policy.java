package io.fairslice.middleware;

import io.fairslice.middleware.metrics.MeterNames;
import java.util.Locale;

/** The scheduling policies; chosen by the {@code policy} key and switchable at runtime. */
public enum Policy {
    /** Measure and export only: nothing waits, nothing is rejected. */
    OBSERVE(MeterNames.POLICY_OBSERVE),
    /** The 2005 study's proposal: a request of a sleeping class that has run for a quantum sleeps for a while. */
    SLEEP(MeterNames.POLICY_SLEEP),
    /** Class CPU shares: a class over its share waits while others compete (the default). */
    SHARE(MeterNames.POLICY_SHARE);

    private final String value;

    Policy(String value) {
        this.value = value;
    }

    /** The configuration value and metric tag value. */
    public String value() {
        return value;
    }

    /** The policy named {@code text} (case-insensitive), or null. */
    public static Policy ofValue(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (Policy p : values()) {
            if (p.value.equals(t)) {
                return p;
            }
        }
        return null;
    }
}
