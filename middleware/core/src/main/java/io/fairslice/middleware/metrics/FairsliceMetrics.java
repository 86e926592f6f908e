package io.fairslice.middleware.metrics;

import static io.fairslice.middleware.metrics.MeterNames.*;

import io.fairslice.middleware.Policy;
import io.fairslice.middleware.classify.RequestClassifier;
import io.fairslice.middleware.classify.Route;
import io.fairslice.middleware.classify.RouteTable;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.middleware.schedule.Scheduler;
import io.fairslice.middleware.schedule.TaskExecutor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Registers the middleware's meters and records into them. Gauges and function counters, registered once as the
 * application starts, read the scheduler's and classifier's own counters (nothing to do per request); a page's
 * per-request meters are registered per class as its first request of that class ends, and cached on the route, so a
 * request records without a registry lookup after that. Every meter carries the application's
 * {@link MeterNames#TAG_APPLICATION} tag, so applications sharing a registry keep their own series and {@link #close}
 * removes this application's meters only; once closed it registers nothing and records nothing into the registry.
 */
public final class FairsliceMetrics implements AutoCloseable {

    private static final int CPU_SLOT = OUTCOMES.size();
    private static final String SLOTS_LENT_DESCRIPTION =
            "run slots lent while a request of the class held one blocked in a call, found or declared (tag how)";
    private static final String HOLD_YIELDS_DESCRIPTION =
            "yields of the CPU while a free run slot was held for a cheaper class; others ran or none (tag others)";

    private final MeterRegistry registry;
    private final Tags application;
    private final String applicationName;
    private final Scheduler scheduler;
    private final List<String> classNames;
    private final List<Meter> meters = new ArrayList<>();
    /** Set by {@link #close} (guarded by {@link #meters}). */
    private boolean closed;
    private final DistributionSummary[] retryAfter;
    /** The route whose meters every route tagged {@code page="other"} records into (one set, not one per route). */
    private final Route other;

    /**
     * @param application the {@link MeterNames#TAG_APPLICATION} value: the servlet context path, {@code /} for the
     *                    root context
     * @throws RuntimeException what the registry throws as it refuses a meter, the meters registered before it
     *                          removed
     */
    public FairsliceMetrics(MeterRegistry registry, String application, Scheduler scheduler,
                            RequestClassifier classifier, Supplier<Policy> policy) {
        if (application == null || application.isEmpty()) {
            throw new IllegalArgumentException("application must be a context path, / for the root context; got '"
                    + application + "'");
        }
        this.registry = registry;
        this.application = Tags.of(TAG_APPLICATION, application);
        this.applicationName = application;
        this.scheduler = scheduler;
        this.classNames = scheduler.config().classNames();
        this.other = classifier.routes().other();
        this.retryAfter = new DistributionSummary[classNames.size()];
        try {
            registerAll(classifier, policy);
        } catch (RuntimeException | Error e) {
            close(); // nobody else holds this instance to close it
            throw e;
        }
    }

    /** Registers the gauges and counters read from the scheduler and the classifier, and the Retry-After summaries. */
    private void registerAll(RequestClassifier classifier, Supplier<Policy> policy) {
        for (ClassState c : scheduler.classes()) {
            int i = c.index();
            Tags cls = this.application.and(TAG_CLASS, c.name());
            add(Gauge.builder(REQUESTS_INFLIGHT, c, ClassState::inflight).tags(cls)
                    .description("requests between filter entry and completion").register(registry));
            add(Gauge.builder(REQUESTS_RUNNING, c, ClassState::running).tags(cls)
                    .description("requests admitted and not parked").register(registry));
            add(Gauge.builder(REQUESTS_WAITING, c, ClassState::waiting).tags(cls)
                    .description("requests queued for admission or parked at a yield point").register(registry));
            add(Gauge.builder(TASKS_HELD, c, TaskExecutor::heldTasks).tags(cls)
                    .description("tasks a holding executor holds back from their pool for the class's turn")
                    .register(registry));
            add(Gauge.builder(CLASS_CPU_SHARE, scheduler, s -> s.cpuShare(i)).tags(cls)
                    .description("the class's part of the CPU charged to classes (requests', collector pauses), "
                            + "decayed over ~2 s; NaN while idle").register(registry));
            add(FunctionCounter.builder(CLASS_GC, c, x -> x.gcNanos() / 1e9).tags(cls).baseUnit("seconds")
                    .description("collector pause time charged to the class, by the bytes its requests allocated")
                    .register(registry));
            add(Gauge.builder(CLASS_CPU_SHARE_TARGET, scheduler, s -> s.targetShare(i)).tags(cls)
                    .description("the class's configured share, normalised").register(registry));
            add(Gauge.builder(CLASS_BALANCE, c, x -> x.balanceNanos() / 1e9).tags(cls).baseUnit("seconds")
                    .description("share scheduler run-slot time owed; negative: taken beyond its share")
                    .register(registry));
            add(FunctionCounter.builder(YIELD_POINTS, c, ClassState::yieldPoints).tags(cls)
                    .description("yield points reached while the scheduler was armed").register(registry));
            add(FunctionCounter.builder(CLASSIFY_RECLASSIFIED, classifier, k -> k.reclassifiedInto(i))
                    .tags(cls).description("routes the adaptive classifier moved into the class")
                    .register(registry));
            add(FunctionCounter.builder(REQUESTS_MOVED, c, ClassState::movedIn).tags(cls)
                    .description("requests moved into the class while in flight, as their route's class changed")
                    .register(registry));
            add(FunctionCounter.builder(SHARE_SLOTS_LENT, c, ClassState::slotsLent).tags(cls)
                    .tag(TAG_HOW, HOW_FOUND).description(SLOTS_LENT_DESCRIPTION).register(registry));
            add(FunctionCounter.builder(SHARE_SLOTS_LENT, c, ClassState::slotsLentDeclared).tags(cls)
                    .tag(TAG_HOW, HOW_DECLARED).description(SLOTS_LENT_DESCRIPTION).register(registry));
            for (int o = 0; o < OTHERS.size(); o++) {
                int others = o;
                add(FunctionCounter.builder(SHARE_HOLD_YIELDS, c, x -> x.holdYields(others)).tags(cls)
                        .tag(TAG_OTHERS, OTHERS.get(o)).description(HOLD_YIELDS_DESCRIPTION).register(registry));
            }
            add(FunctionCounter.builder(SHARE_HOLD_YIELDED, c, x -> x.holdYieldNanos() / 1e9).tags(cls)
                    .baseUnit("seconds").description("time in yields while a run slot was held for a cheaper class")
                    .register(registry));
            for (int w = 0; w < WHERES.size(); w++) {
                int where = w;
                add(FunctionCounter.builder(YIELD_PARKS, c, x -> x.parks(where)).tags(cls)
                        .tag(TAG_WHERE, WHERES.get(w)).description("times a request's thread parked")
                        .register(registry));
                add(FunctionCounter.builder(YIELD_PARKED, c, x -> x.parkedNanos(where) / 1e9).tags(cls)
                        .tag(TAG_WHERE, WHERES.get(w)).baseUnit("seconds").description("time spent parked")
                        .register(registry));
            }
            for (int r = 0; r < REASONS.size(); r++) {
                int reason = r;
                add(FunctionCounter.builder(REJECTIONS, c, x -> x.rejections(reason)).tags(cls)
                        .tag(TAG_REASON, REASONS.get(r)).description("requests answered 503 by admission control")
                        .register(registry));
            }
            add(FunctionCounter.builder(ADMISSION_CAPPED, scheduler, s -> s.cappedWaitNanos(i) / 1e9).tags(cls)
                    .baseUnit("seconds")
                    .description("time requests waited at admission for the class's max-concurrency")
                    .register(registry));
            retryAfter[i] = add(DistributionSummary.builder(RETRY_AFTER).tags(cls).baseUnit("seconds")
                    .description("Retry-After values given with rejections").register(registry));
        }
        for (Policy p : Policy.values()) {
            // strongly held: the supplier is a lambda nobody else keeps, and a weak gauge would read NaN after GC
            add(Gauge.builder(POLICY, policy, s -> s.get() == p ? 1 : 0).tags(this.application)
                    .tag(TAG_POLICY, p.value()).strongReference(true).description("1 for the active policy")
                    .register(registry));
        }
        add(Gauge.builder(CLASSIFY_ROUTES, classifier, k -> k.routes().size()).tags(this.application)
                .description("routes in the bounded route table: paths served at least once").register(registry));
        add(FunctionCounter.builder(CLASSIFY_ROUTES_OVERFLOW, classifier, k -> k.routes().overflowCount())
                .tags(this.application).description("served requests whose new route did not fit in the full table")
                .register(registry));
        add(FunctionCounter.builder(CLASSIFY_ROUTES_EVICTED, classifier, k -> k.routes().evictionCount())
                .tags(this.application).description("idle routes whose place in the full table went to a new page")
                .register(registry));
    }

    private <M extends Meter> M add(M meter) {
        synchronized (meters) {
            meters.add(meter);
        }
        return meter;
    }

    /**
     * Records a finished request: its latency under {@code outcome} and its CPU time. Nothing once closed, for a new
     * page or class (a request that ended after its application stopped); meters registered before are no longer in
     * the registry then.
     */
    public void request(Route route, int classIndex, int outcome, long durationNanos, long cpuNanos) {
        Object[] m = meters(route, classIndex);
        if (m == null) {
            return;
        }
        ((Timer) m[outcome]).record(durationNanos, TimeUnit.NANOSECONDS);
        countCpu(m, cpuNanos);
    }

    /** Counts CPU a task of a request of the page used on another thread ({@code Fairslice.task}). */
    public void taskCpu(Route route, int classIndex, long cpuNanos) {
        Object[] m = meters(route, classIndex);
        if (m != null) {
            countCpu(m, cpuNanos);
        }
    }

    private static void countCpu(Object[] meters, long cpuNanos) {
        if (cpuNanos > 0) {
            ((Counter) meters[CPU_SLOT]).increment(cpuNanos / 1e9);
        }
    }

    /** Records the Retry-After given with a rejection. */
    public void retryAfter(int classIndex, long seconds) {
        retryAfter[classIndex].record(seconds);
    }

    /**
     * The meters of a page in one class (a timer per outcome, then the CPU counter), registered as the page's first
     * request of that class ends: a page is served in one class, or two when it moves, and meters of the classes it
     * never ran in would be series that stay zero (each latency histogram is some 77 series). {@code route.meters}
     * holds them by class index, replaced whole under the route's monitor, so that a reader sees each entry complete.
     * Null once {@link #close}d.
     */
    private Object[] meters(Route route, int classIndex) {
        if (route != other && PAGE_OTHER.equals(route.page())) {
            route = other; // a route beyond routes.max-pages: its meters are the shared route's (the same ids)
        }
        Object[] byClass = route.meters;
        if (byClass != null && byClass[classIndex] != null) {
            return byClass[classIndex] == REFUSED ? null : (Object[]) byClass[classIndex];
        }
        synchronized (route) {
            byClass = route.meters;
            if (byClass == null) {
                byClass = new Object[classNames.size()];
            } else if (byClass[classIndex] != null) {
                return byClass[classIndex] == REFUSED ? null : (Object[]) byClass[classIndex];
            } else {
                byClass = byClass.clone();
            }
            Object[] fresh = new Object[CPU_SLOT + 1];
            String cls = classNames.get(classIndex);
            synchronized (meters) { // registered before close (which removes them) or not at all
                if (closed) {
                    // a request that ended after its application stopped, maybe after the application was redeployed
                    // under the same name: the registry would return the successor's meters (same ids) to record into,
                    // and a removal of them would take the successor's series away; so it leaves no trace
                    return null;
                }
                try {
                    register(fresh, route, cls);
                } catch (RuntimeException e) {
                    // a strict registry refused one (a meter of that name with other tags, registered since the
                    // start): the request goes on without page meters, and the page does not ask again; the page is
                    // a client's path, decoded: a %0A in it would start a forged log line
                    LOG.log(Level.WARNING, ApplicationNames.logPrefix(applicationName) + "the meter registry refused"
                            + " the meters of page " + RouteTable.printable(route.page()) + " in class " + cls
                            + "; its requests go uncounted by page",
                            e);
                    fresh = REFUSED;
                }
            }
            byClass[classIndex] = fresh;
            route.meters = byClass;
            return fresh == REFUSED ? null : fresh;
        }
    }

    /** The latency SLO of the dashboards' alert (FairsliceLatencyAboveSlo), kept a bucket bound of the timers. */
    public static final Duration LATENCY_SLO = Duration.ofMillis(250);

    /** A page's meters in a class that the registry refused: not asked for again. */
    private static final Object[] REFUSED = new Object[0];
    private static final Logger LOG = Loggers.of(FairsliceMetrics.class);

    /** Registers a page's meters in one class into {@code fresh} (a timer per outcome, then the CPU counter). */
    private void register(Object[] fresh, Route route, String cls) {
        for (int o = 0; o < OUTCOMES.size(); o++) {
            Timer.Builder timer = Timer.builder(REQUESTS).tags(application).tag(TAG_CLASS, cls)
                    .tag(TAG_PAGE, route.page()).tag(TAG_OUTCOME, OUTCOMES.get(o))
                    .description("time from filter entry to completion, queueing and parking included");
            if (OUTCOME_REJECTED.equals(OUTCOMES.get(o))) {
                // the latency rules leave admission control's 503s out, so their buckets would be unread series;
                // one bucket keeps the timer a histogram (one name is one metric type in Prometheus's format,
                // and its 1.x client fails the whole scrape when a timer without buckets shares the name)
                timer.serviceLevelObjectives(Duration.ofSeconds(60));
            } else {
                // the latency alert's SLO (250 ms) as a bucket bound of its own: Micrometer's bounds around it are
                // 246 and 268 ms, and a p99 interpolated between them paged for 248 ms and kept quiet at 265 ms
                timer.publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofSeconds(60)).serviceLevelObjectives(LATENCY_SLO);
            }
            fresh[o] = add(timer.register(registry));
        }
        fresh[CPU_SLOT] = add(Counter.builder(REQUESTS_CPU).tags(application).tag(TAG_CLASS, cls)
                .tag(TAG_PAGE, route.page()).baseUnit("seconds")
                .description("CPU time of the serving threads").register(registry));
    }

    /** Index of an outcome value in {@link MeterNames#OUTCOMES} for an HTTP status. */
    public static int outcomeOf(int status) {
        return status >= 500 ? 2 : status >= 400 ? 1 : 0;
    }

    /** Removes every meter this instance registered (web application stopped). */
    @Override
    public void close() {
        synchronized (meters) {
            closed = true;
            for (Meter m : meters) {
                registry.remove(m);
            }
            meters.clear();
        }
    }

    public Scheduler scheduler() {
        return scheduler;
    }
}
