package io.fairslice.probe.internal;

import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The probe's one daemon thread: every interval it checkpoints the tracked threads ({@link Attribution#sample}),
 * reads the system signals, and turns the per-class totals into rates over the interval. It measures its own CPU
 * time and lengthens its interval ({@link IntervalGovernor}) to stay under 1 % of a CPU. {@link #stop} ends it.
 *
 * <p>Published values are plain volatile fields written by this thread only; gauges read them and never throw.
 */
public final class Sampler {

    public static final String THREAD_NAME = "fairslice-kernel-probe-sampler";

    private final Attribution attribution;
    private final KernelProbe probe;
    private final IntervalGovernor governor;
    private final Consumer<String> warnings;
    private final LongSupplier nanoClock;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ThreadStats scratch = new ThreadStats();
    private final SystemStats system = new SystemStats(); // the probe reads into this one, gauges see copies
    private final int classes;
    private final long[] lastRun;
    private final long[] lastWait;
    private final long[] lastDispatches;
    private final long[] lastVoluntary;
    private final long[] lastInvoluntary;
    private long lastTickNanos;
    /** A tick was seen and lastTickNanos is its time (nanoTime may read 0 or less: no value of it can mean "none"). */
    private boolean ticked;
    private Thread thread;
    private volatile boolean running;
    /** Run on the sampler's thread once it has failed, after its warning; null: nothing to do. */
    private volatile Runnable whenFailed;
    /** Set as the sampler fails, before {@link #whenFailed} is read: an action set after that runs at once. */
    private volatile boolean failed;

    // published for gauges (NaN until two ticks have been seen)
    private volatile double[] effectiveSliceSeconds;
    private volatile double[] waitPerDispatchSeconds;
    private volatile double[] waitPerSecond;
    private volatile double[] voluntaryPerSecond;
    private volatile double[] involuntaryPerSecond;
    private volatile SystemStats publishedSystem; // a copy of system, never changed once published
    private volatile double costRatio;
    private volatile long lastSampleCostNanos;
    private volatile long ticks;

    public Sampler(Attribution attribution, KernelProbe probe, long intervalNanos, long maxIntervalNanos,
            Consumer<String> warnings) {
        this(attribution, probe, intervalNanos, maxIntervalNanos, warnings, System::nanoTime);
    }

    /** With a chosen wall clock ({@link System#nanoTime} in production): tests give the ticks' intervals. */
    Sampler(Attribution attribution, KernelProbe probe, long intervalNanos, long maxIntervalNanos,
            Consumer<String> warnings, LongSupplier nanoClock) {
        this.attribution = attribution;
        this.nanoClock = nanoClock;
        this.probe = probe;
        this.governor = new IntervalGovernor(intervalNanos, maxIntervalNanos, IntervalGovernor.DEFAULT_BUDGET);
        this.warnings = warnings;
        this.classes = attribution.classNames().size();
        lastRun = new long[classes];
        lastWait = new long[classes];
        lastDispatches = new long[classes];
        lastVoluntary = new long[classes];
        lastInvoluntary = new long[classes];
        publishNoRates();
        // a first system reading so that the binder knows which signals this machine has
        probe.readSystem(system);
        publishSystem();
    }

    /** Starts the daemon thread. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        running = true;
        failed = false; // started again (the listener never does): a whenFailed action waits for a new failure
        thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
        thread.setContextClassLoader(null); // keep no web application class loader alive through this thread
        thread.start();
    }

    /**
     * What to do once the sampler has failed and stopped (after its warning, on its thread): the meter binder removes
     * the system counters, which nothing reads any more. One action, the last set; set after the sampler failed, it
     * runs at once, on the caller's thread (it may then run twice: it must not mind).
     */
    public void whenFailed(Runnable action) {
        whenFailed = action;
        if (failed && action != null) {
            runFailedAction(action);
        }
    }

    /** Ends the thread and waits (bounded) for it. */
    public synchronized void stop() {
        running = false;
        Thread t = thread;
        thread = null;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try {
            tick(); // baseline
            while (running) {
                try {
                    long nanos = governor.intervalNanos();
                    Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
                } catch (InterruptedException e) {
                    break;
                }
                tick();
            }
        } catch (RuntimeException | LinkageError e) { // the first tick's too: a sampler never ends unsaid
            publishStopped();
            failed = true;
            Runnable action = whenFailed;
            warnings.accept("fairslice kernel probe: the sampler failed and stopped, requests are unaffected: " + e
                    + "; its rate, pressure, load and cost gauges read NaN (no value) from now on, "
                    + (action == null ? "" : "its system counters (PSI stall, cgroup) are removed, ")
                    + "and the per-class counters go on with the requests' own readings only");
            if (action != null) {
                runFailedAction(action);
            }
        }
    }

    /** Runs {@link #whenFailed}'s action; one that throws is said, not thrown (the sampler has stopped already). */
    private void runFailedAction(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException | LinkageError e) {
            warnings.accept("fairslice kernel probe: removing the stopped sampler's system counters failed: " + e);
        }
    }

    /** Every class's interval gauges: NaN, no interval seen (yet, or any longer). */
    private void publishNoRates() {
        double[] nan = new double[classes];
        Arrays.fill(nan, Double.NaN);
        publish(nan, nan, nan, nan, nan);
    }

    /** Publishes each class's interval gauges, per class: slice, wait per dispatch and per second, switch rates. */
    private void publish(double[] eff, double[] wpd, double[] wps, double[] vps, double[] ips) {
        effectiveSliceSeconds = eff;
        waitPerDispatchSeconds = wpd;
        waitPerSecond = wps;
        voluntaryPerSecond = vps;
        involuntaryPerSecond = ips;
    }

    /**
     * After the sampler failed: the gauges of a rate or level over its interval read NaN (a gap in a panel; dropped by
     * a comparison), where they kept the last interval's values as if current (one warning said it had stopped). The
     * cumulative system counters keep their last readings here (a counter that fell would read as a restart): their
     * meters go ({@link #whenFailed}).
     */
    private void publishStopped() {
        publishNoRates();
        publishedSystem = system.copy().setPressure(Double.NaN, ThreadStats.UNSUPPORTED)
                .setLoad(Double.NaN, ThreadStats.UNSUPPORTED);
        costRatio = Double.NaN;
    }

    /** One sample: visible for tests, which drive it directly instead of waiting for the thread. */
    public void tick() {
        long cpuBefore = threadCpuNanos();
        long wallBefore = nanoClock.getAsLong();
        attribution.sample(scratch);
        probe.readSystem(system);
        publishSystem();
        long now = nanoClock.getAsLong();
        publishRates(ticked ? (now - lastTickNanos) / 1e9 : Double.NaN);
        long cpuAfter = threadCpuNanos();
        long cost = cpuBefore >= 0 && cpuAfter >= 0 ? cpuAfter - cpuBefore : nanoClock.getAsLong() - wallBefore;
        if (ticked) {
            costRatio = (double) cost / Math.max(1, now - lastTickNanos);
        }
        lastSampleCostNanos = cost;
        lastTickNanos = now;
        ticked = true;
        governor.onSample(cost);
        ticks++;
    }

    /**
     * Publishes each class's rates over the interval of {@code seconds} (NaN: no interval yet, the first tick) and
     * keeps the totals for the next one. Each total is read once: request threads add to them meanwhile, and what they
     * added between a read for the rates and a second read kept for the next interval would count in neither.
     */
    private void publishRates(double seconds) {
        double[] eff = new double[classes];
        double[] wpd = new double[classes];
        double[] wps = new double[classes];
        double[] vps = new double[classes];
        double[] ips = new double[classes];
        for (int i = 0; i < classes; i++) {
            ClassTotals t = attribution.totals(i);
            long runTotal = t.runNanos.sum();
            long waitTotal = t.waitNanos.sum();
            long dispatchTotal = t.dispatches.sum();
            long voluntaryTotal = t.voluntary.sum();
            long involuntaryTotal = t.involuntary.sum();
            long run = runTotal - lastRun[i];
            long wait = waitTotal - lastWait[i];
            long disp = dispatchTotal - lastDispatches[i];
            eff[i] = disp > 0 ? run / 1e9 / disp : Double.NaN;
            wpd[i] = disp > 0 ? wait / 1e9 / disp : Double.NaN;
            wps[i] = seconds > 0 ? wait / 1e9 / seconds : Double.NaN;
            vps[i] = seconds > 0 ? (voluntaryTotal - lastVoluntary[i]) / seconds : Double.NaN;
            ips[i] = seconds > 0 ? (involuntaryTotal - lastInvoluntary[i]) / seconds : Double.NaN;
            lastRun[i] = runTotal;
            lastWait[i] = waitTotal;
            lastDispatches[i] = dispatchTotal;
            lastVoluntary[i] = voluntaryTotal;
            lastInvoluntary[i] = involuntaryTotal;
        }
        if (!Double.isNaN(seconds)) {
            publish(eff, wpd, wps, vps, ips);
        }
    }

    private void publishSystem() {
        publishedSystem = system.copy();
    }

    private long threadCpuNanos() {
        try {
            return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    public double effectiveSliceSeconds(int classIndex) {
        return effectiveSliceSeconds[classIndex];
    }

    public double waitPerDispatchSeconds(int classIndex) {
        return waitPerDispatchSeconds[classIndex];
    }

    public double waitPerSecond(int classIndex) {
        return waitPerSecond[classIndex];
    }

    public double voluntaryPerSecond(int classIndex) {
        return voluntaryPerSecond[classIndex];
    }

    public double involuntaryPerSecond(int classIndex) {
        return involuntaryPerSecond[classIndex];
    }

    /** The system signals of the last sample: a holder nobody changes, safe to read from any thread. */
    public SystemStats system() {
        return publishedSystem;
    }

    /** CPU the sampler used per second of wall time over its last interval. */
    public double costRatio() {
        return costRatio;
    }

    /** CPU nanoseconds the last sample took. */
    public long lastSampleCostNanos() {
        return lastSampleCostNanos;
    }

    public long intervalNanos() {
        return governor.intervalNanos();
    }

    public long ticks() {
        return ticks;
    }

    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }
}
