package io.fairslice.probe;

import io.fairslice.probe.internal.Durations;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The kernel probe's settings, immutable and validated when built. As middleware configuration keys they are
 * {@code kernel-probe.<setting>} (system properties {@code -Dfairslice.kernel-probe.<setting>}):
 * <ul>
 *   <li>{@code enabled}: {@code true} (default) or {@code false};</li>
 *   <li>{@code interval}: the sampler's interval, default {@code 1s}, from {@code 100ms} to {@code 60s}; run-queue
 *       wait is credited late, so short intervals give noisy rates;</li>
 *   <li>{@code nice.<class>}: the nice value (-20..19) a worker thread gets while it serves {@code <class>};</li>
 *   <li>{@code slice.<class>}: the EEVDF slice (0.1ms..100ms, Linux 6.12+) a worker thread gets while it serves
 *       {@code <class>}.</li>
 * </ul>
 * Actuated values are applied when the thread enters a request of the class and restored when it exits.
 */
public final class KernelProbeConfig {

    public static final boolean DEFAULT_ENABLED = true;
    public static final long DEFAULT_INTERVAL_NANOS = 1_000_000_000L;
    public static final long MIN_INTERVAL_NANOS = 100_000_000L;
    public static final long MAX_INTERVAL_NANOS = 60_000_000_000L;
    public static final long MIN_SLICE_NANOS = 100_000L;
    public static final long MAX_SLICE_NANOS = 100_000_000L;
    public static final int MIN_NICE = -20;
    public static final int MAX_NICE = 19;

    private static final String INTERVAL_RANGE = "from 100ms to 60s";
    private static final String SLICE_RANGE = "from 0.1ms to 100ms";

    static final String KEY_ENABLED = "enabled";
    static final String KEY_INTERVAL = "interval";
    static final String PREFIX_NICE = "nice.";
    static final String PREFIX_SLICE = "slice.";

    /**
     * The setting names for {@code RequestListener.settingNames()}: a name ending in {@code .*} declares every
     * setting below it ({@code nice.heavy}, {@code slice.light}), the middleware's convention for per-class settings.
     */
    public static final Set<String> SETTING_NAMES = Set.of(KEY_ENABLED, KEY_INTERVAL, PREFIX_NICE + "*",
            PREFIX_SLICE + "*");

    private final boolean enabled;
    private final long intervalNanos;
    private final Map<String, Integer> nice;
    private final Map<String, Long> sliceNanos;

    private KernelProbeConfig(Builder b) {
        this.enabled = b.enabled;
        this.intervalNanos = b.intervalNanos;
        this.nice = Collections.unmodifiableMap(new LinkedHashMap<>(b.nice));
        this.sliceNanos = Collections.unmodifiableMap(new LinkedHashMap<>(b.sliceNanos));
    }

    public static KernelProbeConfig ofDefaults() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    public static Builder from(KernelProbeConfig base) {
        Builder b = new Builder();
        b.enabled = base.enabled;
        b.intervalNanos = base.intervalNanos;
        b.nice.putAll(base.nice);
        b.sliceNanos.putAll(base.sliceNanos);
        return b;
    }

    /**
     * Parses middleware settings (keys without the {@code kernel-probe.} prefix). Unknown keys, bad values and
     * actuators for classes not in {@code requestClasses} are {@link IllegalArgumentException}s naming the key, the
     * rule and the value.
     */
    public static KernelProbeConfig fromSettings(Map<String, String> settings, List<String> requestClasses) {
        Builder b = custom();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue().trim();
            String full = "kernel-probe." + key;
            if (key.equals(KEY_ENABLED)) {
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException(full + " must be true or false, got '" + value + "'");
                }
                b.enabled(Boolean.parseBoolean(value)); // any case, as the middleware's own booleans
            } else if (key.equals(KEY_INTERVAL)) {
                b.intervalNanos(full, Durations.parseNanos(full, value, INTERVAL_RANGE));
            } else if (key.startsWith(PREFIX_NICE)) {
                String cls = checkClass(full, key.substring(PREFIX_NICE.length()), requestClasses);
                int n;
                try {
                    n = Integer.parseInt(value);
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(full + " must be an integer nice value from " + MIN_NICE
                            + " to " + MAX_NICE + ", got '" + value + "'", ex);
                }
                b.nice(full, cls, n);
            } else if (key.startsWith(PREFIX_SLICE)) {
                String cls = checkClass(full, key.substring(PREFIX_SLICE.length()), requestClasses);
                b.slice(full, cls, Durations.parseNanos(full, value, SLICE_RANGE));
            } else {
                throw new IllegalArgumentException("unknown kernel probe setting " + full
                        + " (known: enabled, interval,"
                        + " nice.<class>, slice.<class>)");
            }
        }
        return b.build();
    }

    private static String checkClass(String key, String cls, List<String> requestClasses) {
        if (!requestClasses.contains(cls)) {
            throw new IllegalArgumentException(key + " names request class '" + cls + "', which is not configured "
                    + "(configured: " + requestClasses + ")");
        }
        return cls;
    }

    public boolean enabled() {
        return enabled;
    }

    public long intervalNanos() {
        return intervalNanos;
    }

    /** Nice value per request class, for the classes that have one. */
    public Map<String, Integer> nice() {
        return nice;
    }

    /** EEVDF slice in nanoseconds per request class, for the classes that have one. */
    public Map<String, Long> sliceNanos() {
        return sliceNanos;
    }

    /** True if any class has an actuator. */
    public boolean hasActuators() {
        return !nice.isEmpty() || !sliceNanos.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KernelProbeConfig)) {
            return false;
        }
        KernelProbeConfig c = (KernelProbeConfig) o;
        return enabled == c.enabled && intervalNanos == c.intervalNanos && nice.equals(c.nice)
                && sliceNanos.equals(c.sliceNanos);
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, intervalNanos, nice, sliceNanos);
    }

    @Override
    public String toString() {
        return "KernelProbeConfig{enabled=" + enabled + ", interval=" + Durations.format(intervalNanos) + ", nice="
                + nice + ", slice=" + sliceNanos + '}';
    }

    /** Builds a {@link KernelProbeConfig}; each setter validates its value. */
    public static final class Builder {
        private boolean enabled = DEFAULT_ENABLED;
        private long intervalNanos = DEFAULT_INTERVAL_NANOS;
        private final Map<String, Integer> nice = new LinkedHashMap<>();
        private final Map<String, Long> sliceNanos = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder intervalNanos(long nanos) {
            return intervalNanos("kernel-probe.interval", nanos);
        }

        private Builder intervalNanos(String key, long nanos) {
            if (nanos < MIN_INTERVAL_NANOS || nanos > MAX_INTERVAL_NANOS) {
                throw new IllegalArgumentException(key + " must be " + INTERVAL_RANGE + ", got "
                        + Durations.format(nanos));
            }
            this.intervalNanos = nanos;
            return this;
        }

        public Builder nice(String requestClass, int value) {
            return nice("kernel-probe.nice." + requestClass, requestClass, value);
        }

        private Builder nice(String key, String requestClass, int value) {
            if (value < MIN_NICE || value > MAX_NICE) {
                throw new IllegalArgumentException(key + " must be a nice value from " + MIN_NICE + " to " + MAX_NICE
                        + ", got " + value);
            }
            nice.put(requestClass, value);
            return this;
        }

        public Builder sliceNanos(String requestClass, long nanos) {
            return slice("kernel-probe.slice." + requestClass, requestClass, nanos);
        }

        private Builder slice(String key, String requestClass, long nanos) {
            if (nanos < MIN_SLICE_NANOS || nanos > MAX_SLICE_NANOS) {
                throw new IllegalArgumentException(key + " must be an EEVDF slice " + SLICE_RANGE + " (the kernel's "
                        + "range), got " + Durations.format(nanos));
            }
            sliceNanos.put(requestClass, nanos);
            return this;
        }

        public KernelProbeConfig build() {
            return new KernelProbeConfig(this);
        }
    }
}
