package io.fairslice.middleware;

import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.schedule.Ticket;

/**
 * The public entry point for application code. {@link #yieldPoint()} is where a request may give the CPU back
 * to lighter work: the AspectJ weaver inserts calls to it into the application's own methods, and code that runs
 * without the weaving agent may call it directly in long loops.
 */
public final class Fairslice {

    private Fairslice() {
    }

    /**
     * A cooperative yield point. Returns at once (one volatile read, no lock, no allocation) unless some
     * web application's scheduler is armed, that is, classes compete or the policy wants a look; then it finds the
     * current thread's request and lets its scheduler decide, which may park the thread for a bounded time.
     * Outside a request (no filter on this thread) it always returns at once.
     */
    public static void yieldPoint() {
        if (!YieldGate.armed()) {
            return;
        }
        Ticket ticket = YieldGate.current();
        if (ticket != null) {
            ticket.scheduler().yieldPoint(ticket);
        }
    }
}
