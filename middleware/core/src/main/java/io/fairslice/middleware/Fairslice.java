package io.fairslice.middleware;

/**
 * The public entry point for application code. {@link #yieldPoint()} is where a request may give the CPU back
 * to lighter work: the AspectJ weaver inserts calls to it into the application's own methods, and code that runs
 * without the weaving agent may call it directly in long loops.
 */
public final class Fairslice {

    private Fairslice() {
    }

    /**
     * A cooperative yield point. Returns at once (a few nanoseconds, no lock, no allocation) unless the scheduler
     * wants the current request to pause; then it parks the thread for a bounded time.
     */
    public static void yieldPoint() {
        // filled in by the middleware issue
    }
}
