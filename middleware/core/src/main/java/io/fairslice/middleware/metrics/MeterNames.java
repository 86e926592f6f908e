package io.fairslice.middleware.metrics;

import java.util.List;

/**
 * Every meter the middleware publishes, with its tags. Dashboards and alert rules are built from these names, so
 * they change only together with {@code dashboards/}. Names are Micrometer's (dotted, base units); the Prometheus
 * form is given beside each one.
 *
 * <p>Every meter carries {@link #TAG_APPLICATION}, the web application's context path, besides the tags listed with
 * it. Tag values are bounded: {@code application} takes one value per deployed application, {@code class} only the
 * configured class names, {@code page} only entries of the bounded route table or {@link #PAGE_OTHER},
 * {@code outcome}, {@code reason} and {@code policy} only the constants below.
 */
public final class MeterNames {

    private MeterNames() {
    }

    // ---- tags ----------------------------------------------------------------------------------------------------

    /**
     * The web application: its servlet context path, {@code /} for the root context (Prometheus drops empty labels).
     * On every meter, so that several applications can report into one registry (a standalone Tomcat's) without
     * sharing series, and each removes only its own meters when it stops.
     */
    public static final String TAG_APPLICATION = "application";
    /** The request class (configured names only). */
    public static final String TAG_CLASS = "class";
    /** The normalised page (route) of a request, or {@link #PAGE_OTHER}. */
    public static final String TAG_PAGE = "page";
    /** How a request ended: one of the {@code OUTCOME_*} values. */
    public static final String TAG_OUTCOME = "outcome";
    /** Why a request was rejected: one of the {@code REASON_*} values. */
    public static final String TAG_REASON = "reason";
    /** A scheduling policy: one of the {@code POLICY_*} values. */
    public static final String TAG_POLICY = "policy";
    /** Where a thread parked: one of the {@code WHERE_*} values. */
    public static final String TAG_WHERE = "where";
    /** How a blocked slot holder's run slot went to others: one of the {@code HOW_*} values. */
    public static final String TAG_HOW = "how";
    /** Whether other threads ran in a yield of the CPU: one of the {@code OTHERS_*} values. */
    public static final String TAG_OTHERS = "others";
    /** A request listener's name (only listeners installed in the web application). */
    public static final String TAG_LISTENER = "listener";

    /** The page value for routes beyond the bounded route table (and for unrouteable requests). */
    public static final String PAGE_OTHER = "other";

    public static final String OUTCOME_SUCCESS = "success";
    public static final String OUTCOME_CLIENT_ERROR = "client_error";
    public static final String OUTCOME_SERVER_ERROR = "server_error";
    /** Rejected by admission control (503 with Retry-After); also counted in {@link #REJECTIONS}. */
    public static final String OUTCOME_REJECTED = "rejected";
    public static final List<String> OUTCOMES =
            List.of(OUTCOME_SUCCESS, OUTCOME_CLIENT_ERROR, OUTCOME_SERVER_ERROR, OUTCOME_REJECTED);

    /** The class's wait queue was full when the request arrived. */
    public static final String REASON_QUEUE_FULL = "queue_full";
    /** The request waited in the class's queue longer than the class's queue timeout. */
    public static final String REASON_QUEUE_TIMEOUT = "queue_timeout";
    /** The thread was interrupted while the request waited to be admitted. */
    public static final String REASON_INTERRUPTED = "interrupted";
    public static final List<String> REASONS = List.of(REASON_QUEUE_FULL, REASON_QUEUE_TIMEOUT, REASON_INTERRUPTED);

    public static final String POLICY_OBSERVE = "observe";
    public static final String POLICY_SLEEP = "sleep";
    public static final String POLICY_SHARE = "share";
    public static final List<String> POLICIES = List.of(POLICY_OBSERVE, POLICY_SLEEP, POLICY_SHARE);

    /** Parked (or queued) before the request reached the application: admission. */
    public static final String WHERE_ADMISSION = "admission";
    /** Parked at a yield point inside the application. */
    public static final String WHERE_YIELD = "yield";
    public static final List<String> WHERES = List.of(WHERE_ADMISSION, WHERE_YIELD);

    /** The scheduler found the holder blocked, looking at its thread. */
    public static final String HOW_FOUND = "found";
    /** The application declared the call blocking ({@code Fairslice.blocking()}). */
    public static final String HOW_DECLARED = "declared";
    public static final List<String> HOWS = List.of(HOW_FOUND, HOW_DECLARED);

    /** Other threads ran in the yield (10 us or more went by): the hold of the free slot went on. */
    public static final String OTHERS_RAN = "ran";
    /** No other thread ran in the yield: the hold ended. */
    public static final String OTHERS_NONE = "none";
    /** In the order of {@code ClassState.holdYields}'s index. */
    public static final List<String> OTHERS = List.of(OTHERS_RAN, OTHERS_NONE);

    // ---- requests ------------------------------------------------------------------------------------------------

    /**
     * Timer, tags class, page, outcome: time from the filter's entry to the response's completion (async aware),
     * including time queued or parked. Percentile histogram (1 ms .. 60 s).
     * Prometheus: {@code fairslice_requests_seconds_bucket|_count|_sum|_max}.
     */
    public static final String REQUESTS = "fairslice.requests";

    /**
     * Counter (seconds), tags class, page: the CPU time of the serving threads (their own CPU clock, summed over
     * dispatches), measured on a sample of requests (config {@code cpu.sample-interval}) each counted for the
     * requests it stands for. Prometheus: {@code fairslice_requests_cpu_seconds_total}.
     */
    public static final String REQUESTS_CPU = "fairslice.requests.cpu";

    /**
     * Gauge, tag class: requests of the class between filter entry and completion (running, parked or queued).
     * Prometheus: {@code fairslice_requests_inflight}.
     */
    public static final String REQUESTS_INFLIGHT = "fairslice.requests.inflight";

    /**
     * Gauge, tag class: requests of the class running now (admitted and not parked), and their tasks running now
     * ({@code Fairslice.task}).
     * Prometheus: {@code fairslice_requests_running}.
     */
    public static final String REQUESTS_RUNNING = "fairslice.requests.running";

    // ---- classes and shares --------------------------------------------------------------------------------------

    /**
     * Gauge (ratio 0..1), tag class: the class's part of what the classes were charged, decayed over about two
     * seconds: their requests' CPU time, and the collector's pauses with {@code share.charge-gc}
     * ({@link #CLASS_GC}). What the shares split. A request is charged at its yield points and as it ends (one that
     * reaches none weighs in the seconds after its end); NaN while the classes were charged less than 1 ms in that
     * decay (the server idle). Prometheus: {@code fairslice_class_cpu_share}.
     */
    public static final String CLASS_CPU_SHARE = "fairslice.class.cpu.share";

    /**
     * Counter (seconds), tag class: collector pause time charged to the class ({@code share.charge-gc}): every pause's
     * run-slot time split by the bytes the classes' requests allocated since the pause before.
     * Prometheus: {@code fairslice_class_gc_seconds_total}.
     */
    public static final String CLASS_GC = "fairslice.class.gc";

    /**
     * Gauge (ratio 0..1), tag class: the class's configured share, normalised over all classes.
     * Prometheus: {@code fairslice_class_cpu_share_target}.
     */
    public static final String CLASS_CPU_SHARE_TARGET = "fairslice.class.cpu.share.target";

    /**
     * Gauge (seconds, signed), tag class: the share scheduler's balance of the class, in run-slot time: positive, owed;
     * negative, taken beyond its share while others competed (balances of competing classes sum to zero).
     * Prometheus: {@code fairslice_class_balance_seconds}.
     */
    public static final String CLASS_BALANCE = "fairslice.class.balance";

    /**
     * Counter, tag class: routes the adaptive classifier moved into this class.
     * Prometheus: {@code fairslice_classify_reclassified_total}.
     */
    public static final String CLASSIFY_RECLASSIFIED = "fairslice.classify.reclassified";

    /**
     * Counter, tag class: requests that moved into this class while in flight, because the adaptive classifier decided
     * their route's class as they ran. Prometheus: {@code fairslice_requests_moved_total}.
     */
    public static final String REQUESTS_MOVED = "fairslice.requests.moved";

    /**
     * Gauge: routes in the bounded route table (paths served at least once; see {@code RouteTable}). Prometheus:
     * {@code fairslice_classify_routes}.
     */
    public static final String CLASSIFY_ROUTES = "fairslice.classify.routes";

    /**
     * Counter: requests whose path was not in the full route table and would have let it join: served ones (status
     * below 400, not OPTIONS or TRACE) and, in adaptive mode, costly failures (at least {@code adaptive.heavy-above} of
     * CPU, not a 401, 403, 404, 405, 410 or 501) where that would have let the path join: its second such failure, or
     * each of them while new paths share {@code other} ({@code routes.evict-after=0s}, or the second after the full
     * table found no idle route to evict), as {@code other} does not remember which path failed so before. They
     * share the {@code other} route; other requests on unknown paths do not count. Prometheus:
     * {@code fairslice_classify_routes_overflow_total}.
     */
    public static final String CLASSIFY_ROUTES_OVERFLOW = "fairslice.classify.routes.overflow";

    /**
     * Counter: routes whose place in the full route table went to a new page, having had no request for
     * {@code routes.evict-after}. Prometheus: {@code fairslice_classify_routes_evicted_total}.
     */
    public static final String CLASSIFY_ROUTES_EVICTED = "fairslice.classify.routes.evicted";

    // ---- scheduling ----------------------------------------------------------------------------------------------

    /**
     * Gauge, tag policy: 1 for the active policy, 0 for the others. Prometheus: {@code fairslice_policy}.
     */
    public static final String POLICY = "fairslice.policy";

    /**
     * Counter, tag class: yield points reached while the scheduler was armed (the fast path when nobody may need
     * to yield is not counted: counting it would cost what it saves). Prometheus: {@code fairslice_yield_points_total}.
     */
    public static final String YIELD_POINTS = "fairslice.yield.points";

    /**
     * Counter, tags class and {@link #TAG_HOW}: times a request of the class held a run slot blocked in a call, which
     * then went to another request: {@code found} (sleeping, waiting, parked or on a monitor, or asleep to the OS, at
     * two looks 2 ms apart; the slot is lent until the request reaches its next yield point), or {@code declared}
     * ({@code Fairslice.blocking()}: the slot is given up for the call's length). Prometheus:
     * {@code fairslice_share_slots_lent_total}.
     */
    public static final String SHARE_SLOTS_LENT = "fairslice.share.slots.lent";

    /**
     * Counter, tags class and {@link #TAG_OTHERS}: times a request of the class, first to wait while a free run slot
     * was held for a cheaper class whose next request was on its way, yielded its CPU ({@code Thread.yield}) before
     * it looked again: {@code ran}, other threads ran in the yield and the hold went on (up to 20 ms); {@code none},
     * none did and the hold ended. Prometheus: {@code fairslice_share_hold_yields_total}.
     */
    public static final String SHARE_HOLD_YIELDS = "fairslice.share.hold.yields";

    /**
     * Counter (seconds), tag class: the time requests of the class spent in those yields, the CPU they left to other
     * threads while a slot was held from them. Prometheus: {@code fairslice_share_hold_yielded_seconds_total}.
     */
    public static final String SHARE_HOLD_YIELDED = "fairslice.share.hold.yielded";

    /**
     * Counter, tags class, where: times a request's thread parked (at admission or at a yield point).
     * Prometheus: {@code fairslice_yield_parks_total}.
     */
    public static final String YIELD_PARKS = "fairslice.yield.parks";

    /**
     * Counter (seconds), tags class, where: total time threads spent parked.
     * Prometheus: {@code fairslice_yield_parked_seconds_total}.
     */
    public static final String YIELD_PARKED = "fairslice.yield.parked";

    /**
     * Gauge, tag class: requests waiting now (queued for admission or parked at a yield point), and their tasks
     * waiting to start or parked ({@code Fairslice.task}).
     * Prometheus: {@code fairslice_requests_waiting}.
     */
    public static final String REQUESTS_WAITING = "fairslice.requests.waiting";

    /**
     * Gauge, tag class: tasks that {@code Fairslice.holdingExecutor} holds back from their pool for the class's turn.
     * Prometheus: {@code fairslice_tasks_held}.
     */
    public static final String TASKS_HELD = "fairslice.tasks.held";

    // ---- admission -----------------------------------------------------------------------------------------------

    /**
     * Counter, tags class, reason: requests answered 503 by admission control.
     * Prometheus: {@code fairslice_rejections_total}.
     */
    public static final String REJECTIONS = "fairslice.rejections";

    /**
     * Distribution summary (seconds), tag class: the Retry-After values given with rejections.
     * Prometheus: {@code fairslice_retry_after_seconds_count|_sum|_max}.
     */
    public static final String RETRY_AFTER = "fairslice.retry.after";

    /**
     * Counter (seconds), tag class: of the time requests spent queued at admission ({@link #YIELD_PARKED}, where
     * admission), the part while every permit of the class's {@code max-concurrency} was taken by a request not parked
     * at a yield point: waits for the class's own cap, not for the shares. Zero for a class without a cap.
     * Prometheus: {@code fairslice_admission_capped_seconds_total}.
     */
    public static final String ADMISSION_CAPPED = "fairslice.admission.capped";

    // ---- listeners -----------------------------------------------------------------------------------------------

    /**
     * Counter, tag listener: request listeners disabled because they threw.
     * Prometheus: {@code fairslice_listener_failures_total}.
     */
    public static final String LISTENER_FAILURES = "fairslice.listener.failures";

    // ---- weaving -------------------------------------------------------------------------------------------------

    /**
     * Gauge, no tag but application: woven classes initialised so far that the application runs (those of its class
     * loader, of the loaders below it, and of the loaders it delegates to; {@code weaving.WeavingMetrics}).
     * Prometheus: {@code fairslice_weaving_classes}.
     */
    public static final String WOVEN_CLASSES = "fairslice.weaving.classes";
}
