package io.fairslice.middleware.schedule;

import io.fairslice.middleware.internal.YieldGate;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An executor that runs each command as a task of the request that submits it ({@link Scheduler#task}) on an
 * executor of the application's, and keeps a class's tasks that may have to wait for their turn from taking that
 * executor's threads: while classes compete, at most one task of each class is in the executor and not yet started
 * (waiting for a thread, or on one for its class's turn); the class's next tasks wait here, in the order they came,
 * and each is handed over as the one before it starts. Without that, in a pool that several classes share, heavy
 * tasks waiting for their share held every thread while light tasks queued behind them in the pool, at heavy's pace.
 *
 * <p>A class whose tasks start at once (no other class active, or a policy other than share) has its tasks handed
 * over as they come. A class holds at most its {@code queue-size} tasks here; beyond it they go to the executor at once
 * (and wait on its threads, as without this). Nothing is dropped: a held task that the executor refuses when its turn
 * to be handed over comes (shut down, its queue full) runs on the thread that was handing it over, with a WARNING; a
 * task refused as it is submitted throws the executor's exception to the caller, as the executor alone would.
 * Commands submitted outside a request go to the executor as they are.
 */
public final class TaskExecutor implements Executor {

    private static final Logger LOG = Logger.getLogger(TaskExecutor.class.getName());

    private final Executor executor;
    /** The classes with tasks in the executor not yet started or held here; guarded by itself. */
    private final Map<ClassState, Lane> lanes = new HashMap<>();

    public TaskExecutor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /** One class's tasks: those handed over and not yet started, and those held back in submission order. */
    private static final class Lane {
        final Scheduler scheduler;
        int unstarted;
        final ArrayDeque<Runnable> held = new ArrayDeque<>();

        Lane(Scheduler scheduler) {
            this.scheduler = scheduler;
        }
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        Ticket ticket = YieldGate.current();
        if (ticket == null) {
            executor.execute(command);
            return;
        }
        Scheduler scheduler = ticket.scheduler();
        ClassState c = scheduler.taskClass(ticket);
        boolean mayWait = scheduler.tasksMayWait(c);
        Runnable task = scheduler.task(ticket, command, () -> started(c));
        Lane lane;
        boolean now;
        synchronized (lanes) {
            lane = lanes.computeIfAbsent(c, k -> new Lane(scheduler));
            now = lane.held.isEmpty() && (!mayWait || lane.unstarted == 0)
                    || lane.held.size() >= scheduler.tasksHeldAtMost(c);
            if (now) {
                lane.unstarted++;
            } else {
                lane.held.add(task);
            }
        }
        if (now) {
            try {
                executor.execute(task);
            } catch (RuntimeException | Error e) {
                started(c); // it never will: the class's held tasks must not wait for it
                throw e;
            }
        } else if (!mayWait) {
            handOver(lane, c); // the tasks held while the class competed go first, this one after them
        }
    }

    /** How many of the class's tasks wait here to be handed over (for tests). */
    int held(ClassState c) {
        synchronized (lanes) {
            Lane lane = lanes.get(c);
            return lane == null ? 0 : lane.held.size();
        }
    }

    /** One of the class's tasks handed over no longer waits to start (or never will): the next may go. */
    private void started(ClassState c) {
        Lane lane;
        synchronized (lanes) {
            lane = lanes.get(c);
            lane.unstarted--;
        }
        if (!runningRefused.get()) { // else the thread is inside handOver, which goes on after this task
            handOver(lane, c);
        }
    }

    /** Set on a thread that runs a task the executor refused, inside {@link #handOver}. */
    private final ThreadLocal<Boolean> runningRefused = ThreadLocal.withInitial(() -> false);

    /**
     * Hands the class's held tasks over in the order they came: one while the class may have to wait and none of its
     * tasks is in the executor unstarted, all of them otherwise.
     */
    private void handOver(Lane lane, ClassState c) {
        while (true) {
            boolean mayWait = lane.scheduler.tasksMayWait(c); // outside the monitor: it takes the scheduler's lock
            Runnable next;
            synchronized (lanes) {
                if (lane.held.isEmpty() || mayWait && lane.unstarted > 0) {
                    if (lane.held.isEmpty() && lane.unstarted == 0) {
                        lanes.remove(c, lane); // an undeployed application's classes are not kept
                    }
                    return;
                }
                next = lane.held.poll();
                lane.unstarted++;
            }
            try {
                executor.execute(next); // outside the monitor: an executor may run it on this thread
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "fairslice: the executor refused a task held back for its class's turn; it runs"
                        + " on the thread that handed it over", e);
                boolean was = runningRefused.get();
                runningRefused.set(true);
                try {
                    next.run(); // its start counts it started; this loop hands the rest over
                } finally {
                    runningRefused.set(was);
                }
            }
        }
    }
}
