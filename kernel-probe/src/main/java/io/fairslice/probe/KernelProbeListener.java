package io.fairslice.probe;

import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.spi.ListenerContext;
import io.fairslice.middleware.spi.RequestListener;
import io.fairslice.probe.internal.Attribution;
import io.fairslice.probe.internal.NoOpKernelProbe;
import io.fairslice.probe.internal.Sampler;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The middleware's view of the kernel probe ({@code META-INF/services}): the middleware calls {@link #enter} and
 * {@link #exit} on the worker thread around each request, {@link #taskEnter} and {@link #taskExit} on an executor's
 * thread around a task of a request, and {@link #move} when the request (or task) changes class; the probe attributes
 * that thread's scheduler counters to the request class, applies the configured per-class nice and slice, and
 * publishes {@link ProbeMeterNames} to the middleware's registry (a task is no request: its thread's counters go to
 * the class, but the per-request summaries do not record it). Settings: {@link KernelProbeConfig}.
 *
 * <p>Never breaks a request: without a working probe (unsupported OS, failed self-check) enter and exit return at
 * once after one warning; an unexpected exception disables the listener with one warning. Bad settings, and
 * actuators that cannot work here, fail {@link #start} with an {@link IllegalArgumentException} naming the key; so
 * does a meter the registry refuses, once the probe's other meters are removed and the probe closed.
 */
public final class KernelProbeListener implements RequestListener {

    public static final String NAME = "kernel-probe";
    private static final System.Logger LOG = Loggers.system(KernelProbeListener.class);

    private final Function<Consumer<String>, KernelProbe> probeFactory;
    private final Consumer<String> warnings;
    private final AtomicBoolean failed = new AtomicBoolean();
    private volatile Attribution attribution;
    /** The attribution {@link #start} made, kept for {@link #stop} also after {@link #fail} took it off requests. */
    private Attribution started;
    private KernelProbe probe;
    private Sampler sampler;
    private KernelProbeMetrics metrics;
    private KernelProbeConfig config;

    /** For {@link java.util.ServiceLoader}: the probe for this OS, warnings to the JDK's platform logger. */
    public KernelProbeListener() {
        this(w -> KernelProbes.create(System.getProperty("os.name", ""), Path.of("/proc"), w),
                KernelProbeListener::log);
    }

    /** With a chosen probe factory (given the warning sink) and warning sink: for tests and embedding. */
    public KernelProbeListener(Function<Consumer<String>, KernelProbe> probeFactory, Consumer<String> warnings) {
        this.probeFactory = probeFactory;
        this.warnings = warnings;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> settingNames() {
        return KernelProbeConfig.SETTING_NAMES;
    }

    /**
     * The settings' rules, no actuator with the probe off, and no request class named {@code none} with it on;
     * whether this platform can apply them is start's.
     */
    @Override
    public void check(Map<String, String> settings, List<String> requestClasses) {
        checked(settings, requestClasses);
    }

    private static KernelProbeConfig checked(Map<String, String> settings, List<String> requestClasses) {
        KernelProbeConfig cfg = KernelProbeConfig.fromSettings(settings, requestClasses);
        if (!cfg.enabled() && cfg.hasActuators()) { // they would silently do nothing
            throw new IllegalArgumentException(firstActuatorKey(cfg) + " is set, but kernel-probe.enabled is "
                    + "false: the per-class nice and slice act through the probe; set kernel-probe.enabled=true");
        }
        // its meters would be idle's; refused on every platform, also where the probe cannot run (macOS, no JNA), so
        // that a configuration starts everywhere or nowhere
        if (cfg.enabled() && requestClasses.contains(ProbeMeterNames.CLASS_NONE)) {
            throw new IllegalArgumentException("classes names a request class '" + ProbeMeterNames.CLASS_NONE
                    + "', but '" + ProbeMeterNames.CLASS_NONE + "' is the kernel probe's name for a worker thread's "
                    + "time outside requests (its class tag): rename the class, or turn the kernel probe off "
                    + "(classes: " + requestClasses + ")");
        }
        return cfg;
    }

    @Override
    public synchronized boolean start(ListenerContext context) {
        KernelProbeConfig cfg = checked(context.settings(), context.requestClasses());
        this.config = cfg;
        if (!cfg.enabled()) {
            return false;
        }
        KernelProbe p = probeFactory.apply(warnings);
        if (!p.isOperational()) {
            if (cfg.hasActuators()) {
                throw new IllegalArgumentException(firstActuatorKey(cfg) + " is set, but the kernel probe cannot run "
                        + "here: " + (p instanceof NoOpKernelProbe ? ((NoOpKernelProbe) p).reason() : p.platform()));
            }
            return false; // the probe said why (one warning)
        }
        try {
            checkActuators(cfg, p);
        } catch (IllegalArgumentException e) {
            p.close();
            throw e;
        }
        Attribution a = new Attribution(p, context.requestClasses(), ProbeMeterNames.CLASS_NONE, cfg.nice(),
                cfg.sliceNanos(), warnings);
        Sampler s = new Sampler(a, p, cfg.intervalNanos(), KernelProbeConfig.MAX_INTERVAL_NANOS, warnings);
        KernelProbeMetrics m = new KernelProbeMetrics(a, s, context.application());
        if (context.meterRegistry() != null) {
            try {
                m.bindTo(context.meterRegistry()); // removes what it registered if it throws
            } catch (RuntimeException e) {
                p.close();
                // the application does not start, as when the registry refuses the middleware's own meters (an
                // IllegalArgumentException: the middleware runs the application without a listener whose start
                // throws anything else)
                throw new IllegalArgumentException(NAME + ": its meters could not be registered in "
                        + context.meterRegistry().getClass().getSimpleName() + " (" + e.getClass().getSimpleName()
                        + ": " + e.getMessage() + ")", e);
            } catch (Error e) {
                p.close(); // stop() closes only what a start completed
                throw e;
            }
        }
        this.probe = p;
        this.sampler = s;
        this.metrics = m;
        s.start();
        this.started = a;
        this.attribution = a;
        return true;
    }

    @Override
    public void enter(String requestClass) {
        Attribution a = attribution;
        if (a == null) {
            return;
        }
        try {
            a.enter(requestClass);
        } catch (Throwable e) {
            failAndRethrowJvmErrors(e);
        }
    }

    /** A task of a request: its thread's counters go to the class, actuators apply, no request is recorded. */
    @Override
    public void taskEnter(String requestClass) {
        Attribution a = attribution;
        if (a == null) {
            return;
        }
        try {
            a.enterTask(requestClass);
        } catch (Throwable e) {
            failAndRethrowJvmErrors(e);
        }
    }

    @Override
    public void taskExit(String requestClass) {
        exit(requestClass); // entered as a task, it records no request
    }

    @Override
    public void exit(String requestClass) {
        Attribution a = attribution;
        if (a == null) {
            return;
        }
        try {
            a.exit(requestClass);
        } catch (Throwable e) {
            failAndRethrowJvmErrors(e);
        }
    }

    /** The request changed class: one request still, its counters from here on the new class's (not exit + enter). */
    @Override
    public void move(String from, String to) {
        Attribution a = attribution;
        if (a == null) {
            return;
        }
        try {
            a.move(to);
        } catch (Throwable e) {
            failAndRethrowJvmErrors(e);
        }
    }

    @Override
    public synchronized void stop() {
        Attribution a = started;
        attribution = null;
        started = null;
        if (sampler != null) {
            sampler.stop();
        }
        if (metrics != null) {
            metrics.unbind();
        }
        if (a != null) {
            a.close();
        }
        if (probe != null) {
            probe.close();
        }
        sampler = null;
        metrics = null;
        probe = null;
    }

    /** The config {@link #start} accepted; null before. */
    public KernelProbeConfig config() {
        return config;
    }

    /** True between a successful {@link #start} on a working probe and {@link #stop}. */
    public boolean isActive() {
        return attribution != null;
    }

    /** The running sampler, null when inactive (for tests and diagnostics). */
    public Sampler sampler() {
        return sampler;
    }

    /**
     * {@link #fail}, for any throwable (an OutOfMemoryError from a native allocation as well: past the probe, the
     * middleware would take the listener off without this clean-up); the JVM's own errors then go on up.
     */
    private void failAndRethrowJvmErrors(Throwable e) {
        fail(e);
        if (e instanceof VirtualMachineError jvm) {
            throw jvm;
        }
    }

    /**
     * Takes the probe off requests for good. Its attribution is closed at once: the threads serving a request now
     * never reach an exit the probe acts on, so without it they would keep their class's nice or slice for every
     * request after (the sampler and meters stay until {@link #stop}, with nothing more attributed).
     */
    private void fail(Throwable e) {
        if (failed.compareAndSet(false, true)) {
            Attribution a = attribution;
            attribution = null;
            if (a != null) {
                try {
                    a.close(); // gives every thread it tracks its own nice and slice back
                } catch (Throwable closing) {
                    e.addSuppressed(closing);
                }
            }
            warnings.accept("fairslice kernel probe: disabled after an unexpected error, "
                    + (e instanceof VirtualMachineError ? "which fails the request it came in"
                            : "requests are unaffected")
                    + ": " + e);
        }
    }

    /**
     * Actuators are tried once on a throwaway thread: setting and restoring each configured value must work here,
     * or no request would get the behaviour the configuration asks for (restoring a nice value below the current one
     * needs CAP_SYS_NICE or RLIMIT_NICE, for instance).
     */
    private static void checkActuators(KernelProbeConfig cfg, KernelProbe p) {
        if (!cfg.hasActuators()) {
            return;
        }
        ThreadActuator actuator = p.actuator();
        for (Map.Entry<String, Integer> e : cfg.nice().entrySet()) {
            if (!actuator.supportsNice()) {
                throw new IllegalArgumentException("kernel-probe.nice." + e.getKey() + ": the " + p.platform()
                        + " probe has no per-thread nice actuator");
            }
        }
        for (Map.Entry<String, Long> e : cfg.sliceNanos().entrySet()) {
            if (!actuator.supportsSlice()) {
                throw new IllegalArgumentException("kernel-probe.slice." + e.getKey() + ": per-thread EEVDF slices need"
                        + " Linux 6.12 or newer (this is " + System.getProperty("os.name") + " "
                        + System.getProperty("os.version") + ")");
            }
        }
        AtomicReference<String> problem = new AtomicReference<>();
        Thread trial = new Thread(() -> problem.set(tryActuators(cfg, p)), "fairslice-kernel-probe-actuator-check");
        trial.setDaemon(true);
        trial.start();
        try {
            trial.join(10_000);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the kernel probe's actuators", ie);
        }
        if (trial.isAlive()) { // not a pass: nothing was shown to work
            throw new IllegalArgumentException(firstActuatorKey(cfg) + ": the check that the actuators can be applied"
                    + " and restored on this machine did not finish within 10 s");
        }
        if (problem.get() != null) {
            throw new IllegalArgumentException(problem.get());
        }
    }

    private static String tryActuators(KernelProbeConfig cfg, KernelProbe p) {
        ThreadActuator actuator = p.actuator();
        long tid = p.currentThreadId();
        ThreadStats before = new ThreadStats();
        if (!actuator.readScheduling(tid, before)) {
            return firstActuatorKey(cfg) + ": cannot read this thread's scheduling attributes";
        }
        for (Map.Entry<String, Integer> e : cfg.nice().entrySet()) {
            try {
                actuator.setNice(tid, e.getValue());
                actuator.setNice(tid, (int) before.nice());
            } catch (ActuatorException ex) {
                return "kernel-probe.nice." + e.getKey() + "=" + e.getValue() + " cannot be applied and restored on "
                        + "this machine: " + ex.getMessage();
            }
        }
        for (Map.Entry<String, Long> e : cfg.sliceNanos().entrySet()) {
            try {
                if (!actuator.setSlice(tid, e.getValue())) {
                    actuator.readScheduling(tid, before);
                    return "kernel-probe.slice." + e.getKey() + " cannot be applied: the server's threads run under "
                            + before.policy() + ", and only SCHED_OTHER and SCHED_BATCH threads have an EEVDF slice";
                }
                actuator.setSlice(tid, 0);
            } catch (ActuatorException ex) {
                return "kernel-probe.slice." + e.getKey() + " cannot be applied on this machine: " + ex.getMessage();
            }
        }
        return null;
    }

    private static String firstActuatorKey(KernelProbeConfig cfg) {
        return cfg.nice().isEmpty() ? "kernel-probe.slice." + cfg.sliceNanos().keySet().iterator().next()
                : "kernel-probe.nice." + cfg.nice().keySet().iterator().next();
    }

    private static void log(String message) {
        LOG.log(System.Logger.Level.WARNING, message);
    }
}
