package io.fairslice.middleware.classify;

import io.fairslice.middleware.FairsliceConfig;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Decides a request's class: the first matching rule wins; otherwise, in adaptive mode, a route whose measured CPU
 * per request made it heavy goes to the adaptive class; otherwise the default class. It only decides: the scheduler
 * acts on the decision.
 */
public final class RequestClassifier {

    /** How often {@link #check} looks at the running requests of routes that learn. */
    static final long CHECK_INTERVAL_NANOS = 10_000_000L;
    /** Thread CPU clocks read per check at most (a clock read of another thread costs a few microseconds). */
    static final int MAX_READS_PER_CHECK = 16;

    private final RouteTable routes;
    private final LongAdder[] reclassified;
    /** Another thread's CPU time (ns), negative when unknown. */
    private final ToLongFunction<Thread> threadCpu;
    /** Running requests of routes still learning, not yet known to cost more than adaptive.heavy-above. */
    private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextCheck = new AtomicLong(NO_CHECK_YET);
    private static final long NO_CHECK_YET = Long.MIN_VALUE;

    /** A classifier that learns from finished requests only (no thread CPU clock to read running ones with). */
    public RequestClassifier(FairsliceConfig config) {
        this(config, thread -> -1);
    }

    /**
     * @param threadCpu a thread's CPU time (ns; negative when unknown), read for requests that still run (see
     *                  {@link #check})
     */
    public RequestClassifier(FairsliceConfig config, ToLongFunction<Thread> threadCpu) {
        this(config, threadCpu, null);
    }

    /** As {@link #RequestClassifier(FairsliceConfig, ToLongFunction)}, its log lines naming {@code application}. */
    public RequestClassifier(FairsliceConfig config, ToLongFunction<Thread> threadCpu, String application) {
        this.threadCpu = threadCpu;
        this.routes = new RouteTable(config.routesMax(), config.routesMaxPages(), config.routePatterns(), application,
                config.routesEvictAfter().toNanos(), System::nanoTime);
        this.reclassified = new LongAdder[config.classes().size()];
        for (int i = 0; i < reclassified.length; i++) {
            reclassified[i] = new LongAdder();
        }
    }

    /**
     * The route of a request path (inside the web application), held by the request until it ends: pair with
     * {@link #end}. A path not in the table gets a candidate route, which is classified, watched and learns like any
     * route but joins the table only once one of its requests is served (see {@link RouteTable}).
     */
    public Route route(String path) {
        return routes.route(path);
    }

    /** As {@link #route(String)} for a request that starts at {@code nowNanos} (System.nanoTime). */
    public Route route(String path, long nowNanos) {
        return routes.route(path, nowNanos);
    }

    /**
     * A request given {@code route} by {@link #route} has ended with HTTP {@code status} (a rejection's 503 too):
     * returns the route its CPU sample ({@link #learn}) and meters go to. A candidate joins the table if the request
     * (of HTTP {@code method}) was {@linkplain #served served}, else it gives {@code other}; see
     * {@link RouteTable#end}.
     */
    public Route end(Route route, String method, int status) {
        return routes.end(route, served(method, status));
    }

    /**
     * As {@link #end(Route, String, int)}, for a request whose CPU time was measured ({@code cpuNanos}, -1: not): one
     * that failed (a 5xx, a 400 or 422 after parsing, not a 401, 403, 404, 405, 410 or 501) but cost at least
     * {@code adaptive.heavy-above} (in adaptive mode) counts as served, so that its path joins the table and learns,
     * from the path's second such failure on ({@link #costlyAgain}). A report that throws at its end, an upload
     * rejected with 400 once parsed, a
     * page that fails on every request after its work: before, they stayed under {@code other}, which does not learn,
     * and ran in the default class whatever they cost (a page of 30 ms that always answered 500 took the light class's
     * CPU: light pages fell from 2 670 to 44 req/s on Tomcat 10.1, docs/measurements/walkthrough-jsp-20261128). A scan
     * of guessed URLs is answered in microseconds and stays out.
     */
    public Route end(FairsliceConfig config, Route route, String method, int status, long cpuNanos) {
        return routes.end(route, joins(config, route, method, status, cpuNanos));
    }

    /** As {@link #end(FairsliceConfig, Route, String, int, long)} for a request that ends at {@code nowNanos}. */
    public Route end(FairsliceConfig config, Route route, String method, int status, long cpuNanos, long nowNanos) {
        return routes.end(route, joins(config, route, method, status, cpuNanos), nowNanos);
    }

    /** Whether the request lets its route join the table: served, or failed costly for the path's second time. */
    private boolean joins(FairsliceConfig config, Route route, String method, int status, long cpuNanos) {
        return served(method, status) || costly(config, method, status, cpuNanos) && costlyAgain(route);
    }

    /**
     * Whether a costly failure on {@code route} lets it join the table: at the second such failure of a path not in
     * it. The first request of a cold JVM's path loads classes and runs interpreted, so one costly failure says little
     * (a page that answers every unknown path with a 500 would otherwise take a route per path a scan sends while the
     * JVM is cold); a page that fails after its work fails again. The paths seen once are bounded, and forgotten
     * whole when {@link #COSTLY_ONCE_MAX} is reached.
     */
    private boolean costlyAgain(Route route) {
        if (route.inTable() || route == routes.other()) {
            return true; // nothing to decide: the table's route stays, other stays other
        }
        if (costlyOnce.remove(route.key())) {
            return true;
        }
        if (costlyOnce.size() >= COSTLY_ONCE_MAX) {
            costlyOnce.clear();
        }
        costlyOnce.add(route.key());
        return false;
    }

    /** Paths not in the table whose request has failed costly once ({@link #costlyAgain}). */
    private final Set<String> costlyOnce = ConcurrentHashMap.newKeySet();
    static final int COSTLY_ONCE_MAX = 10_000;

    /**
     * Whether a request of {@code method} that failed with {@code status} after using {@code cpuNanos} (-1: not
     * measured) teaches its route. Never for the answers a scan of guessed URLs or methods gets (401, 403, 404, 405,
     * 410, 501), however long the application took to give them (a password hash checked before a 401, a rendered
     * 404 page): a scan of slugs must not fill the table.
     */
    static boolean costly(FairsliceConfig config, String method, int status, long cpuNanos) {
        return config.adaptive() && teaches(method) && cpuNanos >= config.adaptiveHeavyAbove().toNanos()
                && !NOT_A_PAGE.contains(status);
    }

    /** Statuses that say the path (or the method) is no page for this client: never costly ({@link #costly}). */
    private static final Set<Integer> NOT_A_PAGE = Set.of(401, 403, 404, 405, 410, 501);

    /**
     * Whether a response shows its path is a page of the application, worth a place in the route table: a status
     * below 400, to a request of a method the container does not answer for every path. Redirects count: a POST that
     * answers 303 (post/redirect/get) is often a page's most expensive request, and 304 is a page the client has
     * cached. No 4xx counts: 404 and 405 are what a scan of guessed URLs gets, and 401/403 are what it gets from an
     * application that checks credentials before it looks the path up; a real page is served to someone allowed to see
     * it soon enough. No 5xx either: some applications answer an unknown path with 500. A request that failed after
     * work worth learning counts all the same ({@link #end(FairsliceConfig, Route, String, int, long)}).
     *
     * <p>OPTIONS and TRACE never count: the servlet API answers them 200 for any path a servlet is mapped to
     * ({@code HttpServlet.doOptions} lists the methods, {@code doTrace} echoes the request, when the connector allows
     * TRACE), and Tomcat's default servlet, mapped to {@code /}, answers OPTIONS for files that do not exist, so a scan
     * sent with them would fill the table as one of 404s did before. HEAD needs no exception: it is answered like GET
     * (404 where GET gets 404). CONNECT never reaches a web application. Those requests are still measured and counted
     * (under {@code other} while their path is not in the table).
     */
    public static boolean served(String method, int status) {
        return status < 400 && teaches(method);
    }

    /**
     * Whether a request of HTTP {@code method} that ended with {@code status} after using {@code cpuNanos} of CPU (-1:
     * not measured) teaches its route its cost ({@link #learn}): when it was {@linkplain #served served} or failed
     * {@linkplain #costly costly}, the rules that let a path join the table. A cheap failure says nothing about what
     * the page costs: learnt from, the 404s of {@code /reports/999999} or the 401s of a client without credentials
     * pulled the mean of {@code /reports/{n}} under {@code adaptive.light-below} and made a heavy report light (11
     * measured 404s of 0.1 ms did it at {@code adaptive.alpha} 0.2), and a client that sends many requests supplies
     * most measurements, since one per {@code cpu.sample-interval} is measured after the first decision. A cheap
     * redirect (a login page's 302) still teaches: a route that answers many of them needs a rule.
     */
    public static boolean teaches(FairsliceConfig config, String method, int status, long cpuNanos) {
        return served(method, status) || costly(config, method, status, cpuNanos);
    }

    /**
     * Whether a request of HTTP {@code method} runs its page, and so can teach its route: not OPTIONS or TRACE, which
     * the servlet API answers without the page's code ({@link #served}). A browser sends a CORS preflight (OPTIONS)
     * before calls to an API of another origin: learnt from, a cheap preflight per call would pull an expensive page's
     * mean under {@code adaptive.light-below}. Such requests are still measured (each on its own, not as the route's
     * CPU sample) and counted.
     */
    public static boolean teaches(String method) {
        return !"OPTIONS".equals(method) && !"TRACE".equals(method);
    }

    /**
     * The class of the first rule that matches the request, or -1 when none does (then {@link #routeClass} gives it);
     * {@code headers} gives a request header's values by name ({@code HttpServletRequest.getHeaders}); {@code query}
     * gives the query string as sent (null: none), asked for only by a rule with a {@code query:} condition.
     */
    public int ruleClass(FairsliceConfig config, String path, String method,
                         Function<String, Enumeration<String>> headers, Supplier<String> query) {
        List<Rule> rules = config.rules();
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            if (rule.matches(path, method, headers, query)) {
                return rule.classIndex();
            }
        }
        return -1;
    }

    /** The class of a request no rule matches: the adaptive class for a route learnt heavy, else the default class. */
    public int routeClass(FairsliceConfig config, Route route) {
        return config.adaptive() && route.heavy() ? config.adaptiveClass() : config.defaultClass();
    }

    /**
     * Feeds one finished request's CPU time to the adaptive classifier: {@code route} is the one {@link #end} returned,
     * and the request one that teaches ({@link #teaches(FairsliceConfig, String, int, long)}; the caller checks).
     * The shared {@code other} route (served paths beyond {@code routes.max}, and paths not in the table whose request
     * was not served) does not learn: it is every page that did not fit, and one expensive page among them would make
     * them all heavy; they stay in the default class unless a rule says otherwise.
     */
    public void learn(FairsliceConfig config, Route route, long cpuNanos) {
        if (route == routes.other()) {
            return;
        }
        int change = route.record(cpuNanos, config.adaptiveAlpha(), config.adaptiveMinSamples(),
                config.adaptiveHeavyAbove().toNanos(), config.adaptiveLightBelow().toNanos());
        if (change != 0 && config.adaptive()) {
            changed(config, route, change > 0 ? config.adaptiveClass() : config.defaultClass());
        }
    }

    /**
     * The route's class changed: counted, and its watched requests that follow it are told their new class. Under the
     * route's lock, so that two changes in a row reach each request in their order.
     */
    private void changed(FairsliceConfig config, Route route, int into) {
        reclassified[into].increment();
        route.lock.lock();
        try {
            int cls = routeClass(config, route); // the route's class now: a later change may have passed this one
            for (Watch w : route.running()) {
                follow(w, cls);
            }
        } finally {
            route.lock.unlock();
        }
    }

    /** Tells a watched request its route's class, if it follows its route and is in another class (route's lock). */
    private static void follow(Watch w, int cls) {
        if (w.moveTo != null && w.requestClass != cls) {
            w.requestClass = cls;
            w.moveTo.accept(cls);
        }
    }

    /**
     * Watches a request the calling thread serves while its route learns, from before its admission to its end: so
     * that {@link #check} can count it once its CPU passes {@code adaptive.heavy-above}, before it ends, and so that it
     * follows its route's class until the first decision. {@code requestClass} is the class it was given,
     * {@code cpuStart} the thread's CPU clock as its dispatch began (read there already; negative when not measured),
     * {@code moveTo} what moves it to another class when its route's class changes while it is in flight (null when a
     * rule gave its class: it stays). A request whose route's class is not the request's as the watch begins (it
     * changed since the request was classified) gets {@code moveTo} called at once. Returns null (nothing to watch)
     * when the adaptive mode is off, the route has been decided, or the request is neither measured nor follows its
     * route. Pair with {@link #unwatch} on the same thread before it serves anything else, or with {@link #detach}
     * there and {@link #unwatch} as its async cycle ends.
     */
    public Watch watch(FairsliceConfig config, Route route, int requestClass, long cpuStart, long nowNanos,
                       IntConsumer moveTo) {
        return watch(config, route, Thread.currentThread(), requestClass, cpuStart, nowNanos, moveTo);
    }

    Watch watch(FairsliceConfig config, Route route, Thread thread, int requestClass, long cpuStart, long nowNanos,
                IntConsumer moveTo) {
        if (!config.adaptive() || (cpuStart < 0 && moveTo == null) || route == routes.other()) {
            return null;
        }
        // its CPU cannot grow faster than wall time: no read before it may have passed the bound
        Watch w = new Watch(route, thread, cpuStart, nowNanos + config.adaptiveHeavyAbove().toNanos(), requestClass,
                moveTo);
        route.lock.lock();
        try {
            boolean learning = route.startWatch(w);
            follow(w, routeClass(config, route)); // the route's class changed since the request was classified
            if (!learning) {
                return null;
            }
        } finally {
            route.lock.unlock();
        }
        if (cpuStart >= 0) {
            watched.add(w);
        }
        return w;
    }

    /**
     * The watched request goes on asynchronously: its thread no longer serves it, so its CPU is no longer read
     * ({@link #check}), but it still follows its route's class until {@link #unwatch} as it ends. Null is ignored.
     */
    public void detach(Watch w) {
        if (w != null) {
            w.detached = true; // a check reading its thread now reads another request's CPU: the route ignores it
            watched.remove(w);
        }
    }

    /** The watched request ends (its dispatch, or its async cycle after {@link #detach}); null is ignored. */
    public void unwatch(Watch w) {
        if (w != null) {
            watched.remove(w);
            w.route.endWatch(w);
        }
    }

    /**
     * At most every {@link #CHECK_INTERVAL_NANOS}, on the calling thread (the filter calls it as requests enter):
     * reads the CPU clock of watched requests' threads, at most {@link #MAX_READS_PER_CHECK} of them, and tells a
     * route when one of its running requests has used more than {@code adaptive.heavy-above}
     * ({@link Route#provenAbove}), which may make the route heavy before any of its requests has ended. A request is
     * read only once it may have passed the bound: its CPU cannot grow faster than wall time, so after a read it is
     * left alone for the CPU it still lacks. Between checks a call costs a volatile read or two.
     */
    public void check(FairsliceConfig config, long nowNanos) {
        long next = nextCheck.get();
        if ((next != NO_CHECK_YET && nowNanos - next < 0) || watched.isEmpty()
                || !nextCheck.compareAndSet(next, nowNanos + CHECK_INTERVAL_NANOS)) {
            return;
        }
        long above = config.adaptiveHeavyAbove().toNanos();
        int reads = 0;
        // running requests first; waiting ones (queued at admission, parked, on a lock) with the reads left over
        for (int pass = 0; pass < 2; pass++) {
            for (Watch w : watched) {
                if (w.route.decided()) {
                    watched.remove(w); // decided by finished requests meanwhile
                    continue;
                }
                if (nowNanos - w.readAfterNanos < 0) {
                    continue;
                }
                boolean waits = waiting(w.thread);
                if (waits != (pass == 1)) {
                    continue;
                }
                if (reads++ == MAX_READS_PER_CHECK) {
                    return;
                }
                read(config, w, nowNanos, above, waits);
            }
        }
    }

    /**
     * Reads a watched request's CPU: past {@code above} its route is told, else it is left alone for the CPU it still
     * lacks; a waiting one (whose CPU does not grow while it waits) also for as many checks as reading every watched
     * request takes, so that all of them get the left-over reads in turn, not the same first ones of the set.
     */
    private void read(FairsliceConfig config, Watch w, long nowNanos, long above, boolean waits) {
        long cpu = threadCpu.applyAsLong(w.thread);
        if (cpu < 0) {
            watched.remove(w); // no clock to read for other threads: it can only be learnt as it ends
            return;
        }
        long used = cpu - w.cpuStart;
        if (used > above) {
            watched.remove(w);
            // the route's lock orders this after the read: a request that ended before it is not counted
            if (w.route.provenAbove(w, config.adaptiveMinSamples(), above) > 0 && config.adaptive()) {
                changed(config, w.route, config.adaptiveClass());
            }
        } else {
            long turn = waits ? (watched.size() / MAX_READS_PER_CHECK + 1) * CHECK_INTERVAL_NANOS : 0;
            w.readAfterNanos = nowNanos + above - Math.max(used, 0) + turn;
        }
    }

    /**
     * A thread that waits (for admission, at a park, on a lock) uses no CPU meanwhile: it is read after the ones that
     * run, with the reads left over. Requests queued at admission (due again every 5 ms, reading nothing new) took
     * every read of a check, always the same first ones of the set, and a new page's running requests were never read.
     * It is still read: it may have passed the bound before it began to wait.
     */
    private static boolean waiting(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    /** Running requests being watched now (see {@link #watch}). */
    public int watching() {
        return watched.size();
    }

    public RouteTable routes() {
        return routes;
    }

    /** Routes the adaptive classifier moved into class {@code index}. */
    public long reclassifiedInto(int index) {
        return reclassified[index].sum();
    }

    /** A request in flight of a route that learns (see {@link #watch}). */
    public static final class Watch {
        final Route route;
        final Thread thread;
        final long cpuStart;
        /** Moves the request to another class; null when a rule gave its class. */
        final IntConsumer moveTo;
        /** Not read again before this (wall, ns): until then it cannot have passed the bound. */
        volatile long readAfterNanos;
        /** Its thread no longer serves it ({@link #detach}): a read of the thread's CPU is not its. */
        volatile boolean detached;
        /** Guarded by the route's lock. */
        boolean ended;
        boolean above;
        /** The request's class as last told (guarded by the route's lock). */
        int requestClass;

        Watch(Route route, Thread thread, long cpuStart, long readAfterNanos, int requestClass, IntConsumer moveTo) {
            this.route = route;
            this.thread = thread;
            this.cpuStart = cpuStart;
            this.readAfterNanos = readAfterNanos;
            this.requestClass = requestClass;
            this.moveTo = moveTo;
        }
    }
}
