package io.fairslice.middleware.schedule;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scheduler's state for one request class. Written under the scheduler's lock; the volatile fields and adders
 * are what gauges and counters read without it.
 */
public final class ClassState {

    final int index;
    final String name;

    volatile int inflight;
    /** Of {@link #inflight}: async requests between dispatches ({@link Scheduler#detach}), run by no thread. */
    int detached;
    volatile int running;
    /**
     * Tasks of the class's requests that run now on other threads ({@link Scheduler#task}), parked or not: the class's
     * work, not requests in flight.
     */
    int tasks;
    volatile int permits;
    volatile int waitingAdmission;
    volatile int waitingYield;
    /**
     * Virtual time: run-slot time (ns) used while active, over the share weight. The share scheduler gives free slots
     * to the waiting class with the lowest.
     */
    double vtime;
    /**
     * Run-slot time (ns) the class is owed (positive) or has used beyond its share (negative) against the active
     * classes' weighted mean; balances of active classes sum to zero. For metrics and JMX.
     */
    volatile long balance;
    long lastActiveNanos = Long.MIN_VALUE / 2;
    final ArrayDeque<Ticket> admissionQueue = new ArrayDeque<>();
    final ArrayDeque<Ticket> yieldWaiters = new ArrayDeque<>();
    /**
     * The first of the class's waiters left (granted or given up) since the last dispatch: the next one, asleep until
     * then, is woken to time its own naps (only a class's first waiter re-checks on its own).
     */
    boolean headLeft;
    /** Of {@link #permits}: holders parked at a yield point, held back by the shares ({@code Scheduler.noteCaps}). */
    int parkedHolders;
    /**
     * Requests queued at admission while every permit of the class's {@code max-concurrency} was taken by a request
     * not parked at a yield point, as of {@link #capNoteNanos} (0 when not so): waiting for the class's own cap, not
     * for the shares. With {@link #cappedNanos}, the time they waited so ({@link Scheduler#cappedWaitNanos}).
     */
    int cappedWaiters;
    long capNoteNanos;
    long cappedNanos;
    /** Requests running in the class's turn without a slot of their own (counted in {@link #running} too). */
    int riders;
    /** Requests still running in a turn of the class that ended while they ran (in {@link #running}, not riders). */
    int strays;
    /** Mean CPU time of the class's measured requests (ns, EWMA); 0 until one is measured. Decides turns. */
    double cpuPerRequestNanos;

    /** Decayed actual CPU use, for the share gauge and {@link #meanCpuNanos}. */
    volatile double decayedCpu;
    /**
     * Of {@link #decayedCpu}: the tasks' CPU ({@link Scheduler#task}), which they are charged as they run, so not part
     * of the class's mean CPU per request.
     */
    double decayedTaskCpu;
    /** Decayed collector time charged to the class ({@code share.charge-gc}), decayed with {@link #decayedCpu}. */
    volatile double decayedGc;
    /**
     * Bytes the class's measured requests allocated, each counted for the requests it stands for, as of their
     * completion; and as of the last collector pause charged (both guarded by the scheduler's lock).
     */
    volatile long allocatedBytes;
    long allocatedAtLastPause;
    /** Decayed count of the requests that measured CPU stands for, decayed with {@link #decayedCpu}. */
    double decayedRequests;
    /**
     * EWMA of the interval between completions (ns) while the class is busy: the drain rate behind Retry-After.
     */
    double drainIntervalNanos;
    /**
     * The last completion, or the admission that ended an idle spell (nothing in flight): the first completion of a
     * busy spell measures from when it began, not from the spell before, so that a lull is no interval between
     * completions (Scheduler.countIn).
     */
    long lastCompletionNanos;

    final LongAdder yieldPoints = new LongAdder();
    final LongAdder[] parks = {new LongAdder(), new LongAdder()};
    final LongAdder[] parkedNanos = {new LongAdder(), new LongAdder()};
    final LongAdder[] rejections = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    final LongAdder cpuNanos = new LongAdder();
    final LongAdder gcNanos = new LongAdder();
    /** Requests moved into the class while in flight ({@link Scheduler#reclassify}). */
    final LongAdder movedIn = new LongAdder();
    /** Times a request of the class was found blocked in a call holding a run slot, which was lent meanwhile. */
    final LongAdder slotsLent = new LongAdder();
    /** Times a request of the class gave its run slot up for a call it declared blocking. */
    final LongAdder slotsLentDeclared = new LongAdder();
    /**
     * Times a request of the class, first to wait while a free run slot was held for a cheaper class's request on its
     * way, yielded its CPU before it looked again (Scheduler.anticipating): other threads ran in the yield
     * ({@code [0]}) or none did ({@code [1]}); and the time in those yields.
     */
    final LongAdder[] holdYields = {new LongAdder(), new LongAdder()};
    final LongAdder holdYieldNanos = new LongAdder();

    ClassState(int index, String name) {
        this.index = index;
        this.name = name;
    }

    /**
     * The class's CPU per request over the last seconds (ns): its measured requests' CPU over the number of requests
     * they stand for (a sample counts for its route's requests since the one before), both decayed alike;
     * {@link #cpuPerRequestNanos} until a measured request has completed.
     */
    double meanCpuNanos() {
        double requests = decayedCpu - decayedTaskCpu;
        return requests > 0 && decayedRequests > 0 ? requests / decayedRequests : cpuPerRequestNanos;
    }

    public String name() {
        return name;
    }

    public int index() {
        return index;
    }

    /** Requests between filter entry and completion. */
    public int inflight() {
        return inflight;
    }

    /**
     * Permits held against the class's {@code max-concurrency}: requests it admitted not yet completed (one that moved
     * to another class after its admission still counts here). Back at zero once they have all ended, or a permit
     * leaked.
     */
    public int permits() {
        return permits;
    }

    /** Requests admitted and not parked, and tasks of the class's requests started and not parked. */
    public int running() {
        return running;
    }

    /** Requests queued for admission or parked at a yield point, and tasks waiting to start or parked. */
    public int waiting() {
        return waitingAdmission + waitingYield;
    }

    public int waitingAdmission() {
        return waitingAdmission;
    }

    public long balanceNanos() {
        return balance;
    }

    public long yieldPoints() {
        return yieldPoints.sum();
    }

    /** Parks at admission ({@code where} 0) or at yield points (1). */
    public long parks(int where) {
        return parks[where].sum();
    }

    public long parkedNanos(int where) {
        return parkedNanos[where].sum();
    }

    /** Rejections for a reason index of {@link Scheduler#REJECT_REASONS}. */
    public long rejections(int reason) {
        return rejections[reason].sum();
    }

    /**
     * Times a request of the class held a run slot blocked in a call, and the slot went to another request meanwhile.
     */
    public long slotsLent() {
        return slotsLent.sum();
    }

    /** Times a request of the class gave its run slot to another request for a call it declared blocking. */
    public long slotsLentDeclared() {
        return slotsLentDeclared.sum();
    }

    /**
     * Times a request of the class yielded its CPU while a free run slot was held from it for a cheaper class:
     * {@code others} 0, other threads ran in the yield (the hold went on); 1, none did (the hold ended).
     */
    public long holdYields(int others) {
        return holdYields[others].sum();
    }

    /** The time requests of the class spent in those yields, ns. */
    public long holdYieldNanos() {
        return holdYieldNanos.sum();
    }

    /**
     * Requests that moved into this class while in flight: their route's class changed ({@link Scheduler#reclassify}).
     */
    public long movedIn() {
        return movedIn.sum();
    }

    /** Collector pause time charged to the class (ns; {@code share.charge-gc}). */
    public long gcNanos() {
        return gcNanos.sum();
    }

    /** Bytes the class's requests allocated, as measured so far (a sample counted for the requests it stands for). */
    public long allocatedBytes() {
        return allocatedBytes;
    }

    /** Actual CPU time of the class's requests (ns), as measured so far. */
    public long cpuNanos() {
        return cpuNanos.sum();
    }
}
