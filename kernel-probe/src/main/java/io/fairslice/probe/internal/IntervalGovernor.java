package io.fairslice.probe.internal;

/**
 * Decides the sampler's next interval from what the last samples cost, so that the sampler stays under a CPU budget
 * (1 % of one CPU by default). Pure arithmetic over a smoothed cost: no clock, no thread, easy to test.
 */
public final class IntervalGovernor {

    /** The sampler may use this share of one CPU. */
    public static final double DEFAULT_BUDGET = 0.01;
    /** Aim below the budget so that noise does not push the cost over it. */
    private static final double HEADROOM = 0.8;

    private final long configuredNanos;
    private final long maxNanos;
    private final double budget;
    private double smoothedCostNanos = -1;
    private long intervalNanos;

    public IntervalGovernor(long configuredNanos, long maxNanos, double budget) {
        if (configuredNanos <= 0 || maxNanos < configuredNanos || !(budget > 0 && budget < 1)) {
            throw new IllegalArgumentException("IntervalGovernor needs 0 < configured <= max and 0 < budget < 1, got "
                    + configuredNanos + ", " + maxNanos + ", " + budget);
        }
        this.configuredNanos = configuredNanos;
        this.maxNanos = maxNanos;
        this.budget = budget;
        this.intervalNanos = configuredNanos;
    }

    /**
     * Records that one sample cost {@code costNanos} of CPU and returns the interval to wait before the next:
     * the configured one while it keeps the cost within budget, otherwise the shortest that does (up to the maximum).
     */
    public long onSample(long costNanos) {
        double cost = Math.max(0, costNanos);
        // a sudden expensive sample counts fully at once; cheaper ones bring the average down slowly
        smoothedCostNanos = smoothedCostNanos < 0 || cost > smoothedCostNanos
                ? cost : smoothedCostNanos * 0.7 + cost * 0.3;
        double needed = smoothedCostNanos / (budget * HEADROOM);
        intervalNanos = (long) Math.min(maxNanos, Math.max(configuredNanos, Math.ceil(needed)));
        return intervalNanos;
    }

    /** The interval the last {@link #onSample} returned (the configured one before any). */
    public long intervalNanos() {
        return intervalNanos;
    }

    /** The smoothed cost of one sample, nanoseconds of CPU; 0 before any. */
    public double smoothedCostNanos() {
        return Math.max(0, smoothedCostNanos);
    }
}
