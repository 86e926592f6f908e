package io.fairslice.middleware;

import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.schedule.TaskExecutor;
import io.fairslice.middleware.schedule.Ticket;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The public entry point for application code. {@link #yieldPoint()} is where a request may give the CPU back
 * to lighter work: the AspectJ weaver inserts calls to it into the application's own methods, and code that runs
 * without the weaving agent may call it directly in long loops. {@link #blocking()} declares a call that waits (a
 * query, a remote call), so that the request's run slot serves other requests meanwhile.
 */
public final class Fairslice {

    private Fairslice() {
    }

    /**
     * A cooperative yield point. Returns at once (one volatile read, no lock, no allocation) unless some
     * web application's scheduler is armed, that is, classes compete or the policy wants a look; then it finds the
     * current thread's request and lets its scheduler decide, which may park the thread for a bounded time.
     * Outside a request or a {@link #task} of one (no filter on this thread) it always returns at once.
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

    /**
     * Declares that the current thread is about to wait in a call that uses no CPU (a database query, a call to
     * another service, a read from a slow disk), until the returned handle is closed:
     *
     * <pre>{@code
     * try (Fairslice.Blocking ignored = Fairslice.blocking()) {
     *     rows = statement.executeQuery();
     * }
     * }</pre>
     *
     * <p>Under the {@code share} policy the request gives its run slot to the next request at once, and takes one again
     * (waiting for it as at a yield point: for at most {@code share.max-park}, or its class's {@code queue-timeout} if
     * longer for a task or a request that moved class) when the handle is closed. Without the
     * declaration, fairslice finds a request blocked only after looking at its thread twice, 2 ms apart (and, for a
     * socket read, only where the OS can be asked: Linux). Declarations may nest, and close in any order: the request
     * takes a run slot again as the last open one closes. In a {@link #task} it declares the task's call, and the task
     * gives its run slot up the same way. Outside a request served through the filter (or a task of one) it does
     * nothing; under the other policies it only tells fairslice that the call's time is no CPU (which matters where the
     * JVM cannot measure the thread's CPU: a virtual thread). The handle must be closed on the thread that opened it;
     * closing it again does nothing. A handle left open ends with its request's dispatch (or its task): closed later,
     * in another dispatch or after the request ended, it ends nothing, so it never cuts short a declaration of that
     * later dispatch. Without code changes, JDBC calls are declared this way by a data source wrapped in
     * {@link io.fairslice.middleware.jdbc.BlockingDataSource}, or, in woven code, by the optional
     * {@code BlockingCallAspect} (docs/weaving.md).
     */
    public static Blocking blocking() {
        Ticket ticket = YieldGate.current();
        if (ticket == null) {
            return Blocking.OUTSIDE;
        }
        return new Blocking(ticket, Thread.currentThread(), ticket.scheduler().blockingBegins(ticket));
    }

    /**
     * Declares the current request's class where the application knows it better than the request's URL does: a front
     * controller (one servlet behind every page of an MVC framework, {@code *.do}) that is about to forward to a cheap
     * view or to an expensive report. Rules and routes see only the URL the client asked for, never a forward's or an
     * include's target. The request moves to {@code className} at once (it may wait here for that class's turn, as at a
     * yield point; inside a woven synchronized method, at its first yield point outside), its route's later decisions
     * no longer move it, and its CPU teaches its route nothing; it is counted under its page and the declared class. It
     * keeps the permit it was admitted with: the declared class's {@code max-concurrency} and {@code queue-size} do not
     * apply to it, and each of its later parks is bounded by that class's {@code queue-timeout}, as for any request
     * that moved. Only on the thread of a dispatch of the request (not in a {@link #task}: a task stays in its
     * request's class, and moves with it; nor on another thread of the application's); elsewhere, and where fairslice
     * is off (disabled, or its application stopped while the request ran on), it does nothing and answers false.
     *
     * @return whether the request now belongs to {@code className}; false (and one WARNING per name, naming the
     *         configured classes) when it is none of them, or null: a scheduling hint never fails the page
     */
    public static boolean classify(String className) {
        Ticket ticket = YieldGate.current();
        return ticket != null && ticket.scheduler().declare(ticket, className);
    }

    /**
     * {@code work} as part of the current request, for another thread: a page that hands its work to an executor of its
     * own ({@code startAsync()}, then {@code pool.execute(Fairslice.task(work))}) has that work scheduled and counted
     * as the request's. Under {@code share} the task runs as a request of the request's class would: it starts when its
     * class may run (it waits for a run slot or its class's turn, each wait bounded by the class's
     * {@code queue-timeout} or {@code share.max-park}, the longer), parks at its yield points while its class has had
     * its share and another class waits, gives its slot up in a {@link #blocking()} call, and is charged its thread's
     * CPU; its CPU counts in its page's CPU meter and in what its route teaches the adaptive classifier. Without it
     * fairslice sees only the microseconds of the dispatch that started the work, and the work's yield points find no
     * request. The task moves with its request (a page learnt heavy, a declared class: at once while it waits, at its
     * next yield point while it runs), needs no permit of its own (the request's covers it:
     * {@code class.<c>.max-concurrency} counts requests), and may submit tasks of the same request in turn. Wrap where
     * the request's thread submits the work; outside a request served through the filter, {@code work} is returned as
     * it is. A task that the request's dispatch waits for ({@code future.join()}) may wait for a run slot while the
     * classes compete, until two looks 2 ms apart find the dispatch blocked and lend its slot. In code that is not
     * woven a task has no yield point: it is held only as it starts, then runs whole (and ends in the class it started
     * in); weave the code it runs, or cap its class.
     */
    public static Runnable task(Runnable work) {
        return task(work, "Fairslice.task(work): work is null");
    }

    /** {@link #task(Runnable)}, refusing a null {@code work} with {@code ifNull}, which names the call. */
    private static Runnable task(Runnable work, String ifNull) {
        Objects.requireNonNull(work, ifNull); // here, not on the pool's thread after a wait for a slot
        Ticket ticket = YieldGate.submitter(); // a held task handed over on another thread: its own request's
        return ticket == null ? work : ticket.scheduler().task(ticket, work);
    }

    /**
     * An executor that runs each command as a {@link #task} of the request that submits it (outside a request, as
     * it is): {@code CompletableFuture.supplyAsync(supplier, Fairslice.executor(pool))}. Each command goes to
     * {@code executor} at once, on the submitting thread, and waits for its class's turn on the pool's thread: in a
     * pool that several classes share, see {@link #holdingExecutor}.
     */
    public static Executor executor(Executor executor) {
        Objects.requireNonNull(executor, "Fairslice.executor(executor): executor is null");
        return command -> executor.execute(task(command, "Fairslice.executor(...).execute(command): command is"
                + " null"));
    }

    /**
     * {@link #executor}, for a pool that several classes share: tasks wrapped one by one wait for their class's turn
     * on the pool's threads, so heavy tasks waiting for their share can take every thread while light tasks queue
     * behind them. This one gives {@code executor} one task at a time of a class whose work waits for its turn, holds
     * the class's next ones itself (up to the class's {@code queue-size}), in order, and hands them over as the one
     * before starts (all of them once the class may run). The hold is per {@code executor}, so this may be called for
     * every task. A held task reaches {@code executor} from another thread (the one whose task of its class started):
     * context that {@code executor} captures as it is given a task (a Spring {@code TaskDecorator} on the pool: MDC, a
     * security context) would be that thread's, so capture it outside, on the submitting thread (a decorator on a
     * {@code TaskExecutorAdapter} around this). fairslice's own request is the task's (docs/architecture.md, "Limits").
     */
    public static Executor holdingExecutor(Executor executor) {
        return new TaskExecutor(executor);
    }

    /** A declared blocking call ({@link #blocking()}); closing it ends the declaration. */
    public static final class Blocking implements AutoCloseable {

        /** The handle of a declaration made outside any request: nothing to end. */
        static final Blocking OUTSIDE = new Blocking(null, null, 0);

        private final Ticket ticket;
        private final Thread thread;
        /** The dispatch of its request that declared it (Scheduler#blockingBegins): it ends nothing in a later one. */
        private final int epoch;
        private boolean closed;

        private Blocking(Ticket ticket, Thread thread, int epoch) {
            this.ticket = ticket;
            this.thread = thread;
            this.epoch = epoch;
        }

        /**
         * The call returned: the request takes a run slot again, and may wait for one.
         *
         * @throws IllegalStateException on a thread other than the one that declared the call
         */
        @Override
        public void close() {
            if (ticket == null || closed) {
                return;
            }
            if (Thread.currentThread() != thread) {
                throw new IllegalStateException("Fairslice.blocking() was declared on thread '" + thread.getName()
                        + "' and must be closed there, not on '" + Thread.currentThread().getName() + "'");
            }
            closed = true;
            ticket.scheduler().blockingEnds(ticket, epoch);
        }
    }
}
