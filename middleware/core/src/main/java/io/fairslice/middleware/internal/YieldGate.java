package io.fairslice.middleware.internal;

import io.fairslice.middleware.schedule.Ticket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link io.fairslice.middleware.Fairslice#yieldPoint()} reads. The fast path is one volatile read of
 * {@link #ARMED}: the number of schedulers (one per web application) that may want a running request to yield
 * right now. Only when it is non-zero does the yield point look up the current thread's request.
 *
 * <p>Static on purpose: woven application code reaches the yield point through a static call and cannot carry a
 * reference. It holds no configuration and no per-application state, only a count and the per-thread request,
 * which the filter sets and clears around every dispatch (and the request a held task is handed over for, around
 * the hand-over), so tests stay independent of each other.
 */
public final class YieldGate {

    private YieldGate() {
    }

    private static final AtomicInteger ARMED = new AtomicInteger();
    private static final ThreadLocal<Ticket> CURRENT = new ThreadLocal<>();
    /** The request a held task is being handed to its executor for, on the thread handing it over, or null. */
    private static final ThreadLocal<Ticket> HANDING = new ThreadLocal<>();
    /** How many woven synchronized methods and class initialisers the current thread is inside. */
    private static final ThreadLocal<int[]> MONITORS = ThreadLocal.withInitial(() -> new int[1]);

    public static boolean armed() {
        return ARMED.get() != 0;
    }

    public static void arm() {
        ARMED.incrementAndGet();
    }

    public static void disarm() {
        ARMED.decrementAndGet();
    }

    /** The request the current thread serves, or the task of a request it runs ({@code Fairslice.task}), or null. */
    public static Ticket current() {
        return CURRENT.get();
    }

    /**
     * The request that work submitted on this thread belongs to ({@code Fairslice.task}, a holding executor): the one
     * a held task is being handed over for ({@link #handOver}), else {@link #current()}. Only submissions read it: a
     * yield point, a declared blocking call or a declared class in code that the executor runs as it is given the task
     * (a woven thread factory, the application's own executor) is this thread's own, never the submitter's, whose
     * own thread runs on meanwhile.
     */
    public static Ticket submitter() {
        Ticket handing = HANDING.get();
        return handing != null ? handing : CURRENT.get();
    }

    /**
     * The current thread hands a task of {@code submitter}'s request to its executor: work submitted meanwhile is that
     * request's ({@link #submitter()}). Returns what to restore with {@link #handedOver} (hand-overs may nest).
     */
    public static Ticket handOver(Ticket submitter) {
        Ticket before = HANDING.get();
        HANDING.set(submitter);
        return before;
    }

    /** The hand-over {@link #handOver} began has ended: {@code before} is what it returned. */
    public static void handedOver(Ticket before) {
        if (before != null) {
            HANDING.set(before);
        } else {
            HANDING.remove();
        }
    }

    /** Set by the filter on dispatch entry, and by the scheduler around a request's task. */
    public static void enter(Ticket ticket) {
        CURRENT.set(ticket);
    }

    /** Cleared by the filter in finally on dispatch exit, and by the scheduler after a task. */
    public static void exit() {
        CURRENT.remove();
    }

    /** Woven code entered a synchronized method or a class initialiser: the thread now holds a lock. */
    public static void monitorEntered() {
        MONITORS.get()[0]++;
    }

    /** Woven code left what {@link #monitorEntered()} counted, by return or by exception. */
    public static void monitorExited() {
        MONITORS.get()[0]--;
    }

    /**
     * True inside a woven synchronized method or class initialiser (or code they call): a request must not park
     * here, or every request that needs the same lock waits for this one's next turn.
     */
    public static boolean inMonitor() {
        return MONITORS.get()[0] > 0;
    }
}
