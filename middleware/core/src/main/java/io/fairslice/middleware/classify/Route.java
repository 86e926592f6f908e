package io.fairslice.middleware.classify;

import io.fairslice.middleware.metrics.MeterNames;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One entry of the bounded route table: a normalised page and what the adaptive classifier has learnt about it
 * (its requests' own CPU time). Also carries per-route slots the metrics layer fills once (meters are looked up
 * once, not per request). Before it joins the table a route is a candidate, shared by the requests of its key in
 * flight, which learns like any route; it joins, with what it learnt, as one of them is served
 * ({@link RouteTable}).
 *
 * <p>Learning has two phases. While a route has fewer than {@code minSamples} requests measured it stays light and
 * only the cheapest of them is kept; at the {@code minSamples}-th request that minimum seeds the EWMA and decides
 * the route's first class. From then on the EWMA of every request decides, with hysteresis. Why the minimum: in a
 * cold JVM a route's first requests load classes and run interpreted, which only ever adds CPU time, so the cheapest
 * early request is the one closest to what the route costs warm. A cheap route is called heavy at the decision only
 * if every one of its first {@code minSamples} requests cost more than {@code heavyAbove}; a route whose every
 * request costs more is heavy from exactly its {@code minSamples}-th request, or sooner: requests still running count
 * once their CPU so far has passed {@code heavyAbove} ({@link #provenAbove}). Such an early heavy is provisional until
 * the decision: the first finished request that cost no more than {@code heavyAbove} ends it, as the decision would
 * (a cold JVM runs a cheap page's first requests side by side, interpreted, and they may all pass the bound before
 * one finishes).
 */
public final class Route {

    private final String key;
    /**
     * The route's lock: its learning state and watched requests; held by {@link RequestClassifier} while it tells
     * them a new class, which takes the scheduler's lock. Not the route's monitor: before Java 24 a virtual thread
     * that waits for a lock inside {@code synchronized} pins its carrier, and with a few carriers pinned so, the
     * thread that would release the scheduler's lock got none (every request hung).
     */
    final ReentrantLock lock = new ReentrantLock();
    /** The metric tag value: {@code other} until the route joins the table (see {@link #page()}). */
    private volatile String page = MeterNames.PAGE_OTHER;
    /**
     * Whether the route is in the table: set once, as its first served request ends ({@link RouteTable#end}); a
     * candidate until then. Read without a lock by every request's end.
     */
    private volatile boolean inTable;
    /**
     * While a candidate: the requests in flight that hold it (from {@link RouteTable#route} to {@link RouteTable#end}).
     * Read and written only inside the candidate map's {@code compute} for this route's key, which is its lock.
     */
    int holders;
    /** While learning: the cheapest sample so far; then the EWMA. */
    private double ewmaCpuNanos;
    private long samples;
    /**
     * Whether the first decision has been made (kept apart from samples: min-samples can change at runtime). Read
     * without the lock by {@link #cpuSample}.
     */
    private volatile boolean decided;
    private volatile boolean heavy;
    private volatile long expectedCpuNanos;
    /**
     * While learning: requests of this route still running that have used more CPU than {@code heavyAbove} already
     * (see {@link #provenAbove}).
     */
    private int runningAbove;
    /**
     * Requests of this route in flight that began while it learnt (watched, {@link RequestClassifier#watch}): at most
     * the requests the server serves at once, none once they have ended after the route's first decision.
     */
    // a set: an async request is watched until its cycle ends, and a learning route may have thousands in flight
    private final Set<RequestClassifier.Watch> inFlight = new LinkedHashSet<>();
    /**
     * The route's requests since it was decided, less those rejected at admission ({@link #cpuSampleRejected}), and the
     * count the measurements so far stand for: the next measurement stands for the difference (see cpuSample). A
     * request that arrived while the route learnt and is rejected after its decision takes one from both: the
     * difference stays as it was.
     */
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLong measuredUpTo = new AtomicLong();
    /**
     * Every how many requests one is measured (the route's requests per interval, at least 1), when that was set and
     * the arrivals then (see cpuSample); null before the first request after the decision. One value, swapped whole:
     * as two fields a thread that set the time and stalled before the count left the next stride about twice the rate.
     */
    private final AtomicReference<Stride> stride = new AtomicReference<>();
    /**
     * How many times its last value a stride may be set to at most: a route's rate read from a burst (40 heavy
     * clients' first requests at once, as a load starts) set a stride of dozens, and the next measured request stood
     * for them all. Under overload such a request ends seconds later, and its route's CPU meter read nothing for 3 s,
     * then 0.6 s of CPU in one second, at every onset (docs/measurements/onset-default-20261206). Doubling, a route
     * that gets busy reaches a stride of 1000 in about half a second; its rate falls at once.
     */
    static final double STRIDE_GROWTH = 2;
    /** After a measured request was rejected: no measurement before this time (nanoTime), or {@link #UNSET}. */
    private final AtomicLong holdOffUntilNanos = new AtomicLong(UNSET);
    private static final long UNSET = Long.MIN_VALUE;
    /** Filled by the metrics layer: meters of this route, indexed as it likes; never read by classification. */
    public volatile Object[] meters;
    /**
     * When a request last started or ended on it (System.nanoTime, to {@link #TOUCH_NANOS}), while in the table: a full
     * table gives the place of a route that has had neither for {@code routes.evict-after} to a new page
     * ({@link RouteTable}).
     */
    private volatile long lastUsedNanos;
    /** Set once the table gave the route's place to another: its requests in flight end with it, no new one gets it. */
    private volatile boolean evicted;
    private static final long TOUCH_NANOS = 1_000_000_000L;

    /** A candidate: not in the table (yet), tagged {@code other}. */
    Route(String key) {
        this.key = key;
    }

    /**
     * The table's shared {@code other} route, which never learns ({@link RequestClassifier#learn}) and so would never
     * be decided: it starts decided, so that {@link #cpuSample} measures about one of its requests per interval as it
     * does for any decided route. Undecided, it had every request measured once the table was full (every request of a
     * new page), against {@code cpu.sample-interval}'s bound, and a thread CPU clock read costs context switches. Being
     * decided changes nothing else for it: nothing records into it or watches its requests.
     */
    static Route shared(String key) {
        Route r = new Route(key);
        r.decided = true;
        return r;
    }

    /** The candidate joins the table at {@code nowNanos}, tagged {@code page} (under the candidate map's lock). */
    void join(String page, long nowNanos) {
        this.page = page;
        this.lastUsedNanos = nowNanos;
        this.inTable = true;
    }

    /** A request starts or ends on the route at {@code nowNanos}: remembered to the second (one volatile read). */
    void touch(long nowNanos) {
        if (nowNanos - lastUsedNanos >= TOUCH_NANOS) {
            lastUsedNanos = nowNanos;
        }
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /**
     * The table gave the route's place to another page; it stays {@link #inTable} for its requests in flight, which
     * still learn into it (and may still move to a class it is found to belong to), while a new candidate of its key
     * learns apart.
     */
    void evict() {
        evicted = true;
    }

    boolean evicted() {
        return evicted;
    }

    /**
     * Whether the route is in the table, rather than a candidate (or the table's {@code other}): a candidate's page
     * is {@code other} until a request on it is served and it joins under its own.
     */
    public boolean inTable() {
        return inTable;
    }

    /** The normalised path, e.g. {@code /orders/{n}}. */
    public String key() {
        return key;
    }

    /**
     * The metric tag value: the key for the first {@code routes.max-pages} routes to join the table, {@code other}
     * for the rest and for candidates.
     */
    public String page() {
        return page;
    }

    /**
     * Whether the CPU time of the request arriving at {@code nowNanos} is measured, and for how many requests its
     * measurement counts: 0 (not measured), or the route's requests since the last measurement, this one included.
     * Every request is measured until the route's first decision, then every {@code stride}-th request, the stride
     * being the route's requests per {@code intervalNanos} over the last interval or more (config
     * {@code cpu.sample-interval}; 0: every request): about one measurement per interval on a busy route, and every
     * request of a route that has fewer than one an interval. The stride is 1 after the decision and follows the rate
     * from then on, set again on the first request an interval after it was last set, or an eighth of an interval
     * after when eight strides' worth of requests have come since (a quiet route that gets busy has every request
     * measured for an eighth of an interval, not a whole one); it at most doubles each time ({@link #STRIDE_GROWTH}).
     * Every request while learning: under overload a new page's requests run for seconds each, and with one measured
     * per interval as they arrive (a closed loop's next ones only when they end) the decision took 8-28 s, during
     * which an expensive page ran in the cheap class (docs/measurements/lag-limit-20261126.md).
     *
     * <p>Which request is measured follows the count of requests, not the clock. Until 2026-12-06 the first request
     * an interval after the last measurement was measured: the first of a burst. Under SCHED_RR with 100 ms slices
     * the study's expensive page (10 MB) has few requests, in bursts, and its sample read 1.3-1.7 times what its
     * requests cost measured every one, so its CPU meter, the class CPU-share gauge and the share scheduler's
     * accounting read it at 30-37 % of the server where measuring every request read 20-21 %
     * (docs/measurements/cpu-sample-bias-20261206).
     */
    public int cpuSample(long nowNanos, long intervalNanos) {
        if (intervalNanos == 0 || !decided) {
            return 1;
        }
        long n = arrivals.incrementAndGet();
        Stride s = stride.get();
        if (s == null) {
            Stride first = new Stride(1, nowNanos, n - 1);
            s = stride.compareAndSet(null, first) ? first : stride.get();
        } else {
            long elapsed = nowNanos - s.setNanos();
            long since = n - 1 - s.setArrivals(); // the requests since the stride was set, this one not
            // elapsed > 0: an interval under 8 ns has an eighth of 0, and a rate over no time is none
            if (elapsed > 0 && (elapsed >= intervalNanos || (elapsed >= intervalNanos / 8 && since >= 8 * s.every()))) {
                double perInterval = (double) since * intervalNanos / elapsed; // double: a count times 10 s overflows
                double every = Math.min(perInterval, STRIDE_GROWTH * s.every()); // a burst: the stride rises by steps
                Stride next = new Stride(Math.max(1, (long) Math.min(every, Integer.MAX_VALUE)), nowNanos, n - 1);
                s = stride.compareAndSet(s, next) ? next : stride.get();
            }
        }
        long holdOff = holdOffUntilNanos.get();
        if (holdOff != UNSET) {
            if (nowNanos - holdOff < 0) {
                return 0;
            }
            holdOffUntilNanos.compareAndSet(holdOff, UNSET); // not one a rejection set since
        }
        while (true) {
            long mark = measuredUpTo.get();
            if (n - mark < s.every()) { // also when a later request took this one into its count
                return 0;
            }
            if (measuredUpTo.compareAndSet(mark, n)) {
                return (int) Math.min(n - mark, Integer.MAX_VALUE);
            }
        }
    }

    /**
     * A request that {@link #cpuSample} answered {@code cpuWeight} for was rejected at admission: it used no CPU, so it
     * is none of the requests a measurement stands for. Not measured (0), it leaves the count; measured, the requests
     * before it that its measurement stood for go back to the count, for the next measurement, which comes no sooner
     * than an eighth of {@code intervalNanos} later. Otherwise every 503 under overload made the next measured
     * request stand for more requests than were served, and the class's CPU and its page's CPU meter read more than
     * the server used; and with most requests rejected, most measurements fell on rejected ones, and the few served
     * ones stood for many. An eighth: at most eight tries per interval, so that a route whose requests are nearly all
     * rejected does not have every one measured.
     */
    public void cpuSampleRejected(int cpuWeight, long nowNanos, long intervalNanos) {
        if (intervalNanos == 0 || !decided) {
            return; // every request measured for itself: nothing was counted
        }
        arrivals.decrementAndGet();
        if (cpuWeight > 0) {
            measuredUpTo.addAndGet(-cpuWeight);
            long until = nowNanos + intervalNanos / 8;
            holdOffUntilNanos.set(until == UNSET ? until + 1 : until);
        }
    }

    /** Whether the adaptive classifier currently puts this route in its heavy class. */
    public boolean heavy() {
        return heavy;
    }

    /**
     * This route's expected CPU per request (ns): the cheapest request so far while it is still learning, then the
     * EWMA; 0 before the first sample.
     */
    public long expectedCpuNanos() {
        return expectedCpuNanos;
    }

    /**
     * Adds one request's CPU time. Returns +1 when the route just became heavy, -1 when it just became light, 0
     * otherwise. The first {@code minSamples} requests decide on their minimum (see the class comment; requests still
     * running that are known to cost more than {@code heavyAbove} count among them, {@link #provenAbove}, and a
     * finished one that cost less ends the heavy they made); then hysteresis on the EWMA: up above {@code heavyAbove},
     * down only below {@code lightBelow}.
     */
    public int record(long cpuNanos, double alpha, int minSamples, long heavyAbove, long lightBelow) {
        lock.lock();
        try {
            samples++;
            boolean learning = !decided;
            if (learning) {
                ewmaCpuNanos = samples == 1 ? cpuNanos : Math.min(ewmaCpuNanos, cpuNanos);
                decided = samples >= minSamples;
            } else {
                ewmaCpuNanos = alpha * cpuNanos + (1 - alpha) * ewmaCpuNanos;
            }
            expectedCpuNanos = (long) ewmaCpuNanos;
            boolean nowHeavy;
            if (!learning) { // hysteresis on the EWMA
                nowHeavy = heavy ? ewmaCpuNanos >= lightBelow : ewmaCpuNanos > heavyAbove;
            } else if (heavy || decided) { // a heavy made by running requests lasts while no finished one cost less
                nowHeavy = ewmaCpuNanos > heavyAbove;
            } else {
                nowHeavy = heavyBeforeEnd(minSamples, heavyAbove);
            }
            if (nowHeavy == heavy) {
                return 0;
            }
            heavy = nowHeavy;
            return nowHeavy ? 1 : -1;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A running request of this route (watched while the route learns, see {@link RequestClassifier#check}) has used
     * more CPU than {@code heavyAbove}. The route need not wait for finished requests to be heavy then: once
     * {@code minSamples} requests, finished or running, have each cost more than {@code heavyAbove}, the cheapest of
     * them has too, which is the rule the finished requests alone apply later. Under overload a new expensive page's
     * requests take seconds each, and the page ran in the cheap class until ten of them had finished. The route stays
     * undecided (and its requests watched) until {@code minSamples} have finished: a finished one that cost less ends
     * this heavy ({@link #record}). Returns +1 when the route just became heavy, else 0; nothing once the request has
     * ended ({@link #endWatch}) or its thread no longer serves it (an async request, {@link RequestClassifier#detach}).
     */
    int provenAbove(RequestClassifier.Watch w, int minSamples, long heavyAbove) {
        lock.lock();
        try {
            if (w.ended || w.above || w.detached) {
                return 0;
            }
            w.above = true;
            runningAbove++;
            if (decided || heavy || !heavyBeforeEnd(minSamples, heavyAbove)) {
                return 0;
            }
            heavy = true;
            if (samples == 0) {
                // what every one of them is known to cost at least; finished requests refine it
                ewmaCpuNanos = heavyAbove;
            }
            expectedCpuNanos = (long) ewmaCpuNanos;
            return 1;
        } finally {
            lock.unlock();
        }
    }

    /**
     * While learning: whether {@code minSamples} requests, finished or running, are known to cost more than
     * {@code heavyAbove} and no finished one cost less (the cheapest finished so far, if any, is above it).
     */
    private boolean heavyBeforeEnd(int minSamples, long heavyAbove) {
        return samples + runningAbove >= minSamples && (samples == 0 || ewmaCpuNanos > heavyAbove);
    }

    /**
     * A request of this route is watched from now on while it is in flight (see {@link RequestClassifier#watch});
     * false, and not watched, when the route has been decided already.
     */
    boolean startWatch(RequestClassifier.Watch w) {
        lock.lock();
        try {
            if (decided) {
                return false;
            }
            inFlight.add(w);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A watched request of this route has ended (before its CPU is recorded): it no longer counts as running. */
    void endWatch(RequestClassifier.Watch w) {
        lock.lock();
        try {
            if (w.ended) {
                return; // ended before (Fairslice.classify stops watching a request before it ends)
            }
            w.ended = true;
            inFlight.remove(w);
            if (w.above) {
                runningAbove--;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The watched requests of this route still in flight (a copy). */
    List<RequestClassifier.Watch> running() {
        lock.lock();
        try {
            return new ArrayList<>(inFlight);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the adaptive classifier has made its first decision on this route (always, for {@code other}). */
    public boolean decided() {
        return decided;
    }

    public long samples() {
        lock.lock();
        try {
            return samples;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return key + (heavy ? " (heavy)" : "") + " ~" + expectedCpuNanos / 1000 + "us";
    }

    /** Every {@code every}-th request is measured; set at {@code setNanos}, when {@code setArrivals} had come. */
    private record Stride(long every, long setNanos, long setArrivals) {
    }
}
