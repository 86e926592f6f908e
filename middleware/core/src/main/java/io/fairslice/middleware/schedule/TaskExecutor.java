package io.fairslice.middleware.schedule;

import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.internal.YieldGate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An executor that runs each command as a task of the request that submits it ({@link Scheduler#task}) on an
 * executor of the application's, and keeps a class's tasks that wait for their turn from taking that executor's
 * threads. While classes compete, a class whose work waits has one task in the executor that has yet to start
 * (waiting for a thread, or on one for its class's turn); its next tasks wait here, in the order they came. As that
 * task starts, the next is handed over, or all of them when the class's work no longer waits. Without that, in a
 * pool that several classes share, heavy tasks waiting for their share held every thread while light tasks queued
 * behind them in the pool, at heavy's pace. A held task is handed over on the thread whose task of its class
 * started, as its own request's (the submitting request that {@code Fairslice.task} reads meanwhile; the thread's
 * yield points stay its own); other context the executor captures as it is given a task is that thread's.
 *
 * <p>The hold is per executor, whatever wraps it: {@code Fairslice.holdingExecutor(pool)} may be called per task. A
 * class whose tasks start at once (no other class active, or a policy other than share) has them handed over as they
 * come. A class holds at most its {@code queue-size} tasks here; beyond it they go to the executor at once (and wait
 * on its threads, as without this). Nothing is dropped: a held task that the executor refuses as it is handed over
 * (shut down, its queue full), or runs on the thread that hands it over (a caller-runs policy), runs on that thread
 * once the task that thread runs now has ended, with a WARNING for a refusal; a task refused as it is submitted
 * throws the executor's exception to the caller, as the executor alone would. Commands submitted outside a request go
 * to the executor as they are. A task handed over that has not started within twice the longest a task may wait for
 * its turn (an executor that dropped it) is no longer waited for, with a WARNING, at the class's next submission or
 * start. As a scheduler closes ({@link #forget}) its classes' tasks held are handed over, and none of its tasks is
 * waited for any more.
 */
public final class TaskExecutor implements Executor {

    private static final Logger LOG = Loggers.of(TaskExecutor.class);

    /**
     * The (executor, class) pairs with tasks handed over and not yet started or held; guarded by itself. A lane is
     * dropped once empty, and every lane of a scheduler as it closes ({@link #forget}), so an executor or an
     * undeployed application's classes are not kept: the jar may be in Tomcat's lib/, shared by its applications.
     */
    private static final Map<Key, Lane> LANES = new HashMap<>();

    /** Per thread, while it hands held tasks over or has some to run once its own task ends. */
    private static final ThreadLocal<Later> LATER = new ThreadLocal<>();

    private final Executor executor;

    public TaskExecutor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "Fairslice.holdingExecutor(executor): executor is null");
    }

    /** An executor and a class, by identity. */
    private record Key(Executor executor, ClassState cls) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.executor == executor && k.cls == cls;
        }

        @Override
        public int hashCode() {
            return 31 * System.identityHashCode(executor) + System.identityHashCode(cls);
        }
    }

    /** One class's tasks in one executor: those handed over that have yet to start, oldest first, and those held. */
    private static final class Lane {
        final Scheduler scheduler;
        final ArrayDeque<Handed> unstarted = new ArrayDeque<>();
        final ArrayDeque<Handed> held = new ArrayDeque<>();

        Lane(Scheduler scheduler) {
            this.scheduler = scheduler;
        }
    }

    /**
     * A thread's tasks to run once its own task (or submission) ends, and whether it is handing one to the executor
     * now. The outermost frame that found none (a {@link Handed#run}, an {@link #execute}) sets it and runs the tasks.
     */
    private static final class Later {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        boolean handing;
    }

    /** What the executor is given: the scheduled task, which reports its start to its lane once. */
    private final class Handed implements Runnable {
        final Key key;
        final Ticket submitter;
        final AtomicBoolean started = new AtomicBoolean();
        Runnable task;
        /** When it was handed to the executor (System.nanoTime), under the lanes' monitor. */
        long handedAt;

        Handed(Key key, Ticket submitter) {
            this.key = key;
            this.submitter = submitter;
        }

        void started() {
            if (started.compareAndSet(false, true)) {
                TaskExecutor.this.started(this);
            }
        }

        @Override
        public void run() {
            Later later = LATER.get();
            if (later != null && later.handing) { // the executor runs it on the thread handing it over: not inside
                later.tasks.add(task);
                return;
            }
            if (later != null) { // run by an executor that runs tasks in place, inside a task: that task's frame runs
                task.run(); //      what this one leaves
                return;
            }
            later = new Later();
            LATER.set(later);
            try {
                task.run();
            } finally {
                runLater(later);
            }
        }
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "Fairslice.holdingExecutor(...).execute(command): command is null");
        Ticket ticket = YieldGate.submitter();
        if (ticket == null) {
            executor.execute(command);
            return;
        }
        Scheduler scheduler = ticket.scheduler();
        Scheduler.TaskStart start = scheduler.taskStart(ticket);
        ClassState c = start.cls();
        boolean mayWait = start.mayWait();
        Key key = new Key(executor, c);
        Handed handed = new Handed(key, ticket);
        handed.task = scheduler.task(ticket, command, handed::started);
        Lane lane;
        boolean now;
        boolean handOver;
        String lost = null;
        synchronized (LANES) {
            if (scheduler.isClosed()) { // forget has run, or will find no lane made now: none is kept for it
                lane = null;
                now = true;
                handOver = false;
            } else {
                lane = LANES.computeIfAbsent(key, k -> new Lane(scheduler));
                now = lane.held.isEmpty() && (!mayWait || lane.unstarted.isEmpty())
                        || lane.held.size() >= scheduler.tasksHeldAtMost(c);
                if (now) {
                    // also while none is held: a pool that drops tasks grew the queue for good
                    lost = forgetLost(lane, key);
                    handed.handedAt = System.nanoTime();
                    lane.unstarted.add(handed);
                } else {
                    lane.held.add(handed);
                    lost = forgetLost(lane, key);
                }
                handOver = !now && (!mayWait || lane.unstarted.isEmpty()); // after a lost task, say
            }
        }
        warn(lost);
        boolean outermost = LATER.get() == null; // else a task runs on this thread, and runs what this leaves
        try {
            if (now) {
                try {
                    executor.execute(handed);
                } catch (RuntimeException | Error e) { // refused, or run here and failed
                    handed.started(); // if it never did: the class's held tasks must not wait for it
                    throw e;
                }
            } else if (handOver) {
                handOver(lane, key); // the tasks held before go first, this one after them
            }
        } finally {
            Later later = LATER.get();
            if (outermost && later != null) {
                runLater(later);
            }
        }
    }

    /** How many of the class's tasks every holding executor holds back now (the gauge fairslice.tasks.held). */
    public static int heldTasks(ClassState c) {
        int n = 0;
        synchronized (LANES) {
            for (Map.Entry<Key, Lane> e : LANES.entrySet()) {
                if (e.getKey().cls() == c) {
                    n += e.getValue().held.size();
                }
            }
        }
        return n;
    }

    /** Whether this thread holds the lanes' monitor (for tests: nothing is logged under it). */
    static boolean holdsLanes() {
        return Thread.holdsLock(LANES);
    }

    /** How many tasks every lane has handed over that have not started (for tests). */
    static int unstartedTasks() {
        synchronized (LANES) {
            return LANES.values().stream().mapToInt(l -> l.unstarted.size()).sum();
        }
    }

    /** How many (executor, class) pairs have tasks handed over unstarted or held (for tests). */
    static int lanes() {
        synchronized (LANES) {
            return LANES.size();
        }
    }

    /**
     * Forgets every lane of {@code scheduler}, which closes ({@link Scheduler#close}: the application stops). Without
     * this, a lane whose task handed over never started (an executor that dropped it, shut down with
     * {@code shutdownNow}) would stay in this static map for good once no task of its class came again, and with it the
     * undeployed application's executor, scheduler, requests and commands, hence its class loader, where the jar sits
     * in Tomcat's lib/; and its held tasks would never run. Its held tasks are handed over now, all of them (a closed
     * scheduler lets every task start at once), in the order they came; one the executor refuses (or runs on this
     * thread) runs on this thread once they are all handed over, as at any hand-over. Its tasks handed over that
     * have yet to start are no longer waited for: they start, if ever, as their executor runs them.
     */
    static void forget(Scheduler scheduler) {
        List<Map.Entry<Key, Lane>> gone = new ArrayList<>();
        synchronized (LANES) {
            for (Iterator<Map.Entry<Key, Lane>> i = LANES.entrySet().iterator(); i.hasNext(); ) {
                Map.Entry<Key, Lane> e = i.next();
                if (e.getValue().scheduler == scheduler) {
                    gone.add(Map.entry(e.getKey(), e.getValue()));
                    i.remove();
                }
            }
        }
        if (gone.isEmpty()) {
            return;
        }
        boolean outermost = LATER.get() == null; // else a task runs on this thread, and runs what this leaves
        try {
            for (Map.Entry<Key, Lane> e : gone) {
                Lane lane = e.getValue();
                while (true) {
                    Handed next;
                    synchronized (LANES) { // a task of the lane that starts now may hand its held tasks over too
                        next = lane.held.poll();
                    }
                    if (next == null) {
                        break;
                    }
                    handOne(e.getKey(), next);
                }
            }
        } finally {
            Later later = LATER.get();
            if (outermost && later != null) {
                runLater(later);
            }
        }
    }

    /** One of the class's tasks handed over no longer waits to start (or never will): the next may go. */
    private void started(Handed handed) {
        Lane lane;
        synchronized (LANES) {
            lane = LANES.get(handed.key);
            if (lane == null || !lane.unstarted.remove(handed)) {
                return; // given up on as lost (forgetLost), and its lane with it perhaps
            }
        }
        handOver(lane, handed.key);
    }

    /**
     * Under the lanes' monitor, at a submission or a start: the class's tasks handed over that have not started within
     * twice the longest a task may wait for its turn ({@link Scheduler#tasksWaitAtMost}) are no longer waited for. The
     * executor dropped them (a discard policy, {@code shutdownNow}), or its queue holds them that long; either way
     * the held tasks go on without them. One WARNING per pass, returned (null: none) for the caller to log once it
     * has released the monitor: it is JVM-wide, and a virtual thread that logs under it pins its carrier (Java 21 to
     * 23) while the log's handlers write. Also while none is held: until 2026-12-06 a pool that dropped tasks of a
     * class that held none kept each of them here (its request's ticket, the application's command) for as long as
     * the class held none, searched at every start (found by review).
     */
    private static String forgetLost(Lane lane, Key key) {
        Handed first = lane.unstarted.peek();
        long now = System.nanoTime();
        long bound = 2 * lane.scheduler.tasksWaitAtMost(key.cls());
        if (first == null || now - first.handedAt <= bound) {
            return null; // the common case, cheap: the oldest is recent
        }
        int lost = 0;
        for (Handed h = lane.unstarted.peek(); h != null && now - h.handedAt > bound; h = lane.unstarted.peek()) {
            lane.unstarted.poll();
            h.started.set(true); // should it start after all, it counts nothing
            lost++;
        }
        return lost == 0 ? null : lane.scheduler.logPrefix() + lost + " task(s) of class '" + key.cls().name
                + "' handed to their executor over " + bound / 1_000_000 + " ms ago have not started; the class's held"
                + " tasks no longer wait for them (an executor that drops tasks, or a queue that slow?)";
    }

    /** Logs what {@link #forgetLost} found, if anything, outside the lanes' monitor. */
    private static void warn(String lost) {
        if (lost != null) {
            LOG.warning(lost);
        }
    }

    /**
     * Hands the class's held tasks over in the order they came: one while the class's work waits for its turn and no
     * task of it is in the executor unstarted, all of them otherwise.
     */
    private void handOver(Lane lane, Key key) {
        while (true) {
            boolean waits = lane.scheduler.tasksWait(key.cls()); // outside the monitor: it takes the scheduler's lock
            Handed next = null;
            String lost;
            synchronized (LANES) {
                lost = forgetLost(lane, key);
                if (lane.held.isEmpty() || waits && !lane.unstarted.isEmpty()) {
                    if (lane.held.isEmpty() && lane.unstarted.isEmpty()) {
                        LANES.remove(key, lane);
                    }
                } else {
                    next = lane.held.poll();
                    next.handedAt = System.nanoTime();
                    lane.unstarted.add(next);
                }
            }
            warn(lost);
            if (next == null) {
                return;
            }
            handOne(key, next);
        }
    }

    /**
     * Hands one held task to its executor, outside the lanes' monitor: an executor may run it on this thread (then it
     * runs once this thread's own task, or submission, has ended), or refuse it (then too).
     */
    private static void handOne(Key key, Handed next) {
        Later later = LATER.get();
        if (later == null) { // on a submitting thread (execute), which runs it once it is done
            later = new Later();
            LATER.set(later);
        }
        later.handing = true;
        // an executor that reads the submitting request (a task decorator of fairslice's, Spring Boot's) reads the
        // task's, not this thread's. Not as this thread's request (YieldGate.enter): a yield point in woven code the
        // executor runs (a thread factory of the application's) then charged, parked or moved the submitter's request,
        // whose own thread runs on, from this thread
        Ticket before = YieldGate.handOver(next.submitter);
        try {
            key.executor().execute(next);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, next.submitter.scheduler().logPrefix() + "the executor refused a task held back"
                    + " for its class's turn; it runs on the thread that handed it over, once that thread's own task"
                    + " has ended", e);
            later.tasks.add(next.task);
        } finally {
            later.handing = false;
            YieldGate.handedOver(before);
        }
    }

    /**
     * Runs the tasks this thread was left (by a caller-runs executor, or refused), one after another, the ones they
     * leave in turn too, then forgets the thread's {@code later}.
     */
    private static void runLater(Later later) {
        Error failed = null;
        try {
            for (Runnable task = later.tasks.poll(); task != null; task = later.tasks.poll()) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "fairslice: a task run on the thread that handed it over failed", e);
                } catch (Error e) {
                    if (failed == null) {
                        failed = e; // the others still run; then it goes on up
                    }
                }
            }
        } finally {
            LATER.remove();
        }
        if (failed != null) {
            throw failed;
        }
    }
}
