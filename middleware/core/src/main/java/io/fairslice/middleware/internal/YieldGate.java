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
 * which the filter sets and clears around every dispatch, so tests stay independent of each other.
 */
public final class YieldGate {

    private YieldGate() {
    }

    private static final AtomicInteger ARMED = new AtomicInteger();
    private static final ThreadLocal<Ticket> CURRENT = new ThreadLocal<>();
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
