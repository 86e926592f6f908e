package io.fairslice.middleware.schedule;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One request's scheduling state, created by the filter when the request enters and handed to the scheduler at every
 * decision; or one task's of a request ({@link Scheduler#task}), created on the task's thread as it starts. Written by
 * the thread serving the request; the fields the scheduler's dispatcher writes from other threads ({@link #granted})
 * are volatile or guarded by the scheduler's lock.
 */
public final class Ticket {

    final Scheduler scheduler;
    /**
     * For a task's ticket ({@link Scheduler#task}: work of a request on another thread, scheduled like a request), the
     * request's; null for a request's.
     */
    final Ticket request;
    /**
     * For a task's ticket, the ticket of the thread that submitted the task: its request's dispatch, or another task of
     * the request (a task that fans out in turn); the one that may join it (Scheduler#requestLook). Null for a
     * request's.
     */
    final Ticket submitter;
    /** The request's class: changes only when the request moves to another class (under the scheduler's lock). */
    ClassState cls;
    final long startNanos;
    /**
     * The class the request is to move to at its next yield point ({@link Scheduler#reclassify}), or -1. Set under the
     * scheduler's lock; read without it by the request's own thread.
     */
    volatile int moveTo = -1;
    /**
     * Whether the request moved into its class after it had been admitted into another: its parks at yield points are
     * bounded by its class's queue timeout, not share.max-park (Scheduler, Moves). Guarded by the scheduler's lock.
     */
    boolean moved;
    /** A task's: it runs in place on a thread that serves another request ({@link Scheduler#task}). */
    boolean onHostThread;
    /** An async request between dispatches: counted in its class's {@link ClassState#detached} (under the lock). */
    boolean detached;

    Thread thread;
    /** The OS's id of {@link #thread} (Linux), -1 where its OS state cannot be read ({@link OsThreads}). */
    int osThread = -1;
    volatile boolean granted;
    boolean holdsPermit;
    /**
     * The class whose {@code max-concurrency} the permit counts against: the one that admitted the request, wherever
     * it moves afterwards (docs/configuration.md), so that a move neither frees the class it leaves nor fills the one
     * it joins. Set with {@link #holdsPermit}, under the lock.
     */
    ClassState permitClass;
    /** Whether the request holds a run slot (admitted, dispatching or about to, not parked), and since when. */
    boolean holdsSlot;
    long slotSince;
    /**
     * When the scheduler last looked at the holder, its yield points then, whether its thread was blocked then, and
     * whether its slot is lent ({@code Scheduler#blockedHolder}); reset when it checks in.
     */
    long lookedAt;
    long lookedYieldPoints;
    boolean lookedBlocked;
    boolean blocked;

    /**
     * The holder checked in (it took its slot, or reached a yield point that counted): its slot's time starts again at
     * {@code now}, and it is no longer taken for blocked. Under the scheduler's lock.
     */
    void checkIn(long now) {
        slotSince = now;
        lookedAt = now;
        lookedYieldPoints = yieldPoints;
        lookedBlocked = false;
        blocked = false;
    }
    /**
     * Blocking calls the request's thread declared it is in ({@code Fairslice.blocking()}, nested ones counted), and,
     * when the outermost gave up the request's run slot or turn (Scheduler#blockingBegins), the class it was in then
     * (else null): it takes a slot again as the call returns, in the class it is in by then. The depth is the thread's
     * own; {@code awayFrom} is written under the scheduler's lock, set only by the request's own thread, which may
     * therefore read it without the lock.
     */
    int blockingDepth;
    ClassState awayFrom;
    /**
     * Which declarations {@link Scheduler#blockingEnds} still ends: changes as a dispatch ends and as a task ends, so
     * that a {@code Fairslice.blocking()} handle left open before (a leak) ends nothing when it is closed after. Written
     * by the request's thread, or as a task ends under the scheduler's lock; read by the handle's thread.
     */
    volatile int blockingEpoch;
    /**
     * When the outermost declared blocking call began (scheduler clock): its length is the thread's time off the CPU.
     */
    long blockingSince;
    /** Whether the request runs in its class's turn, without a run slot of its own (see Scheduler, turns). */
    boolean riding;
    /** Riding a turn that ended while it ran: no longer one of its class's riders. */
    boolean stray;
    /** Whether the request's class has been charged for it as a request of a turn (once per request). */
    boolean chargedInTurn;
    /**
     * What its class has been charged for it in turns so far (the class's mean as it joined, then what it used beyond
     * that, Scheduler#parkAtYield), and its CPU (settled) as it joined.
     */
    long turnCharged;
    long turnCpuBase;
    /**
     * What is left of its turn's charge after it left the turn before its end (stopped at a yield point, in a declared
     * blocking call, or between the dispatches of an async request; Scheduler#unusedTurnCharge): its class paid for its
     * whole request as it joined, so its next run pays from this first, whether in a turn or with a run slot of its
     * own. A request that moves to another class drops it (its new class charges it afresh).
     */
    long prepaid;
    /**
     * The holder thread's CPU clock when it last started running with its slot (-1: not read; see
     * Scheduler#slotCharge).
     */
    long cpuMark = -1;
    /**
     * The thread's CPU clock when the request began to wait for a run slot (as it entered the filter, if its CPU is
     * measured; else as it was queued at admission), or gave its slot up at a yield point; -1: not read. What the
     * thread uses from then until it runs with a slot again (the scheduler, parking and waking) is charged with the
     * slot ({@link #waitCpu}).
     */
    long waitMark = -1;
    /** CPU the request's thread used waiting for its run slot, charged with the slot's next charge. */
    long waitCpu;
    /** Until when the waiting request parks before it looks again (set by the scheduler under its lock). */
    long napUntil;
    boolean queuedForAdmission;
    boolean parkedAtYield;
    /** When it began to wait in its queue (admission or yield), under the scheduler's lock. */
    long waitStartNanos;
    /**
     * Until when it may wait: {@link #waitStartNanos} and its class's bound (Scheduler.waitBound). Written under the
     * scheduler's lock, by another thread too when the ticket moves while it waits (Scheduler.sendTo, which then
     * unparks it) or the bounds change at runtime (Scheduler.reconfigure, which unparks it if it comes sooner); the
     * waiter reads it without the lock only to size its park, and decides under the lock.
     */
    long deadlineNanos;

    /**
     * How many requests this one's CPU time stands for: 0 when it is not measured (the thread's CPU clock is read
     * for a sample of requests only, config {@code cpu.sample-interval}), else its route's requests since the
     * previous sample, this one included ({@code Route.cpuSample}).
     */
    final int cpuWeight;
    /** CPU of finished dispatches plus the current dispatch's start point. */
    long cpuDone;
    long cpuDispatchStart;
    boolean dispatching;
    /**
     * Bytes allocated by finished dispatches, and the thread's allocation counter as the current one began (-1: not
     * read); read where the CPU is, for a measured request.
     */
    long allocDone;
    long allocDispatchStart = -1;
    /**
     * CPU (ns) and bytes of other requests' tasks that ran in place on this ticket's thread, left out of its own
     * ({@link #leaveOut}): a task run in place inside a task run in place is left out of the outer host too.
     */
    long leftOutCpu;
    long leftOutBytes;
    /** CPU already counted as the class's actual use (metrics). */
    long accounted;
    /** Wall time at the start of the current burst (since the dispatch began, the last park or the last check). */
    long burstStartWall;
    long yieldPoints;
    /** Yield points to pass before the next clock read, and the current stride (see yieldPoint). */
    int clockCountdown;
    int clockStride = 1;
    /**
     * When the request's thread last read the clock at a yield point: the stride's measure, and, read by the
     * scheduler from other threads (Scheduler#keepsSlot), the last sign that a slot's holder computes, which
     * {@link #slotSince} is not: it moves only as the holder is charged, once a quantum, and a quantum may be as long
     * as share.max-park or longer. Written only where the clock is read, so its volatile write costs no yield point
     * that does not read it.
     */
    volatile long lastClockRead;
    /**
     * Set by a waiter for the holder's run slot (Scheduler.wantClock, under the lock): the holder's next yield point
     * reads the clock whatever its countdown. Cleared by the holder's thread as it reads.
     */
    volatile boolean clockWanted;
    boolean completed;
    int rejection = -1;
    /**
     * The request's own CPU, settled as it completed while tasks of it still ran (a task's last line completed it):
     * its class's CPU per request learns it, with theirs, as the last of them ends; -1 otherwise. Under the lock.
     */
    long cpuForMean = -1;
    /** CPU of the request's work on other threads ({@link Scheduler#task}), added as each task ends. */
    final AtomicLong taskCpu = new AtomicLong();
    /**
     * Whether the application declared the request's class ({@code Fairslice.classify}; set under the scheduler's
     * lock): its route's decisions no longer move it, and it teaches its route nothing.
     */
    volatile boolean declared;
    /** What the filter does as the application declares the request's class (stops watching it for its route). */
    Runnable onDeclared;
    /** What the filter counts the request's meters under (its route), for its tasks' CPU; null outside the filter. */
    volatile Object meterKey;
    /** Task CPU held until the request's meters are counted, and whether they are ({@link #holdTaskCpu}); by this. */
    private long heldTaskCpu;
    private boolean metered;
    /**
     * The tickets of the request's tasks that run now (started and not ended; {@link Scheduler#task}), which move with
     * it ({@link Scheduler#reclassify}); null until its first task. Under the scheduler's lock.
     */
    private Set<Ticket> runningTasks;
    /** The request's tasks running now, and what waits for them to end ({@link #whenTasksEnd}). */
    final AtomicInteger tasksRunning = new AtomicInteger();
    private final AtomicReference<Runnable> afterTasks =
            new AtomicReference<>();

    Ticket(Scheduler scheduler, ClassState cls, long startNanos, int cpuWeight) {
        this(scheduler, cls, startNanos, cpuWeight, null, null);
    }

    Ticket(Scheduler scheduler, ClassState cls, long startNanos, int cpuWeight, Ticket request, Ticket submitter) {
        this.scheduler = scheduler;
        this.cls = cls;
        this.startNanos = startNanos;
        this.cpuWeight = cpuWeight;
        this.request = request;
        this.submitter = submitter;
    }

    /**
     * Another request's task ran in place on this one's thread from {@code since} to {@code now} (wall), measured and
     * charged as that request's own: this dispatch's CPU and allocation leave out its {@code cpu} ns and
     * {@code allocated} bytes (-1: not measured), and its run slot's time and quantum the task's wall time, so that
     * neither its page nor its class pays for the task again. A check-in while the task ran (another class arrived,
     * a turn started) restarted the slot's time or the quantum within it: they move no later than {@code now}. On
     * the thread that serves this ticket, as the task ends there, under the scheduler's lock.
     */
    void leaveOut(long cpu, long allocated, long since, long now) {
        if (cpu > 0) {
            cpuDispatchStart += cpu;
            leftOutCpu += cpu;
            if (cpuMark >= 0) {
                cpuMark += cpu;
            }
            if (waitMark >= 0) {
                waitMark += cpu;
            }
        }
        if (allocated > 0) {
            leftOutBytes += allocated;
            if (allocDispatchStart >= 0) {
                allocDispatchStart += allocated;
            }
        }
        long wall = now - since;
        if (wall > 0) {
            burstStartWall = Math.min(burstStartWall + wall, now);
            if (holdsSlot) {
                slotSince = Math.min(slotSince + wall, now);
            }
        }
    }

    /** Whether this is a task's ticket ({@link Scheduler#task}), not a request's. */
    public boolean isTask() {
        return request != null;
    }

    /**
     * Whether it runs in its class without having been admitted into it: a request that moved in after its admission
     * elsewhere, or a task (its request was admitted). Each of its waits is bounded by its class's queue timeout
     * rather than share.max-park, and after a quantum it waits at the front of its class's yield queue: a bound of
     * max-park would release every such waiter for another quantum each max-park, whatever its class's share
     * (Scheduler, Moves and Tasks).
     */
    boolean withoutAdmission() {
        return moved || request != null;
    }

    /** The request's ticket: this one's, or the request's when this is a task's ({@link #isTask()}). */
    public Ticket ofRequest() {
        return request != null ? request : this;
    }

    /** A task of this request started ({@link #runningTasks}); under the scheduler's lock. */
    void taskStarted(Ticket task) {
        if (runningTasks == null) {
            runningTasks = new LinkedHashSet<>(); // a request may fan out to many: removal in O(1)
        }
        runningTasks.add(task);
    }

    /** A task of this request ended; under the scheduler's lock. */
    void taskEnded(Ticket task) {
        if (runningTasks != null) {
            runningTasks.remove(task);
        }
    }

    /** This request's tasks that run now; under the scheduler's lock. */
    Set<Ticket> runningTasks() {
        return runningTasks == null ? Set.of() : runningTasks;
    }

    /**
     * Whether the ticket may run under the policy's decisions: a request once admitted (it holds its permit), a task
     * once started (its request's permit covers it).
     */
    boolean admitted() {
        return holdsPermit || request != null;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** The request's class index. */
    public int classIndex() {
        return cls.index;
    }

    public String className() {
        return cls.name;
    }

    /** When the request entered the filter (scheduler clock). */
    public long startNanos() {
        return startNanos;
    }

    /**
     * CPU time used by the request's dispatches so far (ns), measured on the calling thread if it serves it; -1 when
     * the request's CPU time is not measured ({@link #cpuWeight()} 0).
     */
    public long cpuNanos() {
        if (cpuWeight == 0) {
            return -1;
        }
        return dispatching ? cpuDone + scheduler.clock.threadCpuNanos() - cpuDispatchStart : cpuDone;
    }

    /**
     * Bytes the request's dispatches allocated so far, the current one's included when the calling thread serves it;
     * -1 when not measured (its CPU time is not, or the JVM cannot count allocation).
     */
    long allocatedBytes() {
        if (cpuWeight == 0 || (allocDone == 0 && allocDispatchStart < 0)) {
            return -1;
        }
        boolean current = dispatching && allocDispatchStart >= 0 && thread == Thread.currentThread();
        return current ? allocDone + scheduler.clock.threadAllocatedBytes() - allocDispatchStart : allocDone;
    }

    /**
     * The thread's CPU clock as the current dispatch began (ns), read there for a measured request; -1 when the
     * request's CPU time is not measured ({@link #cpuWeight()} 0).
     */
    public long dispatchStartCpuNanos() {
        return cpuWeight == 0 ? -1 : cpuDispatchStart;
    }

    /** How many requests this one's measured CPU time stands for; 0 when it is not measured. */
    public int cpuWeight() {
        return cpuWeight;
    }

    /** CPU the request's tasks on other threads used so far (ns; {@link Scheduler#task}). */
    public long taskCpuNanos() {
        return taskCpu.get();
    }

    /**
     * Runs {@code action} now, or, while tasks of the request run ({@link Scheduler#task}), as the last of them ends
     * (on its thread; once, whichever comes last): a task that completes the request (the usual last line of one) has
     * not yet counted its CPU then, and the request's CPU with its tasks' is what its route learns from.
     */
    public void whenTasksEnd(Runnable action) {
        afterTasks.set(action);
        if (tasksRunning.get() == 0) {
            runAfterTasks();
        }
    }

    void runAfterTasks() {
        Runnable finish = afterTasks.getAndSet(null);
        if (finish != null) {
            finish.run();
        }
    }

    /**
     * Whether the application declared the request's class ({@code Fairslice.classify}): then it teaches its route
     * nothing.
     */
    public boolean declared() {
        return declared;
    }

    /** Run once, on the request's thread, if the application declares the request's class (before it moves). */
    public void onDeclared(Runnable action) {
        onDeclared = action;
    }

    /**
     * Holds a task's CPU ({@code Fairslice.task}) to be counted with the request's own as its meters are
     * ({@link #meteredWithTaskCpu}): for a request whose page is not known yet (a new page's route joins the table as
     * its first served request ends, and a task may end before it). False once the request's meters are counted:
     * count the task's CPU at once, under {@link #meterKey}.
     */
    public synchronized boolean holdTaskCpu(long cpuNanos) {
        if (metered) {
            return false;
        }
        heldTaskCpu += cpuNanos;
        return true;
    }

    /**
     * The request's meters are being counted (set {@link #meterKey} to the route they go to first): the task CPU held
     * for them, which from now on is held no more.
     */
    public synchronized long meteredWithTaskCpu() {
        metered = true;
        long held = heldTaskCpu;
        heldTaskCpu = 0;
        return held;
    }

    /** What the filter counts the request's meters under (its route): where its tasks' CPU goes besides its class. */
    public void meterKey(Object key) {
        meterKey = key;
    }

    public Object meterKey() {
        return meterKey;
    }

    /** Yield points this request reached while the scheduler was armed. */
    public long yieldPoints() {
        return yieldPoints;
    }
}
