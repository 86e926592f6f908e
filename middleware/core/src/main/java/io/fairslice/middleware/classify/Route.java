package io.fairslice.middleware.classify;

/**
 * One entry of the bounded route table: a normalised page and what the adaptive classifier has learnt about it
 * (the EWMA of its requests' own CPU time). Also carries per-route slots the metrics layer fills once (meters are
 * looked up once, not per request).
 */
public final class Route {

    private final String key;
    private final String page;
    private double ewmaCpuNanos;
    private long samples;
    private volatile boolean heavy;
    private volatile long expectedCpuNanos;
    /** Filled by the metrics layer: meters of this route, indexed as it likes; never read by classification. */
    public volatile Object[] meters;

    Route(String key, String page) {
        this.key = key;
        this.page = page;
    }

    /** The normalised path, e.g. {@code /orders/{n}}. */
    public String key() {
        return key;
    }

    /** The metric tag value: the key for the first pages of the table, {@code other} beyond. */
    public String page() {
        return page;
    }

    /** Whether the adaptive classifier currently puts this route in its heavy class. */
    public boolean heavy() {
        return heavy;
    }

    /** The EWMA of this route's CPU per request (ns), or 0 before the first sample. */
    public long expectedCpuNanos() {
        return expectedCpuNanos;
    }

    /**
     * Adds one request's CPU time. Returns +1 when the route just became heavy, -1 when it just became light, 0
     * otherwise. Hysteresis: up above {@code heavyAbove}, down only below {@code lightBelow}.
     */
    public synchronized int record(long cpuNanos, double alpha, int minSamples, long heavyAbove, long lightBelow) {
        ewmaCpuNanos = samples == 0 ? cpuNanos : alpha * cpuNanos + (1 - alpha) * ewmaCpuNanos;
        samples++;
        expectedCpuNanos = (long) ewmaCpuNanos;
        if (!heavy && samples >= minSamples && ewmaCpuNanos > heavyAbove) {
            heavy = true;
            return 1;
        }
        if (heavy && ewmaCpuNanos < lightBelow) {
            heavy = false;
            return -1;
        }
        return 0;
    }

    public synchronized long samples() {
        return samples;
    }

    @Override
    public String toString() {
        return key + (heavy ? " (heavy)" : "") + " ~" + expectedCpuNanos / 1000 + "us";
    }
}
