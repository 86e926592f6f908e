package io.fairslice.probe;

/**
 * One reading of system-wide scheduler signals: a caller-owned, reusable holder. Unsupported values are
 * {@link Double#NaN} or {@link ThreadStats#UNSUPPORTED}, never invented.
 */
public final class SystemStats {

    private double cpuPressureSomeAvg10 = Double.NaN;
    private long cpuPressureSomeTotalMicros = ThreadStats.UNSUPPORTED;
    private double load1 = Double.NaN;
    private long runnable = ThreadStats.UNSUPPORTED;
    private long cgroupPeriods = ThreadStats.UNSUPPORTED;
    private long cgroupThrottledPeriods = ThreadStats.UNSUPPORTED;
    private long cgroupThrottledMicros = ThreadStats.UNSUPPORTED;

    /** PSI "some" CPU pressure over 10 s as a ratio 0..1 (Linux), NaN elsewhere. */
    public double cpuPressureSomeAvg10() {
        return cpuPressureSomeAvg10;
    }

    /** PSI "some" CPU stall time, cumulative microseconds. */
    public long cpuPressureSomeTotalMicros() {
        return cpuPressureSomeTotalMicros;
    }

    /** 1-minute load average. */
    public double load1() {
        return load1;
    }

    /** Runnable tasks right now. */
    public long runnable() {
        return runnable;
    }

    /** CFS bandwidth periods of this process's cgroup (0 when no quota is set). */
    public long cgroupPeriods() {
        return cgroupPeriods;
    }

    /** Throttled periods of this process's cgroup. */
    public long cgroupThrottledPeriods() {
        return cgroupThrottledPeriods;
    }

    /** Time this process's cgroup was throttled, cumulative microseconds. */
    public long cgroupThrottledMicros() {
        return cgroupThrottledMicros;
    }

    /**
     * For probe implementations. A cumulative value this reading lacks ({@link ThreadStats#UNSUPPORTED}) keeps the
     * one read before: its counter would have fallen to 0, a reset to Prometheus, and risen again with the next reading.
     */
    public SystemStats setPressure(double someAvg10Ratio, long someTotalMicros) {
        this.cpuPressureSomeAvg10 = someAvg10Ratio;
        this.cpuPressureSomeTotalMicros = cumulative(cpuPressureSomeTotalMicros, someTotalMicros);
        return this;
    }

    /** For probe implementations. */
    public SystemStats setLoad(double load1, long runnable) {
        this.load1 = load1;
        this.runnable = runnable;
        return this;
    }

    /** For probe implementations; a cumulative value this reading lacks keeps the one before, as in setPressure. */
    public SystemStats setCgroup(long periods, long throttledPeriods, long throttledMicros) {
        this.cgroupPeriods = cumulative(cgroupPeriods, periods);
        this.cgroupThrottledPeriods = cumulative(cgroupThrottledPeriods, throttledPeriods);
        this.cgroupThrottledMicros = cumulative(cgroupThrottledMicros, throttledMicros);
        return this;
    }

    private static long cumulative(long before, long now) {
        return ThreadStats.isSupported(now) ? now : before;
    }

    /** A new holder with this one's values. */
    public SystemStats copy() {
        return new SystemStats().setPressure(cpuPressureSomeAvg10, cpuPressureSomeTotalMicros).setLoad(load1, runnable)
                .setCgroup(cgroupPeriods, cgroupThrottledPeriods, cgroupThrottledMicros);
    }

    @Override
    public String toString() {
        return "SystemStats{cpuPressureSomeAvg10=" + cpuPressureSomeAvg10 + ", cpuPressureSomeTotalMicros="
                + cpuPressureSomeTotalMicros + ", load1=" + load1 + ", runnable=" + runnable + ", cgroupPeriods="
                + cgroupPeriods + ", cgroupThrottledPeriods=" + cgroupThrottledPeriods
                + ", cgroupThrottledMicros=" + cgroupThrottledMicros + '}';
    }
}
