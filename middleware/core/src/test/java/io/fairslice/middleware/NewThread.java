package io.fairslice.middleware;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs a test's blocking call (a request held, a park, a queue wait) on a thread of its own, started for it.
 *
 * <p>Not {@code CompletableFuture.supplyAsync(supplier)}: its default executor is the common pool, whose parallelism
 * is the cores less one, and from JDK 25 on it runs there even with one thread (JDK-8362881; JDK 17 started a thread
 * per call when the pool had fewer than two). On a 2-core machine two blocking calls ran one after the other, not
 * side by side (a call that blocks in {@code LockSupport.park}, as the scheduler's waits do, gets no spare thread
 * from the pool), and a call could wait behind another test's.
 */
public final class NewThread {

    private static final AtomicInteger CALLS = new AtomicInteger();

    /** A new daemon thread for each task: a call that never returns does not keep the test JVM alive. */
    private static final Executor EACH = task -> {
        Thread t = new Thread(task, "test-call-" + CALLS.incrementAndGet());
        t.setDaemon(true);
        t.start();
    };

    private NewThread() {
    }

    /** {@code supplier}'s result, computed on a new thread. */
    public static <T> CompletableFuture<T> supply(Supplier<T> supplier) {
        return CompletableFuture.supplyAsync(supplier, EACH);
    }

    /** {@code action}'s end, run on a new thread. */
    public static CompletableFuture<Void> run(Runnable action) {
        return CompletableFuture.runAsync(action, EACH);
    }
}
