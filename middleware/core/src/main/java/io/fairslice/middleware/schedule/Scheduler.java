package io.fairslice.middleware.schedule;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.Policy;
import io.fairslice.middleware.RequestClassConfig;
import io.fairslice.middleware.classify.RouteTable;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.metrics.MeterNames;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Decides who runs: admission of requests into the application (class caps, bounded wait queues, share gating)
 * and parking at yield points. One per web application.
 *
 * <p><b>The share policy</b> is weighted fair queueing of <em>run slots</em>. While two or more classes have requests
 * in flight, at most {@code share.cpus} requests run at once (default: the JVM's available processors, so the OS
 * sees no more runnable request threads than it has CPUs and its timeslice no longer decides who suffers). Every
 * class has a virtual time: the run-slot time it was charged, divided by its share weight. A free slot goes to the
 * waiting class with the lowest virtual time (within a class: requests parked at a yield point first, then the
 * admission queue in arrival order). A running request that reaches a yield point after holding its slot for
 * {@code share.quantum} gives the slot up, and parks, when another class waits with a lower virtual time.
 *
 * <p><b>What is charged: the requests' CPU.</b> A slot is charged the CPU its holder's thread used, waiting for
 * the slot included ({@link #slotCharge}); a request that starts in a cheap class's turn (below), as it starts, the
 * class's mean CPU per request over the last seconds ({@link ClassState#meanCpuNanos}: most requests' clocks are not
 * read), so that a turn ends once the requests it has started will have used what its class is owed, and, if it runs
 * past a quantum, what its measured CPU exceeds that mean by, at its yield points. With {@code share.charge-gc}, the
 * collector's pauses too: each is split between the classes by the bytes their requests allocated since the pause
 * before ({@link #collectorPaused}). Other work no request does (the container around requests, the JIT compiler,
 * concurrent collector threads) is no class's: the shares split what the classes were charged, as
 * {@code fairslice.class.cpu.share} reports it. Exception: a slot of a cheap class outside a turn (its
 * requests' clocks are not read; it holds one only until its turn starts) is charged its wall time.
 *
 * <p><b>Turns.</b> A class whose requests are cheap (mean measured CPU below {@code share.turn-below}) would pay a
 * handover per request for its run slot: a park, a wake-up and two context switches for a request of a few hundred
 * microseconds. Instead, once it holds every run slot it has a <em>turn</em>: its requests start as they come, without
 * a slot each, and the OS runs them side by side as it would without fairslice. The turn closes when its charges put
 * its class past a class that waits (later requests wait; those still running stop at their next yield point, where
 * they wait first in their class's yield queue, and those that reach none finish, for at most {@link #closingBound}),
 * or when none of its requests has run for {@link #TURN_ANTICIPATION_NANOS}, and ends at once when all that run have
 * reached no yield point for {@code share.max-park} while another class waits ({@link #silentTurn}); the first waiter
 * of the other classes is granted by the event that ends it. A request stopped so paid its class's mean for its whole
 * run as it joined: what it has not used of that pays for its next run first ({@link Ticket#prepaid}; so too in a
 * declared blocking call and between async dispatches), and a measured one pays what it used beyond the mean as it
 * leaves ({@link #stopRunning}).
 * Stopping the running ones spares the container's threads a round of work that preempts the other class's holder: each
 * request that ended would have its client's next one arrive at once, wake the poller and a worker, and park at
 * admission. A free slot is held for the same short moment for a cheap class further behind that is active but whose
 * next request has not reached the scheduler yet (under SCHED_RR it is still behind the thread that freed the slot);
 * without that a more expensive class would run ahead of its share. Past the moment, the waiter the slot would go to
 * first yields its CPU ({@link Clock#yieldCpu}), again while other threads ran in its last yield, up to
 * {@link #ANTICIPATION_LIMIT_NANOS}: the cheap class's request may be behind them. Not for a class whose requests in
 * flight all wait in calls ({@link #onItsWay}): nothing of it would use the slot, and it would be held at every
 * handover. While a turn is on, a request of another class is let in beyond the run slots only when CPU capacity goes
 * unused, as that class's first waiter, looking again on its own, found.
 *
 * <p>Work-conserving: a class alone (no other class in flight, nor within {@code share.linger}) whose requests do not
 * wait is never held back (a backlog of an expensive class left from the competition goes on through the run slots
 * for {@code share.max-park}: {@link #drainsThroughSlots}), and when CPU capacity goes unused
 * ({@link Clock#idleSamples(int)}: slot holders blocked on I/O, say, or a class that cannot use its share) one more
 * request runs beyond the run slots per idle sample in a row. No starvation: a class that waits has the lowest
 * virtual time after the others have run their share; a park at a yield point ends after {@code share.max-park} at the
 * latest (the request then runs anyway); a class cannot bank more than {@link #LAG_LIMIT_NANOS} of run time while it
 * wants less than its share. Waiting at admission ends with a 503 after the class's queue timeout.
 *
 * <p><b>Moves.</b> A request whose route's class changes while it is in flight (a new page learnt heavy while its
 * first requests run) moves to the new class: at once while it waits, at its next yield point while it runs
 * ({@link #reclassify}). It then waits for its new class at yield points like the class's other requests, but each
 * park lasts up to the class's queue timeout rather than {@code share.max-park}: it started without the admission its
 * class's requests wait in. A new page's first requests move together, more of them than the class's share serves
 * within one max-park; released by that bound every 500 ms for another quantum each, 21-25 of them took a quarter of
 * the core beside the light pages (measurements/move-running-20261127). And a moved request that yields after its
 * quantum waits at the front of its class's yield queue, not at the end: the moved requests then end one after
 * another at the class's share, rather than all together after taking turns for as long as all of them need. One
 * that moves while it waits, at admission or at a yield point, waits as long as its new class lets such a wait last,
 * counted from when it began ({@link #waitBound}): if it has waited that long already (a class with a shorter queue
 * timeout than the one it left), it is refused at admission unless it can start now, and at a yield point it runs at
 * once, beyond the run slots if need be.
 *
 * <p><b>Tasks.</b> Work a request hands to a thread of the application's ({@link #task}: a servlet's executor after
 * {@code startAsync()}, Spring MVC's {@code Callable}s) runs under a ticket of its own in the request's class, as a
 * request of the class would: it waits for a run slot or its class's turn as it starts, parks at its yield points, and
 * is charged its thread's CPU (in a turn, what it uses rather than its class's mean). It needs no permit (its request's
 * covers it), so nothing bounds how many tasks wait: each of their waits is bounded by the class's queue timeout, as a
 * moved request's (above), not by {@code share.max-park}, which would release every waiting task for another quantum
 * each 500 ms whatever the class's share. Charged only as it ended and never parked, an export class's tasks took 71 %
 * of the CPU against a share of 10 % (measurements/walkthrough-spring-20261128). A task that waits for a slot while its
 * request's dispatch (or the task of the request that submitted it) joins it gets the joiner's slot once two looks
 * 2 ms apart have found the joiner blocked ({@link #blockedHolder}); it wakes on its own for them
 * ({@link #requestLook}). A task moves with its request (a new page learnt heavy, a declared class) as a request
 * would: at once while it waits or has given its slot up in a declared blocking call, at its next yield point while
 * it runs (one that reaches none ends in its class); one that starts while its request's move is pending starts in
 * the new class. A task run in place on a thread that serves another request does not move: it must not wait there.
 *
 * <p>Thread safety: the slow paths take one lock; the yield point's fast path (not armed) never reaches this class.
 */
public final class Scheduler {

    /**
     * Rejection reasons, indexed as the results of {@link #admit}: the meters' ({@link MeterNames#REASONS}), then
     * {@code stopped} ({@link #REJECTED_STOPPED}), which no meter shows: the application's meters are removed as it
     * stops, right after {@link #close} refuses its queue; the filter logs how many it refused.
     */
    public static final List<String> REJECT_REASONS =
            Stream.concat(MeterNames.REASONS.stream(), Stream.of("stopped")).toList();
    public static final int ADMITTED = -1;
    /** How often a yield point should read the clock, at most (ns of the request's run between reads). */
    static final long CLOCK_READ_INTERVAL = 20_000;
    static final int MAX_CLOCK_STRIDE = 1 << 16;
    public static final int REJECTED_QUEUE_FULL = 0;
    public static final int REJECTED_QUEUE_TIMEOUT = 1;
    public static final int REJECTED_INTERRUPTED = 2;
    public static final int REJECTED_STOPPED = 3;
    static final int QUEUED = -2;
    private static final Logger LOG = Loggers.of(Scheduler.class);
    /** How a request may start: not now, with a run slot, or in its class's turn. */
    private static final int WAIT = 0;
    private static final int WITH_SLOT = 1;
    private static final int IN_TURN = 2;
    private static final long NEVER = Long.MIN_VALUE;
    public static final int WHERE_ADMISSION = 0;
    public static final int WHERE_YIELD = 1;

    /**
     * A class's first waiter re-checks on its own at least this often, in case no event wakes it (idle periods). The
     * others sleep until granted, until their deadline, or until they become first: only the first can be granted
     * next, and 40 waiters polling 20 times a second cost a busy server's CPU 800 wake-ups a second.
     */
    private static final long RECHECK_NANOS = 50_000_000L;
    private static final double SHARE_DECAY_NANOS = 2e9;
    /** Decayed CPU charged below which the share gauge reads idle ({@link #cpuShare}): 1 ms over about 2 s. */
    static final double IDLE_CHARGE_NANOS = 1e6;
    /** Run time per slot a class can be owed at most while it wants less than its share: what it may bank. */
    static final long LAG_LIMIT_NANOS = 100_000_000L;
    /**
     * Run time per slot a class whose requests wait (or whose turn it is) can be owed at most. Such a class is owed
     * what the others ran beyond their share while it waited: at light 80 / heavy 20, four times a heavy request's run
     * without a yield point, so this covers runs of up to 250 ms. A bound on what an error in the accounting can hold
     * the other classes back, not a limit on the share.
     */
    static final long WAITING_LAG_LIMIT_NANOS = 1_000_000_000L;
    /**
     * A run slot's holder is looked at from this long after it took its slot (or last checked in), at most this often:
     * did it reach no yield point since the last look, and is its thread blocked (sleeping, waiting, parked or on a
     * monitor as Java sees it, or asleep to the OS)? Blocked at two looks in a row, its run slot counts as free until
     * it reaches its next yield point ({@link #blockedHolder}).
     */
    static final long BLOCKED_LOOK_NANOS = 2_000_000L;
    /** How long a turn whose class has no request running waits for its next one before it lapses. */
    static final long TURN_ANTICIPATION_NANOS = 1_000_000L;
    /**
     * How long a free slot is held at most for a cheap class further behind whose next request is on its way, while
     * the waiter it would go to finds other threads running when it yields its CPU ({@link #anticipating}). Under
     * 100 ms round-robin slices the heavy waiter woken 1 ms after the slot was freed ran before the light workers
     * Tomcat's poller had woken behind it, and took the slot: with a 10 MB page heavy pages took 0.5-0.75 of the
     * server for a load's first seconds. Held so, light pages got 70.5 % of the server against 67.6 % over the study's
     * 20 s windows, six fresh servers each way (docs/measurements/rr-onset-yield-20261206).
     */
    static final long ANTICIPATION_LIMIT_NANOS = 20_000_000L;
    /** A yield of the CPU that took this long or longer let another thread run ({@link Clock#yieldCpu}). */
    static final long OTHERS_RAN_NANOS = 10_000L;
    /** A waiter timed to a moment (a turn's end, a look at a holder) wakes this long after it, so that it has come. */
    private static final long WAKE_SLACK_NANOS = 20_000;

    final Clock clock;
    /** Guards every decision (package-private: a test holds it to show that a granted waiter leaves without it). */
    final ReentrantLock lock = new ReentrantLock();
    /** Threads to unpark once the lock is released (guarded by it): see {@link #unlock()}. */
    private final List<Thread> toWake = new ArrayList<>();
    private final ClassState[] classes;
    private volatile FairsliceConfig config;
    private volatile boolean[] sleepy;
    /** Tickets holding a run slot. */
    private final List<Ticket> holders = new ArrayList<>();
    /** Requests that run in a turn (their class's, or one that ended while they ran): {@link #silentTurn}. */
    private final List<Ticket> riding = new ArrayList<>();
    private boolean armed;
    /** When the yield gate was last armed: yield points read no clock before, so no rider looked silent then. */
    private long armedAt;
    private volatile boolean closed; // read without the lock by sleepers (stillSleeps)
    /** Threads asleep at a yield point (policy sleep): woken as the policy changes or the scheduler closes. */
    private final Set<Thread> sleepers = ConcurrentHashMap.newKeySet();
    private volatile long lastDecayNanos; // read by the share gauge without the lock
    private long lastIdleLookNanos = Long.MIN_VALUE / 2;
    /**
     * Requests that may run beyond the run slots because CPU capacity goes unused: the idle samples in a row at the
     * last look ({@link #idleGrant}).
     */
    private int idleAllowance;
    /**
     * The highest the least virtual time of the active classes has been (as the kernel's min_vruntime): where a class
     * that becomes active while none is starts ({@link #catchUp}). Under the lock.
     */
    private double vtimeFloor;
    /** Where the virtual times are moved back to the floor's 0: a double resolves 1/4096 ns-per-share below it. */
    static final double REBASE_VTIME = 0x1p40;
    /** The class whose turn it is (it has every run slot; its requests run as they come), or null. */
    private ClassState turn;
    /**
     * The turn is over but requests in it still run: no more join, the slots stay the class's until they end or stop,
     * or until {@link #closingBound} has passed.
     */
    private boolean turnClosing;
    /**
     * The class of a closing turn, else null: its riders read it without the lock at their yield points' clock reads
     * and stop there, so that the turn ends as they reach one rather than as their requests end.
     */
    private volatile ClassState closingTurn;
    /** How many requests of the closing turn have stopped at a yield point ({@link #closingBound}). */
    private int turnStops;
    private long turnClosingSince;
    /** Since when no request of the turn's class has run in it ({@link #NEVER} while one does). */
    private long turnEmptySince = NEVER;
    /** When a request last joined the current turn ({@link #silentTurn}). */
    private long turnJoinedAt;
    /** Since when a free slot has been held for a cheap class further behind whose next request is coming. */
    private long anticipatingSince = NEVER;
    /** The hold ({@link #anticipatingSince}) in which a waiter last yielded its CPU, and whether others ran then. */
    private long yieldedIn = NEVER;
    private boolean othersRan;
    /** Set by {@link #anticipating} in a waiter's own look: the waiter yields its CPU before it looks again. */
    private boolean yieldWanted;
    /** Running requests whose move to another class waits for their next yield point ({@link #reclassify}). */
    private int pendingMoves;
    /** Told on the thread concerned when a dispatch or task goes on in another class ({@link #onMove}); never null. */
    private volatile BiConsumer<String, String> moveListener = (from, to) -> { };
    /** Told on a task's own thread as it starts and ends running a task of a class ({@link #onTaskThread}). */
    private volatile Consumer<String> taskEnterListener = c -> { };
    private volatile Consumer<String> taskExitListener = c -> { };
    /** How its log lines name the application: {@code "fairslice[/shop]: "}, or {@code "fairslice: "}. */
    private final String logPrefix;
    /** Names given to {@link #declare} that are no class, each logged once (at most 100 kept). */
    private final Set<String> unknownDeclared = ConcurrentHashMap.newKeySet();
    /** Told the CPU of each task of a request ({@link #task}), with the task's ticket; never null. */
    private volatile ObjLongConsumer<Ticket> taskCpuListener = (t, cpu) -> { };

    public Scheduler(FairsliceConfig config, Clock clock) {
        this(config, clock, null);
    }

    /** As {@link #Scheduler(FairsliceConfig, Clock)}, its log lines naming {@code application}. */
    public Scheduler(FairsliceConfig config, Clock clock, String application) {
        this.logPrefix = ApplicationNames.logPrefix(application);
        this.clock = clock;
        List<RequestClassConfig> cs = config.classes();
        this.classes = new ClassState[cs.size()];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new ClassState(i, cs.get(i).name());
        }
        this.config = config;
        this.sleepy = sleepy(config);
        this.lastDecayNanos = clock.nanoTime();
    }

    private boolean[] sleepy(FairsliceConfig c) {
        boolean[] s = new boolean[classes.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = c.sleepClasses().contains(classes[i].name);
        }
        return s;
    }

    public FairsliceConfig config() {
        return config;
    }

    /** How its log lines begin, naming the application ({@link ApplicationNames#logPrefix}). */
    String logPrefix() {
        return logPrefix;
    }

    /**
     * Who to tell, on the request's own thread, that a request being dispatched now belongs to another class (old
     * name, new name): it moved at a yield point, or while it was parked at one ({@link #reclassify}); and, on a
     * task's own thread, that the task moved with its request ({@link #onTaskThread}). Moves at admission, before the
     * dispatch runs, and between the dispatches of an async request are not told: the next dispatch starts in the new
     * class. The filter hands its request listeners here.
     */
    public void onMove(BiConsumer<String, String> listener) {
        this.moveListener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Who to tell, on a task's own thread ({@link #task}: an executor's), that it starts running a task of a class
     * ({@code enter}, after the task's wait to start) and ends it ({@code exit}, under the class it ended in); a move
     * of the task between them is told to {@link #onMove}'s listener, on the task's thread. A task run in place on a
     * thread that serves another request tells nothing: the thread serves that request. The filter hands its request
     * listeners here.
     */
    public void onTaskThread(Consumer<String> enter, Consumer<String> exit) {
        this.taskEnterListener = Objects.requireNonNull(enter, "enter");
        this.taskExitListener = Objects.requireNonNull(exit, "exit");
    }

    /**
     * Who to tell, on the task's thread, the CPU a task of a request used ({@link #task}), with the task's ticket
     * ({@link Ticket#ofRequest()} is the request's): the filter's page meters.
     */
    public void onTaskCpu(ObjLongConsumer<Ticket> listener) {
        this.taskCpuListener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Swaps the configuration (same classes); waiters are re-evaluated at once. Each waiter's bound
     * ({@code share.max-park}, its class's {@code queue-timeout}) is the new one, counted from when it began to wait
     * ({@link #rebound}): fixed as its wait began, a park would outlast a {@code share.max-park} lowered from 60 s to
     * 50 ms by a minute, and a queued request keep a 10-minute queue timeout set to 1 s.
     */
    public void reconfigure(FairsliceConfig next) {
        if (!next.classNames().equals(config.classNames())) {
            throw new IllegalArgumentException("classes cannot change at runtime: " + config.classNames() + " -> "
                    + next.classNames());
        }
        lock.lock();
        try {
            config = next;
            sleepy = sleepy(next);
            long now = clock.nanoTime();
            for (ClassState c : classes) {
                for (Ticket t : c.admissionQueue) {
                    rebound(t, c, next, true);
                }
                for (Ticket t : c.yieldWaiters) {
                    rebound(t, c, next, false);
                }
            }
            dispatch(now);
            updateArmed();
        } finally {
            unlock();
        }
        wakeSleepers();
    }

    /**
     * Under the lock: the waiting ticket's deadline from when it began to wait and {@code cfg}'s bound for it. One
     * whose deadline comes sooner is woken: a waiter not first in its class sleeps without a timer until its old
     * deadline, and the first one's nap may be timed past the new one; awake, it gives up (503 at admission, runs at a
     * yield point) if the new deadline has passed, and else naps to it.
     */
    private void rebound(Ticket t, ClassState c, FairsliceConfig cfg, boolean admission) {
        long deadline = deadline(t, c, cfg, admission);
        if (deadline < t.deadlineNanos) {
            wake(t.thread);
        }
        t.deadlineNanos = deadline;
    }

    public List<ClassState> classes() {
        return List.of(classes);
    }

    public ClassState classState(int index) {
        return classes[index];
    }

    /** A ticket for a request of class {@code classIndex} whose CPU time is measured. */
    public Ticket newTicket(int classIndex) {
        return newTicket(classIndex, 1);
    }

    /**
     * A ticket for a request of class {@code classIndex}; {@code cpuWeight} 0: its CPU time is not measured, n: it is,
     * and stands for n requests (sampling).
     */
    public Ticket newTicket(int classIndex, int cpuWeight) {
        if (cpuWeight < 0) {
            throw new IllegalArgumentException("cpuWeight must be 0 or more, got " + cpuWeight);
        }
        return new Ticket(this, classes[classIndex], clock.nanoTime(), cpuWeight);
    }

    // ---- dispatches ----------------------------------------------------------------------------------------------

    /**
     * The current thread starts (or resumes, async) serving the ticket's request. An admitted request that resumes
     * after an asynchronous wait takes a run slot again without waiting for one (it holds its permit already).
     */
    public void beginDispatch(Ticket t) {
        t.thread = Thread.currentThread();
        t.osThread = OsThreads.currentId();
        if (t.cpuWeight > 0) {
            t.cpuDispatchStart = clock.threadCpuNanos();
            t.allocDispatchStart = clock.threadAllocatedBytes();
        }
        t.dispatching = true;
        long now = clock.nanoTime();
        t.burstStartWall = now;
        if (!t.holdsPermit && t.cpuWeight > 0) {
            t.waitMark = t.cpuDispatchStart; // read already: a sample's wait for its slot counts from here
        }
        if (t.holdsPermit) {
            lock.lock();
            try {
                t.awayFrom = null;
                attach(t, clock.nanoTime());
                if (!t.holdsSlot && !t.riding && !t.completed) {
                    takeSlot(t, clock.nanoTime());
                }
            } finally {
                unlock();
            }
            // a later dispatch's slot is charged its CPU from here, as an admitted one's is: without the mark it was
            // charged its wall time (preempted, or blocked with its slot lent) until it first parked
            markCpu(t);
        }
    }

    /** The current thread stops serving the ticket's request. */
    public void endDispatch(Ticket t) {
        if (t.dispatching) {
            if (t.cpuWeight > 0) {
                t.cpuDone += clock.threadCpuNanos() - t.cpuDispatchStart;
                if (t.allocDispatchStart >= 0) {
                    t.allocDone += clock.threadAllocatedBytes() - t.allocDispatchStart;
                    t.allocDispatchStart = -1;
                }
            }
            t.dispatching = false;
        }
        // a declaration the dispatch left open ends with it: its handle, closed between dispatches (the thread serves
        // another request by then), in the next one or after the request ended, ends nothing. The one place a
        // request's declarations end; a task's end with it (endTask)
        t.blockingDepth = 0;
        t.blockingEpoch++;
    }

    /**
     * The request continues asynchronously after this dispatch: it keeps its permit (class caps) until it completes,
     * but gives up its run slot, since no thread runs it while it waits.
     */
    public void detach(Ticket t) {
        long cpu = t.cpuNanos();
        lock.lock();
        try {
            if (t.completed) {
                return;
            }
            leaveQueueIfWaiting(t);
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            // what it used so far is its class's now: a move before its next dispatch (its page learnt meanwhile) put
            // it in the new class's CPU meter, share gauge and mean
            settleCpu(t, cpu, now);
            if (t.riding) { // the rest of its turn's charge pays for its next dispatch's slot first (unless it moves)
                stopRunning(t, cpu, now, cfg);
            }
            if (t.holdsSlot) {
                releaseSlot(t, now, cfg);
            }
            if (t.moveTo >= 0) { // a move it reached no yield point for: it waits in its new class
                ClassState to = classes[t.moveTo];
                t.moveTo = -1;
                pendingMoves--;
                switchClass(t, to, now, cfg);
            }
            if (!t.detached) {
                t.detached = true;
                t.cls.detached++;
                t.cls.lastActiveNanos = now; // it lingers as a class whose request just ended would
            }
            dispatch(now);
            updateArmed();
        } finally {
            unlock();
        }
    }

    /**
     * A detached request is run by a thread again, or completes: its class counts it as a thread's again. One that
     * ends an idle spell (nothing else of its class attached) restarts the clock of the interval between completions
     * as {@link #countIn} does, and says so: a long poll's wait is no time its class took to drain a queue.
     */
    private static boolean attach(Ticket t, long now) {
        if (!t.detached) {
            return false;
        }
        boolean endsIdleSpell = restartDrainClockIfIdle(t.cls, now);
        t.detached = false;
        t.cls.detached--;
        return endsIdleSpell;
    }

    // ---- moves between classes ----------------------------------------------------------------------------------

    /**
     * The request belongs to class {@code classIndex} from now on: its route's class changed while it was in flight
     * (the adaptive classifier decided a new page's first class while its first requests ran). Callable from any
     * thread. A request that waits (at admission or at a yield point) moves to the new class's queue at once. A
     * running one moves on its own thread at its next yield point ({@link #moveIfDue}), where it leaves its old class's
     * run slot or turn and starts as a request of the new class would at a yield point: on at once when the policy
     * lets it, else it parks (each of its parks from then on bounded by the new class's queue timeout, not
     * {@code share.max-park}: see the class comment, Moves). A running request that reaches no yield point stays in
     * its class to its end. A moved request keeps its permit, beyond the new class's cap if need be: it was admitted
     * once, it is never refused.
     */
    public void reclassify(Ticket t, int classIndex) {
        reclassify(t, classIndex, false);
    }

    /**
     * The application declares the request's class ({@code Fairslice.classify}), on the request's own thread: it moves
     * there at once, as {@link #reclassify} and {@link #moveIfDue} would move it (it may wait for the class's turn
     * here, as at a yield point), and from now on its route's decisions no longer move it. Its CPU teaches its route
     * nothing (the filter reads {@link Ticket#declared()}): the application, not the route, decides its class.
     *
     * A name that is no configured class changes nothing: logged once per name as a WARNING naming the classes (a
     * scheduling hint must not fail the page, as it would after the classes were renamed in the shared configuration).
     *
     * @return whether the request now belongs to {@code className} (or moves there at its next yield point, inside a
     *         woven synchronized method): false for a name that is no configured class, and once the application has
     *         stopped ({@link #close}), which moves no request any more
     */
    public boolean declare(Ticket t, String className) {
        if (t.isTask()) {
            return false; // a task belongs to its request's class (see task): the request's dispatch declares it
        }
        List<String> names = config.classNames();
        int index = names.indexOf(className);
        if (index < 0) {
            // as given, which may be a client's word (a header the application passes on): no line break in it; null
            // (a header the request lacks) is no name "null"
            String given = className == null ? "null" : "\"" + RouteTable.printable(className) + "\"";
            if (unknownDeclared.size() < 100 && unknownDeclared.add(given)) {
                LOG.warning(logPrefix + "Fairslice.classify(" + given + ") names no class"
                        + (className == null ? " (given null: a header or parameter the request lacks?)" : "")
                        + "; the classes are " + names + ": the request stays in " + t.cls.name);
            }
            return false;
        }
        Runnable declared = t.onDeclared;
        t.onDeclared = null;
        if (declared != null) {
            declared.run();
        }
        ClassState before = t.cls;
        reclassify(t, index, true);
        if (t.dispatching && t.holdsPermit && !YieldGate.inMonitor()) { // as at a yield point: no wait holding a lock
            moveIfDue(t);
        }
        if (t.cls != before && t.awayFrom == null) { // in a declared blocking call, blockingEnds tells the move
            moveListener.accept(before.name, t.cls.name);
        }
        // not simply true: a stopped application's scheduler (or a completed request) moves nothing
        return t.cls.index == index || t.moveTo == index;
    }

    private void reclassify(Ticket t, int classIndex, boolean declaring) {
        lock.lock();
        try {
            if (declaring) {
                t.declared = true;
            } else if (t.declared) {
                return; // the application said where it belongs: its route's decisions no longer move it
            }
            if (closed || t.completed || t.rejection >= 0) {
                return;
            }
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            sendTo(t, classIndex, now, cfg);
            for (Ticket task : t.runningTasks()) { // its work on other threads moves with it
                if (!task.onHostThread) { // in place it must not wait (see task): it ends in its class
                    sendTo(task, classIndex, now, cfg);
                }
            }
            updateArmed();
        } finally {
            unlock();
        }
        wakeSleepers(); // one asleep may now be bound for a class that does not sleep
    }

    /**
     * Moves a request, or a running task of one, to class {@code classIndex}, under the lock: at once while it waits
     * (in its new class's queue), between an async request's dispatches or in a declared blocking call; a running one
     * on its own thread at its next yield point ({@link #moveIfDue}); one not admitted yet is admitted in its new
     * class.
     */
    private void sendTo(Ticket t, int classIndex, long now, FairsliceConfig cfg) {
        ClassState to = classes[classIndex];
        if (t.completed || (t.cls == to && t.moveTo < 0)) {
            return;
        }
        if (t.moveTo >= 0) { // a move left for it before: this one replaces it
            t.moveTo = -1;
            pendingMoves--;
        }
        if (t.cls == to) { // told back before it moved
            return;
        }
        if (t.queuedForAdmission || t.parkedAtYield) {
            boolean admission = t.queuedForAdmission;
            leaveQueue(t.cls, t, admission);
            switchClass(t, to, now, cfg);
            t.deadlineNanos = deadline(t, to, cfg, admission); // its new class's, from its start
            if (admission) {
                to.waitingAdmission++;
                to.admissionQueue.add(t);
            } else {
                to.waitingYield++;
                to.yieldWaiters.add(t);
            }
            dispatch(now);
            if (!t.granted) {
                t.napUntil = wakeAt(t, now);
                wake(t.thread); // to time its nap to its new class
            }
        } else if (t.holdsSlot || t.riding) {
            t.moveTo = classIndex; // applied on its own thread at its next yield point
            pendingMoves++;
        } else if (t.admitted()) { // an async request between dispatches, or in a declared blocking call: no slot
            switchClass(t, to, now, cfg);
            dispatch(now);
        } else { // not admitted yet: admission counts it in its class
            t.cls = to;
            to.movedIn.increment();
        }
    }

    /**
     * On the request's own thread: applies a move {@link #reclassify} left for it, if any (the yield point's slow
     * path calls it; the filter calls it as a request starts). May park, like a yield point.
     */
    public void moveIfDue(Ticket t) {
        if (t.moveTo < 0) {
            return;
        }
        if (move(t)) {
            await(t, WHERE_YIELD);
        }
        markCpu(t);
        t.burstStartWall = clock.nanoTime();
    }

    /**
     * The move of a running request, on its own thread: settles what it used in its old class, gives up its run slot
     * or leaves its turn there, and starts in the new class. True when it now waits in the new class's yield queue.
     */
    boolean move(Ticket t) {
        long cpu = t.cpuNanos();
        lock.lock();
        try {
            int index = t.moveTo;
            if (index < 0) {
                return false;
            }
            t.moveTo = -1;
            pendingMoves--;
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            stopRunning(t, cpu, now, cfg); // a request of a turn pays its old class what it used there beyond the mean
            ClassState to = classes[index];
            switchClass(t, to, now, cfg);
            int start = closed || cfg.policy() != Policy.SHARE ? WITH_SLOT : startMode(to, now, cfg);
            boolean waits = goOn(t, start, now, cfg, false); // waiting behind the requests that moved before it
            dispatch(now); // its old class's slot or turn
            if (waits) {
                t.napUntil = wakeAt(t, now);
            }
            updateArmed();
            return waits && !t.granted;
        } finally {
            unlock();
        }
    }

    /**
     * The running request, on its own thread, goes on as {@code start} ({@link #startMode}) says, under the lock:
     * with a run slot, in its class's turn, or waiting in its class's yield queue (at its front with {@code first}).
     * True when it waits.
     */
    private boolean goOn(Ticket t, int start, long now, FairsliceConfig cfg, boolean first) {
        if (start == WITH_SLOT) {
            takeSlot(t, now);
        } else if (start == IN_TURN) {
            joinTurn(t, now, cfg);
        } else {
            waitAtYield(t, now, cfg, first);
        }
        return start == WAIT;
    }

    /**
     * {@link #goOn}, for a ticket that starts to run again on its own thread (a declared blocking call returned, a task
     * starts): when it is to wait, free slots go where they are owed and its nap is timed. True when it waits and has
     * not been granted meanwhile.
     */
    private boolean goOnOrWait(Ticket t, int start, long now, FairsliceConfig cfg, boolean first) {
        boolean waits = goOn(t, start, now, cfg, first);
        if (waits) {
            dispatch(now);
            t.napUntil = wakeAt(t, now);
        }
        updateArmed();
        return waits && !t.granted;
    }

    /**
     * Moves the ticket's counts (in flight or tasks) from its class to {@code to}, under the lock. Its permit stays
     * with the class that admitted it ({@link Ticket#permitClass}).
     */
    private void switchClass(Ticket t, ClassState to, long now, FairsliceConfig cfg) {
        ClassState from = t.cls;
        if (t.isTask()) {
            from.tasks--;
        } else {
            from.inflight--;
        }
        from.lastActiveNanos = now;
        if (!active(to, now, cfg)) {
            catchUp(to, now, cfg);
        }
        if (t.isTask()) {
            to.tasks++;
        } else {
            countIn(to, now);
        }
        to.lastActiveNanos = now;
        if (t.detached) {
            from.detached--;
            to.detached++;
        }
        t.cls = to;
        t.chargedInTurn = false; // a turn of its new class charges it as it joins
        t.prepaid = 0;
        t.moved |= t.holdsPermit; // it started without its new class's admission (see waitAtYield)
        if (!t.isTask()) {
            to.movedIn.increment(); // fairslice.requests.moved counts requests; a task moves with its request
        }
    }

    // ---- admission -----------------------------------------------------------------------------------------------

    /**
     * Admits the request, parking until the policy lets it start. Returns {@link #ADMITTED} or a rejection reason
     * ({@link #REJECTED_QUEUE_FULL}, {@link #REJECTED_QUEUE_TIMEOUT}, {@link #REJECTED_INTERRUPTED},
     * {@link #REJECTED_STOPPED}); a rejected ticket is finished (no {@link #complete} needed).
     */
    public int admit(Ticket t) {
        int r = tryAdmit(t);
        if (r != QUEUED) {
            markCpu(t);
            return r;
        }
        if (t.waitMark < 0 && !cheap(t.cls, config)) {
            t.waitMark = clock.threadCpuNanos(); // outside the lock: a system call, and a point of preemption
        }
        boolean ok = await(t, WHERE_ADMISSION);
        markCpu(t);
        return ok ? ADMITTED : t.rejection;
    }

    /** Non-blocking part of {@link #admit}: ADMITTED, QUEUED (then call await) or a rejection reason. */
    int tryAdmit(Ticket t) {
        lock.lock();
        try {
            ClassState c = t.cls; // under the lock: reclassify may change it until the request is counted
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            if (!active(c, now, cfg)) {
                catchUp(c, now, cfg);
            }
            if (!armed && cfg.policy() == Policy.SHARE && c.inflight + c.tasks == 0) {
                // competition may start now (a class with nothing in flight comes in: updateArmed): what the slot
                // holders ran alone is nobody's debt, and their yield points (disarmed until now) have not been
                // checked, so they are not overrunning either. Not on a busy class's own arrivals: checked in on
                // each, a holder of a class alone draining its waiting requests through the slots was never found
                // blocked (two looks with no check-in between) nor silent past share.max-park
                for (Ticket h : holders) {
                    h.checkIn(now);
                }
            }
            countIn(c, now);
            c.lastActiveNanos = now;
            if (closed) { // Tomcat routes none to a stopping application; one that got here finds its servlets gone
                refuse(t, c, REJECTED_STOPPED, now);
                return REJECTED_STOPPED;
            }
            int start = cfg.policy() == Policy.OBSERVE ? WITH_SLOT
                    : c.admissionQueue.isEmpty() && capOk(c, cfg) ? startMode(c, now, cfg) : WAIT;
            if (start != WAIT) {
                grantPermit(t, now, start == IN_TURN);
                updateArmed();
                return ADMITTED;
            }
            RequestClassConfig cc = cfg.classes().get(c.index);
            if (c.admissionQueue.size() >= queueBound(c, cc, cfg)) {
                refuse(t, c, REJECTED_QUEUE_FULL, now); // finished: a move of its route no longer reaches it
                return REJECTED_QUEUE_FULL;
            }
            t.thread = Thread.currentThread();
            t.granted = false;
            t.queuedForAdmission = true;
            t.waitStartNanos = now;
            t.deadlineNanos = deadline(t, c, cfg, true);
            c.admissionQueue.add(t);
            c.waitingAdmission++;
            wantClock();
            dispatch(now); // a free slot that a more-owed class holds back from this one goes to that class now
            updateArmed();
            t.napUntil = wakeAt(t, now);
            return t.granted ? ADMITTED : QUEUED;
        } finally {
            unlock();
        }
    }

    /**
     * Counts a request in flight in {@code c}, under the lock. One that ends an idle spell (nothing in flight) restarts
     * the clock of the interval between completions behind Retry-After ({@link #retryAfterSeconds}): it measures how
     * fast a busy class's queue drains, and the first completion after an idle hour, measured from the completion
     * before it, fed the hour into it (whole with no interval yet, else 10 %): every 503 of the next spike said
     * {@code retry-after.max} while its queue drained in milliseconds, for some 40 completions. Async requests
     * waiting for their event (detached: a long poll, an event stream) do not count as keeping the class busy: one
     * open all night kept the clock from restarting.
     */
    private static void countIn(ClassState c, long now) {
        restartDrainClockIfIdle(c, now);
        c.inflight++;
    }

    /**
     * Under the lock, as a request of {@code c} comes to be run or waited for: when nothing of the class is in flight
     * but detached requests, it ends an idle spell, and the clock of the interval between completions restarts here.
     * Returns whether it did.
     */
    private static boolean restartDrainClockIfIdle(ClassState c, long now) {
        if (c.inflight - c.detached != 0) {
            return false;
        }
        c.lastCompletionNanos = now;
        return true;
    }

    /**
     * How many of the class's requests may wait at admission: its {@code queue-size}, but under share at least one
     * while its cap is not what holds it back. A request that waits for its class's turn waits for the shares, not
     * for a cap; with no queue at all (queue-size 0) a class could start a request only when it found a run slot free
     * as it arrived, which a class running in turns never leaves: the class got nothing while the CPU went to the
     * others, or sat idle beside a class that could not use it.
     */
    private static int queueBound(ClassState c, RequestClassConfig cc, FairsliceConfig cfg) {
        return cfg.policy() == Policy.SHARE && capOk(c, cfg) ? Math.max(1, cc.queueSize()) : cc.queueSize();
    }

    private static boolean capOk(ClassState c, FairsliceConfig cfg) {
        int cap = cfg.classes().get(c.index).maxConcurrency();
        return cap == 0 || c.permits < cap;
    }

    private void grantPermit(Ticket t, long now, boolean inTurn) {
        t.holdsPermit = true;
        t.permitClass = t.cls;
        t.permitClass.permits++;
        if (inTurn) {
            joinTurn(t, now, config);
        } else {
            takeSlot(t, now);
        }
        t.granted = true;
    }

    private void takeSlot(Ticket t, long now) {
        if (config.policy() == Policy.SHARE) {
            t.burstStartWall = now; // its quantum starts with the slot, not with a wait for it
        }
        t.cpuMark = -1;
        t.holdsSlot = true;
        t.checkIn(now);
        t.cls.running++;
        holders.add(t);
    }

    /** Gives up the ticket's run slot and charges the class for the time it held it. */
    private void releaseSlot(Ticket t, long now, FairsliceConfig cfg) {
        dropSlot(t);
        charge(t.cls, slotCharge(t, now), now, cfg);
    }

    private void dropSlot(Ticket t) {
        t.holdsSlot = false;
        t.cls.running--;
        holders.remove(t);
    }

    /**
     * What the holder's run slot since {@code slotSince} costs its class: the CPU its own thread used meanwhile, when
     * that was measured (a request of a class that does not run in turns, on its own thread), plus what the thread
     * used waiting for the slot ({@link Ticket#waitCpu}); else the wall time. The container's work for other requests
     * that runs on the slot's CPU meanwhile (parsing the next requests of a class that will wait, the JIT compiler)
     * is not the holder's. What is left of a charge its request prepaid in a turn ({@link Ticket#prepaid}) pays first.
     */
    private long slotCharge(Ticket t, long now) {
        long wall = now - t.slotSince;
        long cost;
        if (t.cpuMark < 0 || t.thread != Thread.currentThread()) {
            cost = Math.max(0, wall);
        } else {
            long cpu = clock.threadCpuNanos();
            long used = cpu - t.cpuMark;
            t.cpuMark = cpu;
            long waited = t.waitCpu;
            t.waitCpu = 0;
            cost = Math.max(0, Math.min(wall, used)) + waited;
        }
        long paid = Math.min(cost, t.prepaid); // a request that left its turn early paid for its run as it joined
        t.prepaid -= paid;
        return cost - paid;
    }

    /**
     * The holder's thread starts running with its run slot: reads its CPU clock, for {@link #slotCharge}, unless its
     * class runs in turns (a cheap request: the read would cost more than it tells), and keeps what the thread used
     * since it began to wait for the slot, to be charged with it. A cheap class's requests pay for their waiting in
     * their class's mean CPU per request, which their measured samples include.
     */
    private void markCpu(Ticket t) {
        if (t.holdsSlot && t.thread == Thread.currentThread() && (!cheap(t.cls, config) || t.isTask())) {
            long cpu = clock.threadCpuNanos();
            if (t.waitMark >= 0) {
                t.waitCpu += Math.max(0, cpu - t.waitMark);
            }
            t.cpuMark = cpu;
        }
        t.waitMark = -1;
    }

    // ---- turns ---------------------------------------------------------------------------------------------------

    /** Whether the class's requests are cheap enough to run in turns (mean measured CPU below share.turn-below). */
    private static boolean cheap(ClassState c, FairsliceConfig cfg) {
        return c.cpuPerRequestNanos > 0 && c.cpuPerRequestNanos < cfg.shareTurnBelow().toNanos();
    }

    /**
     * Starts a turn of {@code c} when it is cheap, no other class holds a counted run slot, {@code c}'s holders and
     * {@code extra} new requests fill every slot, and no class further behind waits. Its holders then run in the
     * turn, charged as its requests (not for their slot time).
     */
    private boolean startsTurn(ClassState c, long now, FairsliceConfig cfg, int extra) {
        if (turn != null || !cheap(c, cfg)) {
            return false;
        }
        int held = extra;
        for (Ticket h : holders) {
            if (keepsSlot(h, now, cfg)) {
                if (h.cls != c) {
                    return false;
                }
                held++;
            }
        }
        if (held < cfg.cpus()) {
            return false;
        }
        ClassState rival = mostOwedWaiterBut(c, cfg);
        if (rival != null && rival.vtime < c.vtime) {
            return false;
        }
        for (Ticket h : new ArrayList<>(holders)) {
            if (h.cls == c) {
                dropSlot(h);
                joinTurn(h, now, cfg);
            }
        }
        turn = c;
        turnJoinedAt = now;
        anticipatingSince = NEVER;
        turnClosing = false;
        turnEmptySince = c.riders == 0 ? now : NEVER;
        // the other classes' first waiters sleep on: the events that end the turn grant them, and a turn that starts
        // has a request in it by the time the lock is released, so it has no end by the clock to time a nap to
        return true;
    }

    /** The first waiters of the classes but {@code c} look again, to time their naps to the turn's lapse. */
    private void wakeOthersFirstWaiters(ClassState c) {
        for (ClassState k : classes) {
            if (k != c) {
                wakeFirstWaiter(k);
            }
        }
    }

    /** The class's first waiter, if any, looks again (it times its naps to the scheduler's next decision). */
    private void wakeFirstWaiter(ClassState k) {
        Ticket head = firstWaiter(k);
        if (head != null) {
            wake(head.thread);
        }
    }

    /**
     * The ticket's request runs in its class's turn from now on; unless charged before, its class is charged the
     * class's mean CPU per request for it.
     */
    private void joinTurn(Ticket t, long now, FairsliceConfig cfg) {
        if (cfg.policy() == Policy.SHARE) {
            t.burstStartWall = now; // its quantum starts as it joins, not with a wait for its turn
        }
        t.riding = true;
        riding.add(t);
        t.cls.riders++;
        t.cls.running++;
        if (turn == t.cls) {
            turnEmptySince = NEVER;
            turnJoinedAt = now;
        }
        if (!t.chargedInTurn) {
            t.chargedInTurn = true;
            // a task pays what it uses (at its yield points past a quantum and as it ends): the mean is a request's
            t.turnCharged = t.isTask() ? 0 : (long) t.cls.meanCpuNanos();
            t.turnCpuBase = t.accounted; // its CPU as last settled: what it uses from here is what the charge covers
            charge(t.cls, t.turnCharged, now, cfg);
        } else { // back in a turn after a park: what it used so far has been charged (at the park, or with a slot)
            t.turnCpuBase = t.accounted;
            t.turnCharged = t.prepaid; // it left a turn early: the rest of what it prepaid there still covers it
            t.prepaid = 0;
        }
    }

    private void leaveTurn(Ticket t, long now) {
        t.riding = false;
        riding.remove(t);
        t.cls.running--;
        if (t.stray) { // of a turn that ended: a later turn of its class emptied (or not) without it
            t.stray = false;
            t.cls.strays--;
            return;
        }
        t.cls.riders--;
        if (turn == t.cls && t.cls.riders == 0) {
            turnEmptySince = now;
            if (!turnClosing) {
                wakeOthersFirstWaiters(t.cls); // the turn lapses soon unless the class's next request comes
            }
        }
    }

    /**
     * Decides whether the turn goes on: true when it is over (closing or ended). A turn is over when a class further
     * behind waits, when its class has run nothing for {@link #TURN_ANTICIPATION_NANOS}, or when competition has
     * ended; it ends when its last request has ended or stopped at a yield point (they stop when a class further behind
     * waits: {@link #closingTurn}), or {@link #closingBound} after it closed (requests still running then run on
     * beside the next holder, like a slot holder silent that long). A turn that closed for a class that waits no more
     * (its request gave up, moved, or was let in beside the turn) opens again, and the requests it stopped go on in it.
     * A turn whose requests have all been silent for {@code share.max-park} while another class waits ends at once
     * ({@link #silentTurn}), owed or not, as a silent slot holder stops keeping others out.
     */
    private boolean turnOver(long now, FairsliceConfig cfg) {
        ClassState c = turn;
        boolean silent = false;
        if (!turnClosing || closingTurn == c) { // open, or closed for a class that waited (it may wait no more)
            ClassState rival = mostOwedWaiterBut(c, cfg);
            boolean owed = rival != null && rival.vtime < c.vtime;
            boolean lapsed = c.riders == 0 && turnEmptySince != NEVER
                    && now - turnEmptySince >= TURN_ANTICIPATION_NANOS;
            silent = rival != null && silentTurn(c, now, cfg);
            boolean over = owed || lapsed || silent || closed || cfg.policy() != Policy.SHARE
                    || !competing(c, now, cfg);
            if (turnClosing) {
                if (!owed) { // the class it closed for waits no more: its requests no longer stop
                    closingTurn = null;
                    turnStops = 0;
                    turnClosing = over || c.riders == 0; // else it goes on, the stopped ones in it (turnGoesOn)
                }
            } else if (over) {
                turnClosing = true;
                turnClosingSince = now;
                if (owed) {
                    closingTurn = c; // its riders stop at their next yield point: a class further behind waits
                }
                if (lapsed) {
                    anticipatingSince = turnEmptySince; // its next request was waited for already
                }
            }
        }
        if (turnClosing && (c.riders == 0 || silent || now - turnClosingSince >= closingBound(c, cfg))) {
            // those still running run on beside the next holder, strays: no longer riders that keep a later turn of c
            // from lapsing (turnEmptySince) nor silent (silentTurn)
            for (Ticket t : riding) {
                if (t.cls == c && !t.stray) {
                    t.stray = true;
                    c.riders--;
                    c.strays++;
                }
            }
            turn = null;
            turnClosing = false;
            closingTurn = null;
            turnStops = 0;
            turnEmptySince = NEVER;
        }
        return turnClosing || turn == null;
    }

    /**
     * Whether every request running in {@code c}'s turn has shown no sign of life for {@code share.max-park}: none
     * joined the turn, reached a yield point's clock read ({@link Ticket#lastClockRead}) or began a burst since
     * (nor was the yield gate armed since, nor is it disarmed: then yield points read no clock; a class that comes in
     * is counted in before the gate is armed for it). Such requests are in unwoven code or blocked; a request of a
     * turn is charged its class's mean as it joins and what it uses beyond only at its yield points past a quantum
     * (one that reaches none is charged no more: its CPU only moves the class's mean as it ends), so the turn would not
     * close by its charges and a class that waits would wait for its queue timeout (a 503) rather than max-park.
     * Ended, the turn stops keeping others out; its requests run on beside the next holder, as a silent slot
     * holder's do ({@link #keepsSlot}). The first waiter's own looks ({@link #RECHECK_NANOS}) find it.
     */
    private boolean silentTurn(ClassState c, long now, FairsliceConfig cfg) {
        long maxPark = cfg.shareMaxPark().toNanos();
        if (c.riders == 0 || !armed || now - Math.max(turnJoinedAt, armedAt) <= maxPark) {
            return false;
        }
        for (Ticket t : riding) {
            if (t.cls == c && !t.stray && showedLife(t, now, maxPark)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a request riding a turn (or a stray of one) joined it, began a burst or read the clock at a yield point
     * within {@code maxPark}.
     */
    private static boolean showedLife(Ticket t, long now, long maxPark) {
        return now - Math.max(t.burstStartWall, t.lastClockRead) <= maxPark;
    }

    /**
     * Whether {@code c} has a turn that goes on ({@link #turnOver}). When it has just opened again, the requests it
     * stopped go on in it first: dispatched here, before the caller's request joins or its yield point returns.
     */
    private boolean turnGoesOn(ClassState c, long now, FairsliceConfig cfg) {
        if (turn != c) {
            return false;
        }
        boolean wasClosing = turnClosing;
        if (turnOver(now, cfg)) {
            return false;
        }
        if (wasClosing) {
            dispatch(now);
        }
        return true;
    }

    /**
     * How long a closing turn of {@code c} waits for its requests still running: {@code share.max-park}, or only
     * {@code share.quantum} (if shorter) once one has stopped at a yield point for a class further behind. Those that
     * reach none by then are blocked (in a call, or on a lock) or in unwoven code; the stopped ones would wait behind
     * them, and the CPU could idle, while the class they stopped for waits too.
     */
    private long closingBound(ClassState c, FairsliceConfig cfg) {
        long maxPark = cfg.shareMaxPark().toNanos();
        return closingTurn == c && turnStops > 0 ? Math.min(cfg.shareQuantum().toNanos(), maxPark) : maxPark;
    }

    /**
     * When the current turn will be over by the clock (Long.MAX_VALUE: only an event can end it), for a waiter of
     * another class to wake then: when it lapses, or {@link #closingBound} after it closed. A turn ends otherwise on
     * the events that charge it and end its requests, and those grant the waiter themselves.
     */
    private long turnEnd(FairsliceConfig cfg) {
        if (turnClosing) {
            return turnClosingSince + closingBound(turn, cfg);
        }
        return turn.riders == 0 && turnEmptySince != NEVER ? turnEmptySince + TURN_ANTICIPATION_NANOS : Long.MAX_VALUE;
    }

    /**
     * Whether a free slot is held back from {@code k} for a moment ({@link #TURN_ANTICIPATION_NANOS}) because a
     * cheap class further behind may have a request on its way ({@link #onItsWay}) but none has reached the scheduler
     * yet: under an OS scheduler without wake-up preemption (SCHED_RR) it is still behind the thread that just freed
     * the slot.
     * Handing the slot to {@code k} at once would let it run ahead of its share. Past the moment the hold goes on
     * while the waiter whose own look ({@code selfCheck}) finds it over yields its CPU and finds other threads running
     * in the yield (the request may be behind them), up to {@link #ANTICIPATION_LIMIT_NANOS}; it ends at the first
     * yield in which none ran, so a CPU with nothing else to do is not kept from {@code k}.
     */
    private boolean anticipating(ClassState k, long now, FairsliceConfig cfg, boolean selfCheck) {
        boolean behind = false;
        for (ClassState b : classes) {
            if (b != k && b.vtime < k.vtime && cheap(b, cfg) && b.yieldWaiters.isEmpty() && b.admissionQueue.isEmpty()
                    && onItsWay(b, now, cfg)) {
                behind = true;
            }
        }
        if (!behind) {
            anticipatingSince = NEVER;
            return false;
        }
        if (anticipatingSince == NEVER) {
            anticipatingSince = now;
            wakeFirstWaiter(k); // to look again when the moment has passed
            return true;
        }
        long held = now - anticipatingSince;
        if (held < TURN_ANTICIPATION_NANOS) {
            return true;
        }
        boolean busy = yieldedIn == anticipatingSince && othersRan;
        if (held >= ANTICIPATION_LIMIT_NANOS || !busy && !(selfCheck && yieldedIn != anticipatingSince)) {
            return false;
        }
        if (selfCheck) {
            yieldWanted = true;
        }
        return true;
    }

    /**
     * Whether {@code b} (no request of it waits) may have a request on its way to the scheduler that could use a free
     * slot now: it was active within {@code share.linger} (a request of it began or ended: its client's next one may
     * be behind the thread that freed the slot), or one of its requests runs (a rider, or a slot holder not found
     * blocked). Not when all it has in flight sit in declared blocking calls (they hold no slot:
     * {@link #blockingBegins}) or in blocked holders ({@link #blockedHolder}): counted {@link #active} for their whole
     * call, such a class, charged nothing while it waits and so always further behind, held every slot freed for
     * another class 1 ms plus a wake-up, for as long as the call lasted, while nothing else wanted the CPU.
     */
    private boolean onItsWay(ClassState b, long now, FairsliceConfig cfg) {
        if (now - b.lastActiveNanos < cfg.shareLinger().toNanos() || b.riders > 0 || computingStray(b, now, cfg)) {
            return true;
        }
        for (Ticket h : holders) {
            if (h.cls == b && !h.blocked) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a request of {@code b} that runs on from a turn that ended (a stray) has shown a sign of life within
     * {@code share.max-park}, as {@link #silentTurn} tells: one silent that long is blocked or in unwoven code, and a
     * slot held for its class at every handover would wait for nothing.
     */
    private boolean computingStray(ClassState b, long now, FairsliceConfig cfg) {
        if (b.strays == 0) {
            return false;
        }
        long maxPark = cfg.shareMaxPark().toNanos();
        for (Ticket t : riding) {
            if (t.stray && t.cls == b && showedLife(t, now, maxPark)) {
                return true;
            }
        }
        return false;
    }

    /** Until when a waiter parks before it looks again (under the lock, after a dispatch). */
    private long wakeAt(Ticket t, long now) {
        if (firstWaiter(t.cls) != t) {
            return Long.MAX_VALUE; // its deadline bounds the nap; woken when granted or when it becomes first
        }
        long at = now + RECHECK_NANOS;
        if (turn == null) { // a held slot's anticipation ends, or a look at a holder is due
            if (anticipatingSince != NEVER) {
                long end = anticipatingSince + TURN_ANTICIPATION_NANOS + WAKE_SLACK_NANOS;
                if (end > now) { // one that passed without a grant (its waiter gave up) is no moment to wake for
                    at = Math.min(at, end);
                }
            }
            at = Math.min(at, Math.min(nextLook(now), requestLook(t, now)));
        } else if (turn != t.cls) { // another class's turn ends
            long end = turnEnd(config);
            if (end != Long.MAX_VALUE) {
                at = Math.min(at, end + WAKE_SLACK_NANOS);
            }
        }
        return at;
    }

    /**
     * When the next look at a slot's holder is due ({@link #blockedHolder}), while every run slot is held: a holder
     * that blocks in a call (a query) stops sending events, so without a first waiter looking again on its own its
     * slot would stay held until another request arrives or {@link #RECHECK_NANOS} has passed. Only holders that have
     * reached a yield point count: a look at one that computes finds its yield-point count moved and costs no file
     * read, while a holder in unwoven code would be read from {@code /proc} at every look, and is looked at on events
     * only. {@code Long.MAX_VALUE} when no look is due.
     */
    private long nextLook(long now) {
        if (holders.size() < config.cpus()) {
            return Long.MAX_VALUE; // a slot is free: the waiter waits for its share, not for a slot
        }
        long next = Long.MAX_VALUE;
        for (Ticket h : holders) {
            if (!h.blocked && h.yieldPoints > 0) {
                next = Math.min(next, h.lookedAt + BLOCKED_LOOK_NANOS + WAKE_SLACK_NANOS);
            }
        }
        return next == Long.MAX_VALUE ? next : Math.max(next, now + WAKE_SLACK_NANOS);
    }

    /**
     * When a task that waits for a run slot should look at what submitted it (its request's dispatch, or another task
     * of the request), which holds one while every slot is held: a dispatch or task that joins the task
     * ({@code future.join()}) is blocked until the task has run, and its slot is lent once two looks have found it so
     * ({@link #blockedHolder}). Without yield points of its own (an unwoven controller) it would be looked at only on
     * other requests' events, or at the waiter's 50 ms re-check. {@code Long.MAX_VALUE} when no look is due.
     */
    private long requestLook(Ticket t, long now) {
        Ticket r = t.submitter;
        if (r == null || !r.holdsSlot || r.blocked || holders.size() < config.cpus()) {
            return Long.MAX_VALUE;
        }
        return Math.max(r.lookedAt + BLOCKED_LOOK_NANOS + WAKE_SLACK_NANOS, now + WAKE_SLACK_NANOS);
    }

    // ---- yield points --------------------------------------------------------------------------------------------

    /**
     * The slow path of a yield point (the scheduler is armed). May park the calling thread for a bounded time, and
     * move its request to another class (then tells {@link #onMove}'s listener).
     */
    public void yieldPoint(Ticket t) {
        ClassState before = t.cls;
        yieldOrMove(t);
        ClassState after = t.cls;
        if (after != before && !t.onHostThread) { // in place, the thread still serves its host's request
            moveListener.accept(before.name, after.name);
        }
    }

    private void yieldOrMove(Ticket t) {
        t.yieldPoints++;
        if (!t.dispatching || !t.admitted()) {
            return;
        }
        if (t.moveTo >= 0) {
            if (!YieldGate.inMonitor()) { // a move may wait in its new class: not while holding a lock
                moveIfDue(t);
            }
            return;
        }
        FairsliceConfig cfg = config;
        Policy policy = cfg.policy();
        if (policy == Policy.OBSERVE) {
            return;
        }
        // Woven code may reach a yield point every few nanoseconds (a recursive method: one per call), and reading
        // the clock costs 20-40 ns: read it only every clockStride-th yield point, the stride doubling or halving so
        // that reads come about every CLOCK_READ_INTERVAL of the request's run. Sparse yield points keep stride 1.
        // A waiter for the slot asks for a read (clockWanted, see wantClock): once yield points turn sparse (each
        // iteration in unwoven code) a stride learnt while they were dense would put the next read, and the quantum
        // check, thousands of them later.
        if (--t.clockCountdown > 0 && !t.clockWanted) {
            return;
        }
        clockRead(t, cfg, policy);
    }

    /**
     * The part of a yield point that reads the clock: adjusts the stride, then sleeps (policy sleep) or charges and
     * may park (share) once the burst has run its quantum. Apart from {@link #yieldOrMove}, whose early returns are
     * nearly every yield point, so that it stays small enough for the JIT to inline it into {@link #yieldPoint}
     * (HotSpot's 325 bytes: with this inside it was 368, and armed yield points cost 1-2 ns more in
     * YieldPointInRequestBenchmark, docs/benchmarks).
     */
    private void clockRead(Ticket t, FairsliceConfig cfg, Policy policy) {
        if (t.clockWanted) {
            t.clockWanted = false; // before the read: a waiter's ask that comes after it is one for the next read
        }
        long now = clock.nanoTime();
        long sinceRead = now - t.lastClockRead;
        t.lastClockRead = now;
        if (t.clockCountdown > 0) { // asked early: the yield points since the last read tell their rate, never faster
            long points = t.clockStride - t.clockCountdown;
            long fit = points * CLOCK_READ_INTERVAL / Math.max(1, sinceRead);
            t.clockStride = (int) Math.max(1, Math.min(t.clockStride, fit));
        } else if (sinceRead < CLOCK_READ_INTERVAL / 2) {
            t.clockStride = Math.min(t.clockStride << 1, MAX_CLOCK_STRIDE);
        } else if (sinceRead > CLOCK_READ_INTERVAL * 2) {
            t.clockStride = Math.max(t.clockStride >> 1, 1);
        }
        t.clockCountdown = t.clockStride;
        if (YieldGate.inMonitor()) {
            // inside a woven synchronized method or class initialiser: a park or sleep here would hold the lock, and
            // every request that needs it (light ones too) would wait for this one's next turn. Its burst goes on
            // to the first yield point outside, where it is charged and yields.
            return;
        }
        if (policy == Policy.SLEEP) {
            if (sleepy[t.cls.index] && !t.onHostThread && now - t.burstStartWall >= cfg.sleepQuantum().toNanos()) {
                sleep(t, cfg.sleepDuration().toNanos());
            }
            return;
        }
        if (now - t.burstStartWall < cfg.shareQuantum().toNanos() && !(t.riding && closingTurn == t.cls)) {
            return;
        }
        if (parkAtYield(t)) {
            await(t, WHERE_YIELD);
            markCpu(t);
        }
        t.burstStartWall = clock.nanoTime();
    }

    /**
     * Charges the ticket's class for its run so far and decides: true when the ticket gave up its run slot to a
     * class further behind and now waits in its class's yield queue.
     */
    boolean parkAtYield(Ticket t) {
        ClassState c = t.cls;
        long cpu = t.cpuNanos();
        lock.lock();
        try {
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            settleCpu(t, cpu, now);
            if (closed || cfg.policy() != Policy.SHARE || t.moveTo >= 0) {
                return false; // a move left for it since its yield point looked: its next yield point moves it
            }
            if (t.riding) {
                // one that runs past a quantum (it reached this check) pays what it used beyond its class's mean
                chargeBeyondMean(t, cpu, now, cfg);
                // a request of a turn runs on while the turn does; once it is over it yields like a slot holder
                if (turnGoesOn(c, now, cfg)) {
                    if (t.stray) { // a stray that computes in a later turn of its class is one of its riders again
                        t.stray = false;
                        c.strays--;
                        c.riders++;
                        turnEmptySince = NEVER;
                    }
                    return false;
                }
            } else if (t.holdsSlot) {
                charge(c, slotCharge(t, now), now, cfg);
                t.checkIn(now);
            } else {
                return false;
            }
            if (t.onHostThread) {
                return false; // a task in place: its thread serves another request, which would wait with it
            }
            ClassState rival = mostOwedWaiter(now, cfg);
            if (rival == null || rival == c || rival.vtime >= c.vtime) {
                return false;
            }
            boolean firstStop = t.riding && closingTurn == c && turnStops++ == 0;
            stopRunning(t, cpu, now, cfg); // its slot, if it held one, charges nothing more: slotSince is now
            waitAtYield(t, now, cfg, t.withoutAdmission());
            dispatch(now);
            if (firstStop && turn == c) {
                wakeOthersFirstWaiters(c); // the turn now ends a quantum after it closed at the latest: nap to that
            }
            t.napUntil = wakeAt(t, now);
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * What a request that leaves its turn before its end (stopped at a yield point, in a declared blocking call, or
     * between async dispatches) has not used of what its class was charged for it in the turn
     * ({@link Ticket#turnCharged}: its whole request's mean, and what it used beyond), its CPU as last settled. One
     * whose CPU is not measured is taken to have used none: its request is then charged the mean or its run slot's
     * charges after it left, whichever is more, never both ({@link #slotCharge}).
     */
    private static long unusedTurnCharge(Ticket t) {
        return t.cpuWeight == 0 ? t.turnCharged : Math.max(0, t.turnCharged - (t.accounted - t.turnCpuBase));
    }

    /**
     * A request of a turn was charged its class's mean as it joined; one that has used more by now (its CPU settled
     * at {@code cpu}, -1 if not measured) pays the rest, under the lock: a request of a cheap class can be expensive
     * (a new page's, until it is learnt), and charged the mean its turn would go on for as long as it runs.
     */
    private void chargeBeyondMean(Ticket t, long cpu, long now, FairsliceConfig cfg) {
        long beyond = cpu - t.turnCpuBase - t.turnCharged;
        if (cpu >= 0 && beyond > 0) {
            charge(t.cls, beyond, now, cfg);
            t.turnCharged += beyond;
        }
    }

    /**
     * The running request leaves its class's turn or gives its run slot up, under the lock, its CPU ({@code cpu}, -1
     * if not measured) settled first. One of a turn pays what it used beyond its class's mean and keeps what it has
     * not used of that ({@link Ticket#prepaid}) for its next run: it stops at a yield point, waits in a declared
     * blocking call, or goes asynchronous (a move to another class, and a task's end, drop that rest). A slot's holder
     * (on its own thread) then counts what its thread uses until it runs again from the CPU clock its slot's charge
     * read (or -1): the park and wake-up are charged with its next slot.
     */
    private void stopRunning(Ticket t, long cpu, long now, FairsliceConfig cfg) {
        settleCpu(t, cpu, now); // a no-op when the caller settled it already
        if (t.riding) {
            chargeBeyondMean(t, cpu, now, cfg);
            t.prepaid = unusedTurnCharge(t);
            leaveTurn(t, now);
        } else if (t.holdsSlot) {
            releaseSlot(t, now, cfg);
            t.waitMark = t.cpuMark;
        }
    }

    /**
     * The running request, on its own thread, joins its class's yield queue, under the lock: at its end, or at its
     * front ({@code first}), for at most {@code share.max-park}, or its class's queue timeout if longer when the
     * request moved into the class while it ran (see the class comment, Moves).
     */
    private void waitAtYield(Ticket t, long now, FairsliceConfig cfg, boolean first) {
        wantClock();
        t.cls.waitingYield++;
        parkedAtYield(t, true);
        t.granted = false;
        t.thread = Thread.currentThread();
        t.waitStartNanos = now;
        t.deadlineNanos = deadline(t, t.cls, cfg, false);
        if (first) {
            t.cls.yieldWaiters.addFirst(t); // the one it passes looks again at its next nap's end, then sleeps on
        } else {
            t.cls.yieldWaiters.add(t);
        }
    }

    /**
     * Under the lock, as a request begins to wait for a run slot or a first waiter looks again on its own: each slot
     * holder's next yield point reads the clock ({@link Ticket#clockWanted}), whatever its clock stride, so its quantum
     * is checked there. A stride learnt while yield points came every few nanoseconds (up to
     * {@link #MAX_CLOCK_STRIDE}) put the next read seconds away once they came every millisecond (each iteration
     * calling unwoven JDK code), and the waiter got in only after {@code share.max-park}. The holder cannot see that
     * change without reading the clock, and a cap on the stride low enough to see it would read the clock at most
     * yield points of dense code, which the stride is there to spare. An ask costs a volatile write per holder and one
     * clock read; first waiters look every 2 ms while a holder computes ({@link #nextLook}), so a holder reads at least
     * that often while someone waits. The armed path reads one more volatile field; the unarmed fast path is untouched.
     * A turn's riders are not asked: a closing turn waits a quantum for them at most once one has stopped
     * ({@link #closingBound}).
     */
    private void wantClock() {
        for (Ticket h : holders) {
            if (!h.clockWanted) {
                h.clockWanted = true;
            }
        }
    }

    /**
     * When the wait of {@code t} in {@code c} ends at the latest: its start ({@code waitStartNanos}) plus
     * {@link #waitBound}. Every deadline counts from the wait's start, so that a move or a runtime change of the bound
     * ({@link #rebound}) gives the same deadline the wait would have had from the start under it.
     */
    private static long deadline(Ticket t, ClassState c, FairsliceConfig cfg, boolean admission) {
        return t.waitStartNanos + waitBound(t, c, cfg, admission);
    }

    /**
     * How long the ticket may wait in class {@code c}: at admission the class's queue timeout; at a yield point
     * {@code share.max-park}, or the queue timeout if longer when it started without the class's admission (moved, or
     * a task). A ticket that moves while it waits is given its new class's bound, counted from when it began to wait.
     */
    private static long waitBound(Ticket t, ClassState c, FairsliceConfig cfg, boolean admission) {
        long queueTimeout = cfg.classes().get(c.index).queueTimeout().toNanos();
        if (admission) {
            return queueTimeout;
        }
        return t.withoutAdmission() ? boundWithoutAdmission(c, cfg) : cfg.shareMaxPark().toNanos();
    }

    /** The wait bound of a ticket without its own admission (a task, a moved request): queue-timeout or max-park. */
    private static long boundWithoutAdmission(ClassState c, FairsliceConfig cfg) {
        return Math.max(cfg.shareMaxPark().toNanos(), cfg.classes().get(c.index).queueTimeout().toNanos());
    }

    /**
     * Sleeps the request's thread {@code nanos} (policy sleep), less if its thread is interrupted, or meanwhile the
     * policy changes, its class no longer sleeps ({@code sleep.classes}, or its request is to move to a class that
     * does not), {@code sleep.duration} is lowered under what it has slept, or the scheduler closes:
     * {@link #reconfigure}, {@link #reclassify} and {@link #close} wake every sleeper ({@link #sleepers}), which looks
     * again.
     */
    private void sleep(Ticket t, long nanos) {
        long start = System.nanoTime();
        long left = nanos;
        Thread self = Thread.currentThread();
        sleepers.add(self);
        try {
            while (left > 0 && stillSleeps(t) && !self.isInterrupted()) {
                LockSupport.parkNanos(this, left);
                left = Math.min(nanos, config.sleepDuration().toNanos()) - (System.nanoTime() - start);
            }
        } finally {
            sleepers.remove(self);
        }
        long parked = System.nanoTime() - start;
        if (t.blockingDepth == 0) { // else within a declared blocking call, which reports its whole length
            clock.offCpu(parked);
        }
        t.cls.parks[WHERE_YIELD].increment();
        t.cls.parkedNanos[WHERE_YIELD].add(parked);
        t.burstStartWall = clock.nanoTime();
    }

    /**
     * Whether a request sleeping at a yield point sleeps on: the class it is in, or is to move to, still sleeps and the
     * scheduler is open.
     */
    private boolean stillSleeps(Ticket t) {
        int moveTo = t.moveTo; // a move reclassify left for its next yield point
        return !closed && config.policy() == Policy.SLEEP && sleepy[moveTo >= 0 ? moveTo : t.cls.index];
    }

    /** Wakes every request sleeping at a yield point (policy sleep) to look at the policy again. */
    private void wakeSleepers() {
        for (Thread s : sleepers) {
            LockSupport.unpark(s);
        }
    }

    /** Parks until granted or the ticket's deadline; false when admission was refused (reason in the ticket). */
    boolean await(Ticket t, int where) {
        long started = System.nanoTime();
        boolean interrupted = false;
        boolean ok = true;
        long yieldFor = NEVER; // the hold of a free slot its last look was asked to yield the CPU in (anticipating)
        boolean returned = false;
        try {
            while (!t.granted) {
                long now0 = clock.nanoTime();
                long left = t.deadlineNanos - now0;
                boolean yieldedToOthers = false; // in the yield below: read under the lock for the hold it was in
                if (yieldFor != NEVER) {
                    long yielded = clock.yieldCpu();
                    yieldedToOthers = yielded >= OTHERS_RAN_NANOS;
                    t.cls.holdYields[yieldedToOthers ? 0 : 1].increment();
                    t.cls.holdYieldNanos.add(yielded);
                } else if (left > 0 && !interrupted) {
                    LockSupport.parkNanos(this, Math.max(1, Math.min(left, t.napUntil - now0)));
                }
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                if (t.granted) {
                    break; // granted while parked: nothing left to do under the lock
                }
                lock.lock();
                try {
                    // completed meanwhile: its request ended on another thread, which took it out of its queue
                    if (t.granted || t.completed) {
                        break;
                    }
                    if (t.rejection >= 0) { // refused while it waited: the application stopped (close)
                        ok = false;
                        break;
                    }
                    long now = clock.nanoTime();
                    if (interrupted || now >= t.deadlineNanos) {
                        ok = giveUp(t, where, interrupted, now);
                        break;
                    }
                    if (yieldFor != NEVER && yieldFor == anticipatingSince) {
                        yieldedIn = yieldFor;
                        othersRan = yieldedToOthers;
                    }
                    yieldWanted = false;
                    dispatch(now, true);
                    yieldFor = yieldWanted ? anticipatingSince : NEVER;
                    yieldWanted = false;
                    if (t.granted) {
                        break;
                    }
                    wantClock(); // the holders check their quantum at their next yield point, stride or not
                    t.napUntil = wakeAt(t, now);
                } finally {
                    unlock();
                }
            }
            returned = true;
        } finally {
            if (!returned) {
                leaveAfterFailure(t);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        long parked = System.nanoTime() - started;
        if (t.blockingDepth == 0) { // else within a declared blocking call, which reports its whole length
            clock.offCpu(parked);
        }
        t.cls.parks[where].increment();
        t.cls.parkedNanos[where].add(parked);
        return ok;
    }

    /**
     * As an Error leaves {@link #await} (a StackOverflowError at a deep yield point, an OutOfMemoryError): the ticket
     * leaves the queue it waited in at once. A synchronous request whose application catches the Error goes on in the
     * same dispatch; left queued until it ended, it counted as waiting while it ran, and at the head of its queue held
     * back its classmates' own looks. A request that failed at admission is completed by the filter, as before.
     */
    private void leaveAfterFailure(Ticket t) {
        lock.lock();
        try {
            if (!t.completed) {
                leaveQueueIfWaiting(t);
                dispatch(clock.nanoTime());
                updateArmed();
            }
        } finally {
            unlock();
        }
    }

    /**
     * Under the lock, as a request or task ends or a request is detached (its async cycle goes on): one whose thread
     * failed as it was to wait (an Error between parking at a yield point and {@link #await}, such as a
     * StackOverflowError at a deep yield point, caught by the application or not; await itself leaves the queue as an
     * Error leaves it, {@link #leaveAfterFailure}) leaves the queue it waited in. Left there, a later dispatch granted
     * it a permit or a run slot that no thread gave back. The dispatch that follows wakes the waiter behind it.
     */
    private static void leaveQueueIfWaiting(Ticket t) {
        if (t.queuedForAdmission || t.parkedAtYield) {
            leaveQueue(t.cls, t, t.queuedForAdmission);
            t.queuedForAdmission = false;
            parkedAtYield(t, false);
        }
    }

    /**
     * Under the lock: the waiting ticket leaves its class's admission queue or yield queue without a grant; the waiter
     * behind it, if it was first, is woken to time its own naps.
     */
    private static void leaveQueue(ClassState c, Ticket t, boolean admission) {
        ArrayDeque<Ticket> queue = admission ? c.admissionQueue : c.yieldWaiters;
        c.headLeft |= queue.peek() == t;
        queue.remove(t);
        if (admission) {
            c.waitingAdmission--;
        } else {
            c.waitingYield--;
        }
    }

    /**
     * Under the lock: the ticket is parked at a yield point, or no longer. A permit holder's park counts in its permit
     * class's {@link ClassState#parkedHolders}: a permit the shares hold parked does not hold the class's queue back
     * for its cap ({@link #noteCaps}).
     */
    private static void parkedAtYield(Ticket t, boolean parked) {
        if (t.parkedAtYield != parked && t.holdsPermit) {
            t.permitClass.parkedHolders += parked ? 1 : -1;
        }
        t.parkedAtYield = parked;
    }

    /** Under the lock: the wait's bound passed. At a yield point the request runs anyway; at admission, 503. */
    private boolean giveUp(Ticket t, int where, boolean interrupted, long now) {
        ClassState c = t.cls;
        leaveQueue(c, t, where == WHERE_ADMISSION);
        if (where == WHERE_YIELD) {
            parkedAtYield(t, false);
            takeSlot(t, now); // beyond the run slots if need be: a park is bounded
            t.granted = true;
            wakeNewFirstWaiters();
            return true;
        }
        refuse(t, c, interrupted ? REJECTED_INTERRUPTED : REJECTED_QUEUE_TIMEOUT, now);
        dispatch(now);
        updateArmed();
        return false;
    }

    /** Under the lock: the request, not or no longer in its class's admission queue, is refused (503) for a reason. */
    private static void refuse(Ticket t, ClassState c, int reason, long now) {
        t.queuedForAdmission = false;
        c.inflight--;
        if (c.inflight == 0) {
            c.lastActiveNanos = now;
        }
        t.rejection = reason;
        c.rejections[reason].increment();
    }

    // ---- blocking calls ------------------------------------------------------------------------------------------

    /**
     * The request's thread is about to wait in a call that the application declared blocking
     * ({@code Fairslice.blocking()}: a query, a remote call): under {@code share} its run slot goes to the next request
     * at once (or it leaves its class's turn), charged what it used so far, rather than after two looks have found it
     * blocked ({@link #blockedHolder}), which takes 2-4 ms and, where the OS cannot be asked, does not happen at all.
     * A slot given up is counted for its class ({@link ClassState#slotsLentDeclared}). Nested declarations count; only
     * the outermost acts. A request with a move left for it keeps its slot (the move needs a yield point); one whose
     * route's class changes during the call moves at once ({@link #reclassify}: it holds no slot) and takes its next
     * slot in its new class. Pair with {@link #blockingEnds}, on the same thread, passing it what this returns.
     *
     * @return the declaration's epoch: a declaration ends only in the dispatch that made it, before its request ends
     */
    public int blockingBegins(Ticket t) {
        int epoch = t.blockingEpoch;
        if (t.blockingDepth++ == 0) {
            t.blockingSince = clock.nanoTime();
            giveUpForBlocking(t);
        }
        return epoch;
    }

    /** The outermost declaration of {@link #blockingBegins}: the run slot or turn given up where the policy says. */
    private void giveUpForBlocking(Ticket t) {
        if (!t.dispatching || !t.admitted() || t.moveTo >= 0 || config.policy() != Policy.SHARE) {
            return; // under the other policies without the lock: a declaration changes nothing there
        }
        long cpu = t.cpuNanos();
        lock.lock();
        try {
            FairsliceConfig cfg = config;
            // a move left for it since the look above (reclassify) keeps its slot too: given up, the move would take
            // another at a yield point inside the call, and the call's end a third
            if (closed || t.completed || cfg.policy() != Policy.SHARE || !(t.holdsSlot || t.riding) || t.moveTo >= 0) {
                return;
            }
            long now = clock.nanoTime();
            if (!t.riding && !t.blocked) {
                t.cls.slotsLentDeclared.increment();
            }
            stopRunning(t, cpu, now, cfg); // one of a turn leaves it with its cost beyond the mean paid
            t.awayFrom = t.cls;
            dispatch(now);
            updateArmed();
        } finally {
            unlock();
        }
    }

    /**
     * The declared blocking call returned: the request takes a run slot again, or joins its class's turn, as a request
     * of its class that starts now would; when neither is free it waits in its class's yield queue, as at a yield
     * point, for at most {@code share.max-park} (a task or a moved request: its class's queue timeout if longer).
     * Inside a woven synchronized method it takes a slot at once (beyond the run slots if need be): it must not wait
     * holding a lock that others may need. A request that moved to another class during the call tells
     * {@link #onMove}'s listener, as at a yield point. A declaration of an earlier {@code epoch} (left open in an
     * earlier dispatch, or closed after its request or task ended) ends nothing: the depth counts this dispatch's.
     */
    public void blockingEnds(Ticket t, int epoch) {
        if (epoch != t.blockingEpoch || t.blockingDepth == 0 || --t.blockingDepth > 0) {
            return;
        }
        clock.offCpu(clock.nanoTime() - t.blockingSince);
        ClassState from = t.awayFrom;
        if (blockingEnded(t)) {
            await(t, WHERE_YIELD);
        }
        markCpu(t);
        t.burstStartWall = clock.nanoTime();
        ClassState to = t.cls;
        if (from != null && to != from && !t.completed && !t.onHostThread) {
            moveListener.accept(from.name, to.name);
        }
    }

    /** The decision of {@link #blockingEnds}, under the lock: true when the request now waits in its yield queue. */
    boolean blockingEnded(Ticket t) {
        if (t.awayFrom == null) {
            return false; // only its own thread sets it: a request that gave nothing up needs no lock to know it
        }
        lock.lock();
        try {
            if (t.awayFrom == null) {
                return false;
            }
            t.awayFrom = null;
            if (t.completed) {
                return false;
            }
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            int start = closed || YieldGate.inMonitor() || t.onHostThread ? WITH_SLOT : startMode(t.cls, now, cfg);
            return goOnOrWait(t, start, now, cfg, t.withoutAdmission());
        } finally {
            unlock();
        }
    }

    // ---- work on other threads -----------------------------------------------------------------------------------

    /**
     * {@code work} as part of the ticket's request, to run on another thread (an executor of the application's), as a
     * request of its class would run: it starts when the policy lets a request of the class start (it waits for a run
     * slot, or its class's turn, as at a yield point, for at most its class's queue timeout or {@code share.max-park},
     * the longer), parks at its yield points when its class has had its share while another waits, gives its slot up in
     * a declared blocking call, and is charged its thread's CPU as it runs. Its CPU also counts in its request's page
     * meter and in what the request teaches its route (once its running tasks have ended). It needs no permit: its
     * request's covers it (the request's permit is released as the request completes, as without tasks). It runs in its
     * request's class, and moves with its request ({@link #reclassify}): at once while it waits or has given its slot
     * up in a declared blocking call, at its next yield point while it runs. On the thread that serves the request (an
     * executor that runs it in place), or inside another task of it, {@code work} runs as it is: its CPU is measured
     * there already. On a thread that serves another request it starts at once, does not move, and that request's
     * measures leave it out. A {@code work} that is a {@link java.util.concurrent.Future} done before its thread took
     * it up (cancelled as its request timed out: an executor's {@code submit} wraps the work in one) runs as it is: it
     * does nothing, and waiting for its class's turn would only hold the executor's thread.
     */
    public Runnable task(Ticket t, Runnable work) {
        return task(t, work, null);
    }

    /**
     * {@link #task(Ticket, Runnable)}, calling {@code started} (when not null) on the task's thread once the task no
     * longer waits to start: it runs now (or its start failed), before {@code work}. {@link TaskExecutor} hands its
     * next task of the class to the pool then.
     */
    Runnable task(Ticket t, Runnable work, Runnable started) {
        Ticket request = t.ofRequest();
        return () -> {
            Ticket current = YieldGate.current();
            if (current != null && current.ofRequest() == request
                    || work instanceof Future<?> future && future.isDone()) {
                run(started);
                work.run();
                return;
            }
            request.tasksRunning.incrementAndGet();
            try {
                Ticket task;
                try {
                    // on a thread that serves another request (an executor that runs work in place) it must not
                    // wait: that request's run slot would wait with it
                    task = startTask(request, t, current != null);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, logPrefix + "starting a task failed; it runs unscheduled", e);
                    run(started);
                    work.run();
                    return;
                } catch (Error e) {
                    run(started);
                    throw e;
                }
                YieldGate.enter(task);
                try {
                    run(started); // inside: an Error there still ends the task
                    if (current == null) { // on a thread of its own: the thread now serves the request's class
                        taskEnterListener.accept(task.className());
                    }
                    work.run();
                } finally {
                    try {
                        if (current == null) {
                            taskExitListener.accept(task.className()); // its class now: it may have moved
                        }
                    } finally { // even when the JVM fails in a listener: the task's slot, the request's count
                        if (current != null) {
                            YieldGate.enter(current);
                        } else {
                            YieldGate.exit();
                        }
                        endTask(task, current);
                    }
                }
            } finally {
                if (request.tasksRunning.decrementAndGet() == 0) {
                    try {
                        tasksEnded(request);
                        request.runAfterTasks(); // what the request teaches its route, its tasks' CPU in
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, logPrefix + "learning from a request's tasks failed", e);
                    }
                }
            }
        };
    }

    /** Runs a task's {@code started} callback; what it throws is logged, not the task's failure. */
    private void run(Runnable started) {
        if (started == null) {
            return;
        }
        try {
            started.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, logPrefix + "handing the next task to its executor failed", e);
        }
    }

    /**
     * Where a task of a request would start now: its class (the request's, or the one it is to move to), and whether it
     * may have to wait there for a run slot or its class's turn: under the share policy while another class is active.
     * Otherwise every task starts at once.
     */
    record TaskStart(ClassState cls, boolean mayWait) { }

    /** {@link TaskStart} for a task of the ticket's request, read under one hold of the lock. */
    TaskStart taskStart(Ticket t) {
        Ticket request = t.ofRequest();
        lock.lock();
        try {
            ClassState c = request.moveTo >= 0 ? classes[request.moveTo] : request.cls;
            return new TaskStart(c, tasksWaitLocked(c, false));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@code c}'s work waits for its turn now: a task may wait ({@link TaskStart#mayWait}), and a request or
     * task of the class waits for admission or at a yield point.
     */
    boolean tasksWait(ClassState c) {
        lock.lock();
        try {
            return tasksWaitLocked(c, true);
        } finally {
            lock.unlock();
        }
    }

    private boolean tasksWaitLocked(ClassState c, boolean onlyWithWaiters) {
        FairsliceConfig cfg = config;
        return !closed && cfg.policy() == Policy.SHARE
                && (!onlyWithWaiters || !c.yieldWaiters.isEmpty() || !c.admissionQueue.isEmpty())
                && competing(c, clock.nanoTime(), cfg);
    }

    /**
     * The longest a task of {@code c} waits for its turn as it starts ({@link #waitBound}); a {@link TaskExecutor}
     * stops waiting for a task it handed over that has not started within twice that.
     */
    long tasksWaitAtMost(ClassState c) {
        return boundWithoutAdmission(c, config);
    }

    /** How many of {@code c}'s tasks a {@link TaskExecutor} may hold back: the class's {@code queue-size}. */
    int tasksHeldAtMost(ClassState c) {
        return config.classes().get(c.index).queueSize();
    }

    /**
     * On the task's thread: a ticket for a task of {@code request} that {@code submitter}'s thread submitted, in the
     * request's class, started as a request of the class that starts now would be (with a run slot, in the class's
     * turn, or after a wait in its yield queue), or, {@code atOnce}, with a run slot.
     */
    Ticket startTask(Ticket request, Ticket submitter, boolean atOnce) {
        Thread thread = Thread.currentThread();
        int osThread = OsThreads.currentId(); // outside the lock: a thread's first reads /proc
        Ticket k;
        boolean waits;
        lock.lock();
        try {
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            // a move its request has yet to make at its next yield point (or as its dispatch ends) is the task's now
            ClassState c = request.moveTo >= 0 ? classes[request.moveTo] : request.cls;
            k = new Ticket(this, c, now, 1, request, submitter);
            k.thread = thread;
            k.osThread = osThread;
            k.onHostThread = atOnce;
            request.taskStarted(k);
            if (!active(c, now, cfg)) {
                catchUp(c, now, cfg);
            }
            c.tasks++;
            c.lastActiveNanos = now;
            int start = atOnce || closed || cfg.policy() != Policy.SHARE || YieldGate.inMonitor() ? WITH_SLOT
                    : startMode(c, now, cfg);
            waits = goOnOrWait(k, start, now, cfg, false);
        } finally {
            unlock();
        }
        try {
            k.cpuDispatchStart = clock.threadCpuNanos(); // outside the lock: a system call
            k.allocDispatchStart = clock.threadAllocatedBytes();
            k.waitMark = k.cpuDispatchStart;
            k.dispatching = true;
            if (waits) {
                await(k, WHERE_YIELD);
            }
            markCpu(k);
            k.burstStartWall = clock.nanoTime();
            return k;
        } catch (RuntimeException | Error e) { // the thread failed, in its wait say: the task ends, out of its queue
            endTask(k, null);
            throw e;
        }
    }

    /**
     * On the task's thread, as its work ends: the task gives up its run slot or leaves its class's turn, charged what
     * it used, and its CPU counts for its request ({@link Ticket#taskCpuNanos}, the page meters). When it ran in
     * place on a thread serving {@code host} (another request's dispatch or task; null on a thread of its own), the
     * host's measures leave out what the task used ({@link Ticket#leaveOut}): one CPU time, one class charged.
     */
    void endTask(Ticket k, Ticket host) {
        long cpu = -1;
        long allocated = -1;
        try {
            cpu = k.cpuNanos();
            allocated = k.allocatedBytes();
            lock.lock();
            try {
                long now = clock.nanoTime();
                FairsliceConfig cfg = config;
                ClassState c = k.cls;
                k.completed = true;
                k.awayFrom = null;
                k.blockingEpoch++; // a handle left open ends nothing of it now
                leaveQueueIfWaiting(k);
                k.request.taskEnded(k);
                if (k.moveTo >= 0) { // a move of its request it reached no yield point for: it ends in its class
                    k.moveTo = -1;
                    pendingMoves--;
                }
                stopRunning(k, cpu, now, cfg); // in a turn: charged what it used there (its charge as it joined: 0)
                if (allocated > 0) {
                    c.allocatedBytes += allocated;
                }
                c.yieldPoints.add(k.yieldPoints);
                c.tasks--;
                c.lastActiveNanos = now;
                dispatch(now);
                updateArmed();
            } finally {
                unlock();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, logPrefix + "ending a task failed", e);
        } finally {
            k.dispatching = false;
        }
        if (host != null) {
            try { // what its thread used for it, tasks run in place inside it too, which it left out of its own
                host.scheduler.leaveOut(host, cpu < 0 ? -1 : cpu + k.leftOutCpu,
                        allocated < 0 ? -1 : allocated + k.leftOutBytes, k.startNanos);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, logPrefix + "leaving a task out of the request its thread serves failed", e);
            }
        }
        if (cpu > 0) {
            k.request.taskCpu.addAndGet(cpu);
            try {
                taskCpuListener.accept(k, cpu);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, logPrefix + "counting a task's CPU failed", e);
            }
        }
    }

    /**
     * A task that started at {@code since} (wall) ran in place on the thread that serves {@code host}, a ticket of
     * this scheduler's, and used {@code cpu} ns and {@code allocated} bytes there (-1: not measured): the host's
     * measures leave them out ({@link Ticket#leaveOut}). Under this scheduler's lock, which guards the host: the task
     * may be another application's (the jar in Tomcat's lib, one thread serving both).
     */
    void leaveOut(Ticket host, long cpu, long allocated, long since) {
        lock.lock();
        try {
            host.leaveOut(cpu, allocated, since, clock.nanoTime());
        } finally {
            unlock();
        }
    }

    // ---- completion ----------------------------------------------------------------------------------------------

    /**
     * The request is finished (its async cycle too): releases its permit and settles its CPU; one still waiting in a
     * queue (its thread failed there) leaves it.
     */
    public void complete(Ticket t) {
        long cpu = t.cpuNanos();
        long allocated = t.allocatedBytes();
        lock.lock();
        try {
            if (t.completed || t.rejection >= 0) { // a rejected request was counted out as it was refused
                return;
            }
            t.completed = true;
            t.awayFrom = null;
            ClassState c = t.cls;
            leaveQueueIfWaiting(t);
            if (t.moveTo >= 0) { // a move its request reached no yield point for: it ends in its class
                t.moveTo = -1;
                pendingMoves--;
            }
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            if (t.riding) {
                leaveTurn(t, now);
            }
            if (t.holdsSlot) {
                releaseSlot(t, now, cfg);
            }
            if (t.holdsPermit) {
                t.holdsPermit = false;
                t.permitClass.permits--;
                t.permitClass = null;
            }
            boolean endsIdleSpell = attach(t, now);
            c.inflight--;
            c.lastActiveNanos = now;
            settleCpu(t, cpu, now);
            if (allocated > 0) {
                c.allocatedBytes += allocated * t.cpuWeight;
            }
            if (cpu >= 0) {
                decay(now);
                c.decayedRequests += t.cpuWeight; // the requests its CPU, settled above, stands for
                if (t.tasksRunning.get() > 0) {
                    t.cpuForMean = cpu; // a task's last line completed it: learnt as the last task ends (tasksEnded)
                } else {
                    learnCpuPerRequest(t, cpu);
                }
            }
            c.yieldPoints.add(t.yieldPoints);
            if (c.lastCompletionNanos != 0 && !endsIdleSpell) {
                double interval = now - c.lastCompletionNanos;
                c.drainIntervalNanos = c.drainIntervalNanos == 0 ? interval
                        : 0.1 * interval + 0.9 * c.drainIntervalNanos;
            }
            c.lastCompletionNanos = now;
            dispatch(now);
            updateArmed();
        } finally {
            unlock();
        }
    }

    /**
     * Under the lock: the request's CPU, {@code cpu}, with its tasks', in its class's CPU per request. With its tasks':
     * whether the class is cheap enough for turns depends on all the work a request brings (an export whose dispatch
     * only starts its task is not cheap), though its tasks are charged as they run, not through the class's mean
     * ({@link ClassState#meanCpuNanos}). A measured request stands for {@code cpuWeight} requests: weighed so.
     */
    private void learnCpuPerRequest(Ticket t, long cpu) {
        ClassState c = t.cls;
        double w = 1 - Math.pow(0.9, t.cpuWeight);
        long perRequest = cpu + t.taskCpu.get();
        c.cpuPerRequestNanos = c.cpuPerRequestNanos == 0 ? perRequest
                : c.cpuPerRequestNanos + w * (perRequest - c.cpuPerRequestNanos);
    }

    /** The request's last running task ended: a request that completed before that is learnt now, with its tasks. */
    private void tasksEnded(Ticket request) {
        lock.lock();
        try {
            if (request.cpuForMean >= 0) {
                learnCpuPerRequest(request, request.cpuForMean);
                request.cpuForMean = -1;
            }
        } finally {
            unlock();
        }
    }

    // ---- the collector -------------------------------------------------------------------------------------------

    /**
     * A collector pause of {@code pauseNanos} ended ({@link CollectorPauses}). With {@code share.charge-gc}, the
     * run-slot time it took from requests ({@code share.cpus} slots for its length) is charged to the classes whose
     * requests allocated since the pause before, split by the bytes they allocated (measured requests only, each
     * counted for the requests it stands for): a class whose pages make the garbage pays for collecting it. The part is
     * charged as run time under share and shows in {@link #cpuShare} and the class's {@link ClassState#gcNanos()}. When
     * no measured request allocated since the pause before, nothing is charged.
     */
    public void collectorPaused(long pauseNanos) {
        lock.lock();
        try {
            FairsliceConfig cfg = config;
            long[] allocated = new long[classes.length];
            double total = 0;
            for (ClassState c : classes) {
                allocated[c.index] = Math.max(0, c.allocatedBytes - c.allocatedAtLastPause);
                c.allocatedAtLastPause = c.allocatedBytes;
                total += allocated[c.index];
            }
            if (!cfg.shareChargeGc() || closed || pauseNanos <= 0 || total <= 0) {
                return;
            }
            long now = clock.nanoTime();
            double slotTime = (double) pauseNanos * cfg.cpus();
            decay(now);
            for (ClassState c : classes) {
                long part = (long) (slotTime * (allocated[c.index] / total));
                if (part > 0) {
                    c.gcNanos.add(part);
                    c.decayedGc += part;
                    if (cfg.policy() == Policy.SHARE) {
                        charge(c, part, now, cfg);
                    }
                }
            }
            dispatch(now);
            updateArmed();
        } finally {
            unlock();
        }
    }

    /**
     * Retry-After for a rejected request of the class: the time to drain its queue at the rate measured while the class
     * was busy ({@link #countIn}), clamped to 1 s .. {@code retry-after.max}.
     */
    public long retryAfterSeconds(int classIndex) {
        ClassState c = classes[classIndex];
        double interval = c.drainIntervalNanos;
        long max = config.retryAfterMax().toSeconds();
        if (interval <= 0) {
            return 1;
        }
        double seconds = Math.ceil((c.waitingAdmission + 1) * interval / 1e9);
        return (long) Math.max(1, Math.min(max, seconds));
    }

    /**
     * Releases every waiter and disarms, as the application stops: requests parked at yield points run on, requests
     * queued for admission are refused (503, reason {@code stopped}), and so are later ones. Tomcat
     * destroys the application's servlets before its filters (after waiting {@code unloadDelay} for the requests
     * that hold one, those queued here among them): admitted now, every queued request, past its class's cap, ran
     * into a destroyed servlet or a closed application context and failed, and the herd reached what the cap
     * protected. A 503 with Retry-After sends them to retry, on the next deployment if there is one. Returns how many
     * it refused.
     */
    public int close() {
        int refused = 0;
        lock.lock();
        try {
            closed = true;
            turn = null;
            turnClosing = false;
            closingTurn = null;
            turnStops = 0;
            long now = clock.nanoTime();
            for (ClassState c : classes) {
                while (!c.yieldWaiters.isEmpty()) {
                    resume(c.yieldWaiters.poll(), now, false);
                }
                while (!c.admissionQueue.isEmpty()) {
                    Ticket t = c.admissionQueue.peek();
                    leaveQueue(c, t, true);
                    refuse(t, c, REJECTED_STOPPED, now);
                    wake(t.thread);
                    refused++;
                }
            }
            if (armed) {
                armed = false;
                YieldGate.disarm();
            }
        } finally {
            unlock();
        }
        wakeSleepers();
        try {
            TaskExecutor.forget(this); // its held tasks run; its lanes no longer keep the application (the jar in lib/)
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) { // the application's task failed: the application's stop goes on
            LOG.log(Level.WARNING, logPrefix + "a task held back for its class's turn failed as the application"
                    + " stopped", e);
        }
        return refused;
    }

    /** Whether {@link #close} has begun (read without the lock: {@link TaskExecutor}). */
    boolean isClosed() {
        return closed;
    }

    // ---- decisions (under the lock) ------------------------------------------------------------------------------

    private boolean active(ClassState c, long now, FairsliceConfig cfg) {
        // an async request between dispatches is in flight, but no thread runs it: it competes for nothing
        return c.inflight - c.detached + c.tasks > 0 || now - c.lastActiveNanos < cfg.shareLinger().toNanos();
    }

    /**
     * Whether {@code c}, alone, lets its waiting requests in through the run slots (one per free slot, more per idle
     * sample: {@link #idleGrant}) rather than all at once, its new requests queueing behind them: a class that does not
     * run in turns, while the scheduler is open and no turn is on, for {@code share.max-park} after competition ended
     * (another class's last request ended {@code share.linger + share.max-park} ago). Competition ends when the other
     * classes have had no request for {@code share.linger}, and under an OS with long timeslices that happens because
     * the class that waited holds the CPU: with 40 heavy requests of 80 ms let in at once under 100 ms round-robin
     * slices, the light pages' next requests waited 2.4-4 s in the OS's run queue, light was taken for gone again as
     * they ended, and heavy pages took 31-45 % of the server in one window in four
     * (docs/measurements/rr-heavy-onset-20261206). Past {@code share.max-park} the rest are let in, as a request parked
     * that long runs anyway: a class that stays alone (its traffic ended) is not held to the slots by the history of a
     * competition, and its new requests do not queue without one. A class alone whose requests do not wait starts them
     * at once: without competition fairslice adds no queueing.
     */
    private boolean drainsThroughSlots(ClassState c, long now, FairsliceConfig cfg) {
        if (closed || turn != null || cheap(c, cfg)) {
            return false;
        }
        long window = cfg.shareLinger().toNanos() + cfg.shareMaxPark().toNanos();
        for (ClassState k : classes) {
            if (k != c && now - k.lastActiveNanos < window) {
                return true;
            }
        }
        return false;
    }

    /** Whether a class other than {@code c} is active: then run slots are shared. */
    private boolean competing(ClassState c, long now, FairsliceConfig cfg) {
        for (ClassState k : classes) {
            if (k != c && active(k, now, cfg)) {
                return true;
            }
        }
        return false;
    }

    /**
     * How a new request of {@code c} may start at once under the current policy (caps aside): {@link #WITH_SLOT},
     * {@link #IN_TURN} or not ({@link #WAIT}).
     */
    private int startMode(ClassState c, long now, FairsliceConfig cfg) {
        if (cfg.policy() != Policy.SHARE || !competing(c, now, cfg)) {
            return cfg.policy() == Policy.SHARE && drainsThroughSlots(c, now, cfg) && waitsToRun(c, cfg)
                    ? WAIT : WITH_SLOT; // behind its class's waiting requests
        }
        if (turn != null) {
            if (turnGoesOn(c, now, cfg)) {
                return IN_TURN;
            }
            if (turn != null) {
                return WAIT; // beside a turn, only a first waiter re-checking on its own may be let in (dispatch)
            }
        }
        if (slotsTaken(now, cfg) < cfg.cpus()) {
            ClassState rival = mostOwedWaiter(now, cfg);
            if ((rival != null && rival.vtime < c.vtime) || anticipating(c, now, cfg, false)) {
                return WAIT;
            }
            return startsTurn(c, now, cfg, 1) ? IN_TURN : WITH_SLOT;
        }
        if (startsTurn(c, now, cfg, 0)) {
            return IN_TURN;
        }
        return idleGrant(now, true, cfg) ? WITH_SLOT : WAIT;
    }

    /**
     * Run slots taken: holders that reached a yield point (or started) within {@code share.max-park}. A request that
     * reaches none for that long (unwoven code, a blocking call) keeps running but no longer keeps others out: the
     * OS shares the CPU between it and the next, as it would without fairslice.
     */
    private int slotsTaken(long now, FairsliceConfig cfg) {
        return turn != null ? cfg.cpus() : slotsHeld(now, cfg);
    }

    /** Holders whose slot keeps others out ({@link #keepsSlot}). */
    private int slotsHeld(long now, FairsliceConfig cfg) {
        int held = 0;
        for (Ticket t : holders) {
            if (keepsSlot(t, now, cfg)) {
                held++;
            }
        }
        return held;
    }

    /**
     * Whether a holder's run slot keeps others out: it reached a yield point (or took its slot, or checked in) within
     * {@code share.max-park}, and its thread is not blocked ({@link #blockedHolder}). A yield point counts by its
     * clock read ({@link Ticket#lastClockRead}), not by its check-in: a holder checks in once a quantum, and with a
     * quantum of max-park or more one that computed all along looked silent, and others ran beside it.
     */
    private boolean keepsSlot(Ticket t, long now, FairsliceConfig cfg) {
        long seen = Math.max(t.slotSince, t.lastClockRead);
        return now - seen <= cfg.shareMaxPark().toNanos() && !blockedHolder(t, now);
    }

    /**
     * Whether a slot's holder is blocked in a call: at two looks at least {@link #BLOCKED_LOOK_NANOS} apart it had
     * reached no yield point since the look before, and its thread was sleeping, waiting, parked or on a monitor as
     * Java sees it (a connection pool, an HTTP client, a future, a lock) or, runnable to Java, asleep to the OS (a
     * socket read such as a JDBC driver's, a write to a slow client, a disk read; Linux only, {@link OsThreads}). The
     * CPU its slot stands for then goes unused, so the slot counts as free and goes to the next request, until the
     * holder reaches a yield point. A holder that reaches yield points is computing and is not asked about (its count
     * is written by its own thread without the lock: read here as a sign of life, not as a count). One that runs
     * without yield points (unwoven code, the JDK) keeps its slot, on the CPU or preempted: the thread's state tells
     * blocked from preempted, which its CPU clock could not. Where the OS cannot be asked, a thread in a socket read
     * keeps its slot until {@code share.max-park} or the CPU is found idle ({@link #idleGrant}).
     */
    private boolean blockedHolder(Ticket t, long now) {
        if (now - t.lookedAt < BLOCKED_LOOK_NANOS) {
            return t.blocked;
        }
        long yieldPoints = t.yieldPoints;
        boolean computing = yieldPoints != t.lookedYieldPoints;
        boolean blockedNow = !computing && blocked(t);
        if (blockedNow && t.lookedBlocked && !t.blocked) {
            t.cls.slotsLent.increment();
        }
        t.blocked = blockedNow && t.lookedBlocked;
        t.lookedBlocked = blockedNow;
        t.lookedAt = now;
        t.lookedYieldPoints = yieldPoints;
        return t.blocked;
    }

    /**
     * Whether the ticket's thread waits in a call now, as Java sees it or, runnable to Java, as the OS does. Not one
     * that waits for this scheduler's lock (at a yield point, or as its request ends): it checks in or gives its slot
     * up as soon as the dispatch that looks at it lets the lock go.
     */
    private boolean blocked(Ticket t) {
        Thread.State state = t.thread.getState();
        if (state == Thread.State.WAITING) {
            return !lock.hasQueuedThread(t.thread);
        }
        return state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED
                || state == Thread.State.RUNNABLE && OsThreads.asleep(t.osThread);
    }

    /**
     * Whether one more request may run beyond the run slots because CPU capacity goes unused (work-conserving): as
     * many run beyond them (a turn's requests have them all) as the last look found idle samples in a row. So one
     * more comes in per idle sample, and the slot it runs on stays open for the next one as it ends, for as long as
     * capacity goes unused; none after a busy sample. A class that cannot use its share (its clients send no more,
     * its pages' work is mostly the container's) leaves the CPU to the others instead of idle. {@code look}: ask the
     * sampler now (it reads the process CPU clock at most once a millisecond); a turn's events go by a look of the
     * last {@link #RECHECK_NANOS} instead (the first waiters' own looks), since reading that clock under the lock at
     * each of them cost context switches.
     */
    private boolean idleGrant(long now, boolean look, FairsliceConfig cfg) {
        if (look) {
            lastIdleLookNanos = now;
            idleAllowance = clock.idleSamples(cfg.cpus());
        }
        if (idleAllowance == 0 || now - lastIdleLookNanos > RECHECK_NANOS) {
            return false;
        }
        int held = slotsHeld(now, cfg);
        return (turn != null ? held : held - cfg.cpus()) < idleAllowance;
    }

    /** The class with the lowest virtual time among those with a request that could be granted now, or null. */
    private ClassState mostOwedWaiter(long now, FairsliceConfig cfg) {
        return mostOwedWaiterBut(null, cfg);
    }

    /** The class with the lowest virtual time among those but {@code c} with a request that could be granted now. */
    private ClassState mostOwedWaiterBut(ClassState c, FairsliceConfig cfg) {
        ClassState best = null;
        for (ClassState k : classes) {
            if (k != c && waitsToRun(k, cfg) && (best == null || k.vtime < best.vtime)) {
                best = k;
            }
        }
        return best;
    }

    /**
     * Whether the class has a request that could be granted now (parked at a yield point, or queued within its cap).
     */
    private boolean waitsToRun(ClassState k, FairsliceConfig cfg) {
        return !k.yieldWaiters.isEmpty() || (!k.admissionQueue.isEmpty()
                && (closed || cfg.policy() == Policy.OBSERVE || capOk(k, cfg)));
    }

    /** The class's request that a grant would go to first: parked at a yield point, else the admission queue's head. */
    private static Ticket firstWaiter(ClassState k) {
        return !k.yieldWaiters.isEmpty() ? k.yieldWaiters.peek() : k.admissionQueue.peek();
    }

    /**
     * A class that becomes active starts level with the most-owed active class, or, when none is active, with the
     * {@link #vtimeFloor}: idle time banks no credit. Without the floor a class that started while the others were
     * quiet kept the virtual time it had when it last ran, however long ago: light pages that ran alone for a while,
     * then paused past the linger, came back behind heavy ones that had started in the pause, and waited up to the
     * lag bound (1 s x share.cpus of heavy run) after every lull of a quiet site.
     */
    private void catchUp(ClassState c, long now, FairsliceConfig cfg) {
        double min = Double.NaN;
        for (ClassState k : classes) {
            if (k != c && active(k, now, cfg) && !(k.vtime >= min)) {
                min = k.vtime;
            }
        }
        c.vtime = Math.max(c.vtime, Double.isNaN(min) ? vtimeFloor : min);
    }

    /**
     * Charges {@code runNanos} of held run-slot time to {@code c}: its virtual time advances by the time over its
     * share weight. Active classes are kept within {@link #LAG_LIMIT_NANOS} per slot of the leader while they want
     * less than their share (no request waits to run, no turn is theirs), within {@link #WAITING_LAG_LIMIT_NANOS}
     * otherwise: a class whose requests waited while another class's request ran long without a yield point is owed
     * that run. The balances (for metrics) are recomputed.
     */
    private void charge(ClassState c, long runNanos, long now, FairsliceConfig cfg) {
        if (runNanos > 0) {
            c.vtime += runNanos / (double) cfg.classes().get(c.index).share();
        }
        double lead = c.vtime;
        double weights = 0;
        double weighted = 0;
        for (ClassState k : classes) {
            if (k == c || active(k, now, cfg)) {
                lead = Math.max(lead, k.vtime);
            }
        }
        for (ClassState k : classes) {
            if (k == c || active(k, now, cfg)) {
                int share = cfg.classes().get(k.index).share();
                long limit = turn == k || waitsToRun(k, cfg) ? WAITING_LAG_LIMIT_NANOS : LAG_LIMIT_NANOS;
                k.vtime = Math.max(k.vtime, lead - limit * (double) cfg.cpus() / share);
                weights += share;
                weighted += share * k.vtime;
            }
        }
        double mean = weighted / weights;
        double least = Double.POSITIVE_INFINITY;
        for (ClassState k : classes) {
            boolean on = k == c || active(k, now, cfg);
            k.balance = on ? (long) ((mean - k.vtime) * cfg.classes().get(k.index).share()) : 0;
            if (on) {
                least = Math.min(least, k.vtime);
            }
        }
        vtimeFloor = Math.max(vtimeFloor, least);
        if (vtimeFloor > REBASE_VTIME) {
            // only differences count; far from 0 a double drops small charges (a 20 us request of a class of share
            // 1000 adds 20, below the spacing of doubles near 6e17, and the class never advanced)
            for (ClassState k : classes) {
                k.vtime -= vtimeFloor;
            }
            vtimeFloor = 0;
        }
    }

    /** Counts the ticket's CPU since the last count (a sample stands for {@link Ticket#cpuWeight} requests). */
    private void settleCpu(Ticket t, long cpu, long now) {
        if (cpu >= 0) {
            long x = (cpu - t.accounted) * t.cpuWeight;
            account(t.cls, x, now);
            if (t.isTask() && x > 0) {
                t.cls.decayedTaskCpu += x; // decayed by account's decay just now, with the rest
            }
            t.accounted = cpu;
        }
    }

    /** Actual CPU use, for the share gauge, the classes' mean CPU per request and the CPU counter. */
    private void account(ClassState c, long x, long now) {
        if (x <= 0) {
            return;
        }
        decay(now);
        c.decayedCpu += x;
        c.cpuNanos.add(x);
    }

    /** Decays the classes' CPU use and request counts to {@code now} (over about {@link #SHARE_DECAY_NANOS}). */
    private void decay(long now) {
        if (now == lastDecayNanos) {
            return;
        }
        double decay = Math.exp(-(now - lastDecayNanos) / SHARE_DECAY_NANOS);
        lastDecayNanos = now;
        for (ClassState k : classes) {
            k.decayedCpu *= decay;
            k.decayedGc *= decay;
            k.decayedTaskCpu *= decay;
            k.decayedRequests *= decay;
        }
    }

    /**
     * Grants waiters while the policy allows: under share, free run slots go to the most-owed waiting class, one
     * request at a time (its parked requests first, then its admission queue); otherwise every waiter within its
     * class cap goes.
     */
    private void dispatch(long now) {
        dispatch(now, false);
    }

    /**
     * {@link #dispatch(long)}; {@code selfCheck}: called by a waiter that woke on its own to look again. Only then
     * is a request of another class let in beside a turn when CPU capacity goes unused (the turn's requests blocked,
     * on I/O say): the check reads the process CPU clock, a system call, and under the lock on each of a turn's
     * thousands of events a second it cost the study server 1 500 context switches a second more.
     */
    private void dispatch(long now, boolean selfCheck) {
        grantWaiters(now, selfCheck);
        wakeNewFirstWaiters();
    }

    /** Wakes the classes' first waiters that became first since the last call, to time their own naps. */
    private void wakeNewFirstWaiters() {
        for (ClassState k : classes) {
            if (k.headLeft) {
                k.headLeft = false;
                wakeFirstWaiter(k);
            }
        }
    }

    /** The grants of {@link #dispatch}. */
    private void grantWaiters(long now, boolean selfCheck) {
        FairsliceConfig cfg = config;
        boolean gated = !closed && cfg.policy() == Policy.SHARE;
        if (turn != null) {
            turnOver(now, cfg);
        }
        while (true) {
            ClassState k = mostOwedWaiter(now, cfg);
            if (k == null) {
                return;
            }
            boolean inTurn = false;
            // alone with requests waiting, an expensive class goes through the run slots as while classes compete
            if (gated && (competing(k, now, cfg) || drainsThroughSlots(k, now, cfg))) {
                if (turn != null) {
                    inTurn = turn == k && !turnClosing;
                    if (!inTurn && !idleGrant(now, selfCheck, cfg)) {
                        return;
                    }
                } else if (slotsTaken(now, cfg) >= cfg.cpus()) {
                    inTurn = startsTurn(k, now, cfg, 0);
                    if (!inTurn && !idleGrant(now, true, cfg)) {
                        return;
                    }
                } else {
                    inTurn = startsTurn(k, now, cfg, 1);
                    if (!inTurn && anticipating(k, now, cfg, selfCheck)) {
                        return;
                    }
                }
            }
            anticipatingSince = NEVER;
            if (!k.yieldWaiters.isEmpty()) {
                resume(k.yieldWaiters.poll(), now, inTurn);
            } else {
                admitFromQueue(k.admissionQueue.poll(), now, inTurn);
            }
        }
    }

    private void resume(Ticket t, long now, boolean inTurn) {
        t.cls.headLeft = true;
        t.cls.waitingYield--;
        parkedAtYield(t, false);
        if (inTurn) {
            joinTurn(t, now, config);
        } else {
            takeSlot(t, now);
        }
        t.granted = true;
        wake(t.thread);
    }

    private void admitFromQueue(Ticket t, long now, boolean inTurn) {
        t.cls.headLeft = true;
        t.cls.waitingAdmission--;
        t.queuedForAdmission = false;
        grantPermit(t, now, inTurn);
        wake(t.thread);
    }

    /** Arms the global yield gate while this scheduler may want a running request to yield. */
    private void updateArmed() {
        FairsliceConfig cfg = config;
        boolean want = false;
        if (!closed) {
            want = pendingMoves > 0; // a request to move does so at its next yield point
            switch (cfg.policy()) {
                case OBSERVE -> {
                    for (ClassState c : classes) {
                        want |= c.inflight + c.tasks > 0;
                    }
                }
                case SLEEP -> {
                    boolean[] s = sleepy;
                    for (ClassState c : classes) {
                        want |= s[c.index] && c.running > 0;
                    }
                }
                case SHARE -> {
                    int busy = 0;
                    for (ClassState c : classes) {
                        busy += c.inflight + c.tasks > 0 ? 1 : 0;
                    }
                    want |= busy >= 2;
                }
            }
        }
        if (want != armed) {
            armed = want;
            if (want) {
                armedAt = clock.nanoTime();
                YieldGate.arm();
            } else {
                YieldGate.disarm();
            }
        }
    }

    /** Under the lock: {@code thread} is unparked when the lock is released. */
    private void wake(Thread thread) {
        toWake.add(thread);
    }

    /**
     * Releases the lock, then unparks the threads granted or woken under it. Unparked under the lock, a waiter
     * preempts the thread that granted it (Linux's default scheduler runs a thread that wakes at once), finds the lock
     * still held and blocks on it; at a turn's start, with its class's waiters granted together, that convoy cost the
     * study server about 600 more parks (and as many wake-ups) a second. The lock is released whatever fails before
     * (a StackOverflowError in noteCaps' clock read at a deep yield point, an OutOfMemoryError collecting the threads):
     * left held, it blocked every other request of the application for good. Threads not yet taken out of
     * {@link #toWake} then stay in it for the next release (a spurious unpark is harmless: every waiter looks again).
     */
    private void unlock() {
        Thread[] threads = null;
        try {
            noteCaps();
            if (!toWake.isEmpty()) {
                threads = toWake.toArray(new Thread[0]);
                toWake.clear();
            }
        } finally {
            lock.unlock();
        }
        if (threads != null) {
            for (Thread thread : threads) {
                LockSupport.unpark(thread);
            }
        }
    }

    /**
     * Under the lock, as it is released: the classes' requests queued at admission while the permits of their
     * {@code max-concurrency} are all taken by requests the shares do not hold parked at a yield point. Behind a permit
     * whose holder the shares parked, a queue waits for the shares too: with a cap of 1 and its one request parked 95 %
     * of the time, counting its queue as capped hid a class the shares starved from the share alert. The counts change
     * only under the lock, so noting them at each release measures {@link #cappedWaitNanos} exactly; the clock is read
     * only when a count changed.
     */
    private void noteCaps() {
        List<RequestClassConfig> cs = config.classes();
        long now = NEVER;
        for (ClassState c : classes) {
            int cap = cs.get(c.index).maxConcurrency();
            int capped = cap > 0 && c.permits - c.parkedHolders >= cap ? c.waitingAdmission : 0;
            if (capped != c.cappedWaiters) {
                if (now == NEVER) {
                    now = clock.nanoTime();
                }
                c.cappedNanos += c.cappedWaiters * (now - c.capNoteNanos);
                c.cappedWaiters = capped;
                c.capNoteNanos = now;
            }
        }
    }

    // ---- views for metrics and JMX -------------------------------------------------------------------------------

    /**
     * Time (ns, summed over requests) the class's requests waited at admission while every permit of its
     * {@code max-concurrency} was taken by a request not parked at a yield point: held back by the class's own cap,
     * not by the shares. Part of the admission waits in {@link ClassState#parkedNanos}, except for a request that
     * moved to another class while it waited: its capped time stays with the class it waited in, its whole wait goes
     * to the class it ended in. 0 for a class without a cap.
     */
    public long cappedWaitNanos(int classIndex) {
        lock.lock();
        try {
            ClassState c = classes[classIndex];
            return c.cappedNanos + c.cappedWaiters * (clock.nanoTime() - c.capNoteNanos);
        } finally {
            unlock();
        }
    }

    /** Times a run slot's holder was found blocked in a call and its slot lent to others ({@link #blockedHolder}). */
    public long slotsLent() {
        long n = 0;
        for (ClassState c : classes) {
            n += c.slotsLent();
        }
        return n;
    }

    /**
     * The class's part of what the classes were charged, decayed over about two seconds: their requests' CPU, and the
     * collector's pauses with {@code share.charge-gc}. What the shares split. NaN while the classes were charged less
     * than {@link #IDLE_CHARGE_NANOS} over that time (idle, or nothing charged yet): a ratio of what decays alike would
     * show the last busy moment's mix for as long as the server is idle.
     */
    public double cpuShare(int classIndex) {
        double total = 0;
        for (ClassState c : classes) {
            total += c.decayedCpu + c.decayedGc;
        }
        // decayed to now without the lock: what decay(now) would leave (a gauge may read a charge half made)
        double sinceCharge = Math.max(0, clock.nanoTime() - lastDecayNanos);
        if (total * Math.exp(-sinceCharge / SHARE_DECAY_NANOS) < IDLE_CHARGE_NANOS) {
            return Double.NaN;
        }
        ClassState c = classes[classIndex];
        return (c.decayedCpu + c.decayedGc) / total;
    }

    /** The class's configured share, normalised over all classes. */
    public double targetShare(int classIndex) {
        FairsliceConfig cfg = config;
        double total = 0;
        for (RequestClassConfig c : cfg.classes()) {
            total += c.share();
        }
        return cfg.classes().get(classIndex).share() / total;
    }

    /** Whether the global yield gate is armed by this scheduler. */
    public boolean armed() {
        lock.lock();
        try {
            return armed;
        } finally {
            unlock();
        }
    }

    /** Requests running now across classes. */
    public int totalRunning() {
        lock.lock();
        try {
            int riders = 0;
            for (ClassState c : classes) {
                riders += c.riders + c.strays;
            }
            return holders.size() + riders;
        } finally {
            unlock();
        }
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        for (ClassState c : classes) {
            parts.add(c.name + "{inflight=" + c.inflight + ", running=" + c.running + ", waiting=" + c.waiting()
                    + ", balance=" + c.balance / 1000 + "us}");
        }
        return "Scheduler" + parts;
    }
}
