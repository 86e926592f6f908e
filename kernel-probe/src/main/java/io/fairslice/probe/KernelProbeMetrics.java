package io.fairslice.probe;

import static io.fairslice.probe.ProbeMeterNames.*;

import io.fairslice.probe.internal.Attribution;
import io.fairslice.probe.internal.ClassTotals;
import io.fairslice.probe.internal.Sampler;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Publishes the probe's figures ({@link ProbeMeterNames}) with bounded tags: {@code class} is one of the configured
 * request classes or {@code none}; {@code application} is the web application's context path on every meter, so that
 * the probes of several applications can share one registry (a standalone Tomcat's). Signals the platform does not
 * give (a NaN or unsupported first reading) are not registered. Gauges read values the sampler published and never
 * throw. {@link #unbind} removes every meter this binder registered (web application undeploy), and only those. A
 * sampler that fails takes the system counters with it (PSI stall, cgroup): kept at their last readings, their rates
 * read 0, no pressure, where nothing is measured; removed, their series end, and a rate of them shows no data.
 */
public final class KernelProbeMetrics implements MeterBinder {

    private final Attribution attribution;
    private final Sampler sampler;
    private final Tags application;
    private final List<Meter> meters = new ArrayList<>();
    /** The counters of the sampler's system readings, among {@link #meters}: removed as the sampler fails. */
    private final List<Meter> systemCounters = new ArrayList<>();
    private MeterRegistry registry;

    /** @param application the {@link ProbeMeterNames#TAG_APPLICATION} value: the context path, / for the root */
    public KernelProbeMetrics(Attribution attribution, Sampler sampler, String application) {
        this.attribution = attribution;
        this.sampler = sampler;
        this.application = Tags.of(TAG_APPLICATION, application);
    }

    /**
     * @throws RuntimeException what the registry throws as it refuses a meter (a strict one: Prometheus's, with a
     *                          meter of that name but other tag keys), the meters registered before it removed: left
     *                          there, they would be handed to the next deploy under the same name, still reading this
     *                          probe
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        this.registry = registry;
        try {
            registerAll();
            sampler.whenFailed(this::removeSystemCounters);
        } catch (RuntimeException | Error e) {
            unbind(); // nobody else holds this binder to unbind it
            throw e;
        }
    }

    private void registerAll() {
        List<String> names = attribution.classNames();
        DistributionSummary[] cpu = new DistributionSummary[names.size()];
        DistributionSummary[] vol = new DistributionSummary[names.size()];
        DistributionSummary[] invol = new DistributionSummary[names.size()];
        for (int i = 0; i < names.size(); i++) {
            String cls = names.get(i);
            ClassTotals t = attribution.totals(i);
            int idx = i;
            add(FunctionCounter.builder(RUN_TIME, t, x -> x.runNanos.sum() / 1e9).tags(application)
                    .baseUnit("seconds")
                    .description("CPU time of worker threads serving the class")
                    .tag(TAG_CLASS, cls).register(registry));
            add(FunctionCounter.builder(RUN_QUEUE_WAIT, t, x -> x.waitNanos.sum() / 1e9).tags(application)
                    .baseUnit("seconds")
                    .description("Time worker threads of the class waited for a CPU while runnable")
                    .tag(TAG_CLASS, cls).register(registry));
            add(FunctionCounter.builder(DISPATCHES, t, x -> x.dispatches.sum()).tags(application)
                    .description("Times worker threads of the class were put on a CPU").tag(TAG_CLASS, cls)
                    .register(registry));
            add(FunctionCounter.builder(SWITCHES, t, x -> x.voluntary.sum()).tags(application).tag(TAG_CLASS, cls)
                    .tag(TAG_KIND, KIND_VOLUNTARY).description("Context switches of worker threads of the class")
                    .register(registry));
            add(FunctionCounter.builder(SWITCHES, t, x -> x.involuntary.sum()).tags(application).tag(TAG_CLASS, cls)
                    .tag(TAG_KIND, KIND_INVOLUNTARY).description("Context switches of worker threads of the class")
                    .register(registry));
            gauge(EFFECTIVE_SLICE, cls, null, "seconds", "Run time per dispatch over the last sampler interval",
                    s -> s.effectiveSliceSeconds(idx));
            gauge(RUN_QUEUE_WAIT_PER_DISPATCH, cls, null, "seconds",
                    "Run-queue wait per dispatch over the last sampler interval", s -> s.waitPerDispatchSeconds(idx));
            gauge(RUN_QUEUE_WAIT_RATE, cls, null, null,
                    "Seconds of run-queue wait per second over the last sampler interval", s -> s.waitPerSecond(idx));
            gauge(SWITCH_RATE, cls, KIND_VOLUNTARY, null, "Context switches per second over the last interval",
                    s -> s.voluntaryPerSecond(idx));
            gauge(SWITCH_RATE, cls, KIND_INVOLUNTARY, null, "Context switches per second over the last interval",
                    s -> s.involuntaryPerSecond(idx));
            if (i != attribution.noneIndex()) {
                cpu[i] = add(DistributionSummary.builder(REQUEST_CPU).tags(application).baseUnit("seconds")
                        .tag(TAG_CLASS, cls)
                        .description("CPU time of one request (one segment for async requests)").register(registry));
                vol[i] = add(DistributionSummary.builder(REQUEST_SWITCHES).tags(application).tag(TAG_CLASS, cls)
                        .tag(TAG_KIND, KIND_VOLUNTARY).description("Context switches during one request")
                        .register(registry));
                invol[i] = add(DistributionSummary.builder(REQUEST_SWITCHES).tags(application).tag(TAG_CLASS, cls)
                        .tag(TAG_KIND, KIND_INVOLUNTARY).description("Context switches during one request")
                        .register(registry));
            }
        }
        attribution.setRequestSink((i, cpuNanos, v, n) -> {
            cpu[i].record(cpuNanos / 1e9);
            vol[i].record(v);
            invol[i].record(n);
        });

        SystemStats system = sampler.system();
        if (!Double.isNaN(system.cpuPressureSomeAvg10())) {
            add(Gauge.builder(CPU_PRESSURE, sampler, s -> s.system().cpuPressureSomeAvg10()).tags(application)
                    .description("PSI some CPU pressure, 10 s average, as a ratio").register(registry));
        }
        longCounter(CPU_PRESSURE_STALL, SystemStats::cpuPressureSomeTotalMicros, 1e-6, "seconds",
                "PSI some CPU stall time");
        if (!Double.isNaN(system.load1())) {
            add(Gauge.builder(LOAD, sampler, s -> s.system().load1()).tags(application)
                    .description("1-minute load average")
                    .register(registry));
        }
        if (ThreadStats.isSupported(system.runnable())) {
            // a reading that lacks it is no number, not Long.MIN_VALUE
            add(Gauge.builder(RUNNABLE, sampler, s -> ThreadStats.isSupported(s.system().runnable())
                    ? s.system().runnable() : Double.NaN).tags(application)
                    .description("Runnable tasks in the system")
                    .register(registry));
        }
        longCounter(CGROUP_PERIODS, SystemStats::cgroupPeriods, 1, null, "CFS bandwidth periods of this cgroup");
        longCounter(CGROUP_THROTTLED_PERIODS, SystemStats::cgroupThrottledPeriods, 1, null,
                "Periods in which this cgroup was throttled");
        longCounter(CGROUP_THROTTLED_TIME, SystemStats::cgroupThrottledMicros, 1e-6, "seconds",
                "Time this cgroup was throttled");

        add(Gauge.builder(SAMPLER_COST, sampler, Sampler::costRatio).tags(application)
                .description("CPU the probe's sampler used per second").register(registry));
        add(Gauge.builder(SAMPLER_INTERVAL, sampler, s -> s.intervalNanos() / 1e9).tags(application)
                .baseUnit("seconds")
                .description("The sampler's current interval").register(registry));
        add(Gauge.builder(THREADS, attribution, Attribution::trackedThreads).tags(application)
                .description("Threads the probe tracks (request workers, task executors)").register(registry));
        add(FunctionCounter.builder(ACTUATOR_FAILURES, attribution, Attribution::niceFailures).tags(application)
                .tag(TAG_ACTUATOR, "nice").description("Failed actuator calls").register(registry));
        add(FunctionCounter.builder(ACTUATOR_FAILURES, attribution, Attribution::sliceFailures).tags(application)
                .tag(TAG_ACTUATOR, "slice").description("Failed actuator calls").register(registry));
    }

    /** Removes every meter {@link #bindTo} registered. */
    public synchronized void unbind() {
        attribution.setRequestSink(null);
        sampler.whenFailed(null);
        if (registry != null) {
            for (Meter m : meters) {
                registry.remove(m);
            }
        }
        meters.clear();
        systemCounters.clear();
    }

    /** The sampler failed: nothing reads the system counters any more (a counter must not fall, so they go). */
    private synchronized void removeSystemCounters() {
        for (Meter m : systemCounters) {
            registry.remove(m);
            meters.remove(m);
        }
        systemCounters.clear();
    }

    private void gauge(String name, String cls, String kind, String unit, String description,
            ToDoubleFunction<Sampler> f) {
        Gauge.Builder<Sampler> b = Gauge.builder(name, sampler, f).tags(application).description(description)
                .tag(TAG_CLASS, cls);
        if (kind != null) {
            b.tag(TAG_KIND, kind);
        }
        if (unit != null) {
            b.baseUnit(unit);
        }
        add(b.register(registry));
    }

    /** A counter of a system signal, registered only if the first reading has it. */
    private void longCounter(String name, ToLongFunction<SystemStats> value, double scale, String unit,
            String description) {
        if (!ThreadStats.isSupported(value.applyAsLong(sampler.system()))) {
            return;
        }
        // Micrometer holds the measured object weakly: measure the sampler (kept by the listener), not a lambda
        FunctionCounter.Builder<Sampler> b = FunctionCounter.builder(name, sampler,
                s -> Math.max(0, value.applyAsLong(s.system())) * scale).tags(application).description(description);
        if (unit != null) {
            b.baseUnit(unit);
        }
        systemCounters.add(add(b.register(registry)));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

}
