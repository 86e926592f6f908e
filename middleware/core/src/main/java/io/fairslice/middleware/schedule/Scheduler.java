package io.fairslice.middleware.schedule;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.Policy;
import io.fairslice.middleware.RequestClassConfig;
import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.metrics.MeterNames;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Decides who runs: admission of requests into the application (class caps, bounded wait queues, share gating)
 * and parking at yield points. One per web application.
 *
 * <p><b>The share policy</b> is weighted fair queueing of <em>run slots</em>. While two or more classes have requests
 * in flight, at most {@code share.cpus} requests run at once (default: the JVM's available processors, so the OS
 * sees no more runnable request threads than it has CPUs and its timeslice no longer decides who suffers). Every
 * class has a virtual time: the wall time its requests held a run slot, divided by its share weight. A free slot goes
 * to the waiting class with the lowest virtual time (within a class: requests parked at a yield point first, then the
 * admission queue in arrival order). A running request that reaches a yield point after holding its slot for
 * {@code share.quantum} gives the slot up, and parks, when another class waits with a lower virtual time.
 * Charging held wall time rather than the thread's CPU clock makes the cost the class really caused count: the
 * garbage collector's pauses, and the container's work on the same CPU, fall in the holder's time.
 *
 * <p>Work-conserving: a class alone (no other class in flight, nor within {@code share.linger}) is never held back,
 * and when CPU capacity goes unused ({@link Clock#cpuIdle(int)}: slot holders blocked on I/O, say) one more request is
 * let in per idle sample. No starvation: a class that waits has the lowest virtual time after the others have run
 * their share; a park at a yield point ends after {@code share.max-park} at the latest (the request then runs anyway);
 * a class cannot bank more than {@link #LAG_LIMIT_NANOS} of run time while it wants less than its share. Waiting at
 * admission ends with a 503 after the class's queue timeout.
 *
 * <p>Thread safety: the slow paths take one lock; the yield point's fast path (not armed) never reaches this class.
 */
public final class Scheduler {

    /** Rejection reasons, indexed as the results of {@link #admit}. */
    public static final List<String> REJECT_REASONS = MeterNames.REASONS;
    public static final int ADMITTED = -1;
    /** How often a yield point should read the clock, at most (ns of the request's run between reads). */
    static final long CLOCK_READ_INTERVAL = 20_000;
    static final int MAX_CLOCK_STRIDE = 1 << 16;
    public static final int REJECTED_QUEUE_FULL = 0;
    public static final int REJECTED_QUEUE_TIMEOUT = 1;
    public static final int REJECTED_INTERRUPTED = 2;
    static final int QUEUED = -2;
    public static final int WHERE_ADMISSION = 0;
    public static final int WHERE_YIELD = 1;

    /** Waiters re-check on their own at least this often, in case no event wakes them (idle periods). */
    private static final long RECHECK_NANOS = 50_000_000L;
    private static final double SHARE_DECAY_NANOS = 2e9;
    /** Run time per slot a class can be owed at most: what it may bank while it wants less than its share. */
    static final long LAG_LIMIT_NANOS = 100_000_000L;
    /** At most one request beyond the run slots per this interval while CPU capacity goes unused. */
    private static final long IDLE_GRANT_INTERVAL_NANOS = 20_000_000L;

    final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final ClassState[] classes;
    private volatile FairsliceConfig config;
    private volatile boolean[] sleepy;
    /** Tickets holding a run slot. */
    private final List<Ticket> holders = new ArrayList<>();
    private boolean armed;
    private boolean closed;
    private long lastDecayNanos;
    private long lastIdleGrantNanos = Long.MIN_VALUE / 2;

    public Scheduler(FairsliceConfig config, Clock clock) {
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

    /** Swaps the configuration (same classes); waiters are re-evaluated at once. */
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
            dispatch(now);
            updateArmed();
        } finally {
            lock.unlock();
        }
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
        if (t.cpuWeight > 0) {
            t.cpuDispatchStart = clock.threadCpuNanos();
        }
        t.dispatching = true;
        long now = clock.nanoTime();
        t.burstStartWall = now;
        if (t.holdsPermit) {
            lock.lock();
            try {
                if (!t.holdsSlot && !t.completed) {
                    takeSlot(t, clock.nanoTime());
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** The current thread stops serving the ticket's request. */
    public void endDispatch(Ticket t) {
        if (t.dispatching) {
            if (t.cpuWeight > 0) {
                t.cpuDone += clock.threadCpuNanos() - t.cpuDispatchStart;
            }
            t.dispatching = false;
        }
    }

    /**
     * The request continues asynchronously after this dispatch: it keeps its permit (class caps) until it completes,
     * but gives up its run slot, since no thread runs it while it waits.
     */
    public void detach(Ticket t) {
        lock.lock();
        try {
            if (t.holdsSlot && !t.completed) {
                long now = clock.nanoTime();
                releaseSlot(t, now, config);
                dispatch(now);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- admission -----------------------------------------------------------------------------------------------

    /**
     * Admits the request, parking until the policy lets it start. Returns {@link #ADMITTED} or a rejection reason
     * ({@link #REJECTED_QUEUE_FULL}, {@link #REJECTED_QUEUE_TIMEOUT}, {@link #REJECTED_INTERRUPTED}); a rejected
     * ticket is finished (no {@link #complete} needed).
     */
    public int admit(Ticket t) {
        int r = tryAdmit(t);
        if (r != QUEUED) {
            return r;
        }
        return await(t, WHERE_ADMISSION) ? ADMITTED : t.rejection;
    }

    /** Non-blocking part of {@link #admit}: ADMITTED, QUEUED (then call await) or a rejection reason. */
    int tryAdmit(Ticket t) {
        ClassState c = t.cls;
        lock.lock();
        try {
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            if (!active(c, now, cfg)) {
                catchUp(c, now, cfg);
            }
            if (!armed && cfg.policy() == Policy.SHARE) {
                // competition may start now: what the slot holders ran alone is nobody's debt, and their yield
                // points (disarmed until now) have not been checked, so they are not overrunning either
                for (Ticket h : holders) {
                    h.slotSince = now;
                }
            }
            c.inflight++;
            c.lastActiveNanos = now;
            if (closed || cfg.policy() == Policy.OBSERVE
                    || (c.admissionQueue.isEmpty() && capOk(c, cfg) && mayStart(c, now, cfg))) {
                grantPermit(t, now);
                updateArmed();
                return ADMITTED;
            }
            RequestClassConfig cc = cfg.classes().get(c.index);
            if (c.admissionQueue.size() >= cc.queueSize()) {
                c.inflight--;
                c.rejections[REJECTED_QUEUE_FULL].increment();
                return REJECTED_QUEUE_FULL;
            }
            t.thread = Thread.currentThread();
            t.granted = false;
            t.queuedForAdmission = true;
            t.deadlineNanos = now + cc.queueTimeout().toNanos();
            c.admissionQueue.add(t);
            c.waitingAdmission++;
            dispatch(now); // a free slot that a more-owed class holds back from this one goes to that class now
            updateArmed();
            return t.granted ? ADMITTED : QUEUED;
        } finally {
            lock.unlock();
        }
    }

    private static boolean capOk(ClassState c, FairsliceConfig cfg) {
        int cap = cfg.classes().get(c.index).maxConcurrency();
        return cap == 0 || c.permits < cap;
    }

    private void grantPermit(Ticket t, long now) {
        t.holdsPermit = true;
        t.cls.permits++;
        takeSlot(t, now);
        t.granted = true;
    }

    private void takeSlot(Ticket t, long now) {
        t.holdsSlot = true;
        t.slotSince = now;
        t.cls.running++;
        holders.add(t);
    }

    /** Gives up the ticket's run slot and charges the class for the time it held it. */
    private void releaseSlot(Ticket t, long now, FairsliceConfig cfg) {
        t.holdsSlot = false;
        t.cls.running--;
        holders.remove(t);
        charge(t.cls, now - t.slotSince, now, cfg);
    }

    // ---- yield points --------------------------------------------------------------------------------------------

    /** The slow path of a yield point (the scheduler is armed). May park the calling thread for a bounded time. */
    public void yieldPoint(Ticket t) {
        t.yieldPoints++;
        if (!t.dispatching || !t.holdsPermit) {
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
        if (--t.clockCountdown > 0) {
            return;
        }
        long now = clock.nanoTime();
        long sinceRead = now - t.lastClockRead;
        t.lastClockRead = now;
        if (sinceRead < CLOCK_READ_INTERVAL / 2) {
            t.clockStride = Math.min(t.clockStride << 1, MAX_CLOCK_STRIDE);
        } else if (sinceRead > CLOCK_READ_INTERVAL * 2) {
            t.clockStride = Math.max(t.clockStride >> 1, 1);
        }
        t.clockCountdown = t.clockStride;
        if (policy == Policy.SLEEP) {
            if (sleepy[t.cls.index] && now - t.burstStartWall >= cfg.sleepQuantum().toNanos()) {
                sleep(t, cfg.sleepDuration().toNanos());
            }
            return;
        }
        if (now - t.burstStartWall < cfg.shareQuantum().toNanos()) {
            return;
        }
        if (parkAtYield(t)) {
            await(t, WHERE_YIELD);
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
            if (!t.holdsSlot || closed || cfg.policy() != Policy.SHARE) {
                return false;
            }
            charge(c, now - t.slotSince, now, cfg);
            t.slotSince = now;
            ClassState rival = mostOwedWaiter(now, cfg);
            if (rival == null || rival == c || rival.vtime >= c.vtime) {
                return false;
            }
            releaseSlot(t, now, cfg); // charges nothing more: slotSince is now
            c.waitingYield++;
            t.parkedAtYield = true;
            t.granted = false;
            t.thread = Thread.currentThread();
            t.deadlineNanos = now + cfg.shareMaxPark().toNanos();
            c.yieldWaiters.add(t);
            dispatch(now);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void sleep(Ticket t, long nanos) {
        long start = System.nanoTime();
        long left = nanos;
        while (left > 0) {
            LockSupport.parkNanos(this, left);
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            left = nanos - (System.nanoTime() - start);
        }
        t.cls.parks[WHERE_YIELD].increment();
        t.cls.parkedNanos[WHERE_YIELD].add(System.nanoTime() - start);
        t.burstStartWall = clock.nanoTime();
    }

    /** Parks until granted or the ticket's deadline; false when admission was refused (reason in the ticket). */
    private boolean await(Ticket t, int where) {
        long started = System.nanoTime();
        boolean interrupted = false;
        boolean ok = true;
        try {
            while (!t.granted) {
                long left = t.deadlineNanos - clock.nanoTime();
                if (left > 0 && !interrupted) {
                    LockSupport.parkNanos(this, Math.min(left, RECHECK_NANOS));
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                }
                lock.lock();
                try {
                    if (t.granted) {
                        break;
                    }
                    long now = clock.nanoTime();
                    if (interrupted || now >= t.deadlineNanos) {
                        ok = giveUp(t, where, interrupted, now);
                        break;
                    }
                    dispatch(now);
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        t.cls.parks[where].increment();
        t.cls.parkedNanos[where].add(System.nanoTime() - started);
        return ok;
    }

    /** Under the lock: the wait's bound passed. At a yield point the request runs anyway; at admission, 503. */
    private boolean giveUp(Ticket t, int where, boolean interrupted, long now) {
        ClassState c = t.cls;
        if (where == WHERE_YIELD) {
            c.yieldWaiters.remove(t);
            c.waitingYield--;
            t.parkedAtYield = false;
            takeSlot(t, now); // beyond the run slots if need be: a park is bounded
            t.granted = true;
            return true;
        }
        c.admissionQueue.remove(t);
        c.waitingAdmission--;
        t.queuedForAdmission = false;
        c.inflight--;
        if (c.inflight == 0) {
            c.lastActiveNanos = now;
        }
        t.rejection = interrupted ? REJECTED_INTERRUPTED : REJECTED_QUEUE_TIMEOUT;
        c.rejections[t.rejection].increment();
        dispatch(now);
        updateArmed();
        return false;
    }

    // ---- completion ----------------------------------------------------------------------------------------------

    /** The request is finished (its async cycle too): releases its permit and settles its CPU. */
    public void complete(Ticket t) {
        ClassState c = t.cls;
        long cpu = t.cpuNanos();
        lock.lock();
        try {
            if (t.completed) {
                return;
            }
            t.completed = true;
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            if (t.holdsSlot) {
                releaseSlot(t, now, cfg);
            }
            if (t.holdsPermit) {
                t.holdsPermit = false;
                c.permits--;
            }
            c.inflight--;
            c.lastActiveNanos = now;
            settleCpu(t, cpu, now);
            c.yieldPoints.add(t.yieldPoints);
            if (c.lastCompletionNanos != 0) {
                double interval = now - c.lastCompletionNanos;
                c.drainIntervalNanos = c.drainIntervalNanos == 0 ? interval : 0.1 * interval + 0.9 * c.drainIntervalNanos;
            }
            c.lastCompletionNanos = now;
            dispatch(now);
            updateArmed();
        } finally {
            lock.unlock();
        }
    }

    /** Retry-After for a rejected request of the class: the time to drain its queue at the measured rate. */
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

    /** Releases every waiter and disarms; later requests pass straight through. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (ClassState c : classes) {
                while (!c.yieldWaiters.isEmpty()) {
                    resume(c.yieldWaiters.poll(), clock.nanoTime());
                }
                while (!c.admissionQueue.isEmpty()) {
                    admitFromQueue(c.admissionQueue.poll(), clock.nanoTime());
                }
            }
            if (armed) {
                armed = false;
                YieldGate.disarm();
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- decisions (under the lock) ------------------------------------------------------------------------------

    private boolean active(ClassState c, long now, FairsliceConfig cfg) {
        return c.inflight > 0 || now - c.lastActiveNanos < cfg.shareLinger().toNanos();
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

    /** Whether a new request of {@code c} may start at once under the current policy (caps aside). */
    boolean mayStart(ClassState c, long now, FairsliceConfig cfg) {
        if (cfg.policy() != Policy.SHARE || !competing(c, now, cfg)) {
            return true;
        }
        if (slotsTaken(now, cfg) < cfg.cpus()) {
            ClassState rival = mostOwedWaiter(now, cfg);
            return rival == null || rival.vtime >= c.vtime;
        }
        return idleGrant(now);
    }

    /**
     * Run slots taken: holders that reached a yield point (or started) within {@code share.max-park}. A request that
     * reaches none for that long (unwoven code, a blocking call) keeps running but no longer keeps others out: the
     * OS shares the CPU between it and the next, as it would without fairslice.
     */
    private int slotsTaken(long now, FairsliceConfig cfg) {
        long bound = cfg.shareMaxPark().toNanos();
        int taken = 0;
        for (Ticket t : holders) {
            if (now - t.slotSince <= bound) {
                taken++;
            }
        }
        return taken;
    }

    /** One request beyond the run slots per idle sample while CPU capacity goes unused (work-conserving). */
    private boolean idleGrant(long now) {
        if (now - lastIdleGrantNanos < IDLE_GRANT_INTERVAL_NANOS || !clock.cpuIdle(config.cpus())) {
            return false;
        }
        lastIdleGrantNanos = now;
        return true;
    }

    /** The class with the lowest virtual time among those with a request that could be granted now, or null. */
    private ClassState mostOwedWaiter(long now, FairsliceConfig cfg) {
        ClassState best = null;
        for (ClassState k : classes) {
            boolean grantable = !k.yieldWaiters.isEmpty() || (!k.admissionQueue.isEmpty()
                    && (closed || cfg.policy() == Policy.OBSERVE || capOk(k, cfg)));
            if (grantable && (best == null || k.vtime < best.vtime)) {
                best = k;
            }
        }
        return best;
    }

    /** A class that becomes active starts level with the most-owed active class: idle time banks no credit. */
    private void catchUp(ClassState c, long now, FairsliceConfig cfg) {
        double min = Double.NaN;
        for (ClassState k : classes) {
            if (k != c && active(k, now, cfg) && !(k.vtime >= min)) {
                min = k.vtime;
            }
        }
        if (!Double.isNaN(min) && c.vtime < min) {
            c.vtime = min;
        }
    }

    /**
     * Charges {@code runNanos} of held run-slot time to {@code c}: its virtual time advances by the time over its
     * share weight. Active classes are kept within {@link #LAG_LIMIT_NANOS} per slot of the leader, and their
     * balances (for metrics) are recomputed.
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
        double lag = LAG_LIMIT_NANOS * (double) cfg.cpus();
        for (ClassState k : classes) {
            if (k == c || active(k, now, cfg)) {
                int share = cfg.classes().get(k.index).share();
                k.vtime = Math.max(k.vtime, lead - lag / share);
                weights += share;
                weighted += share * k.vtime;
            }
        }
        double mean = weighted / weights;
        for (ClassState k : classes) {
            boolean on = k == c || active(k, now, cfg);
            k.balance = on ? (long) ((mean - k.vtime) * cfg.classes().get(k.index).share()) : 0;
        }
    }

    /** Counts the ticket's CPU since the last count (a sample stands for {@link Ticket#cpuWeight} requests). */
    private void settleCpu(Ticket t, long cpu, long now) {
        if (cpu >= 0) {
            account(t.cls, (cpu - t.accounted) * t.cpuWeight, now);
            t.accounted = cpu;
        }
    }

    /** Actual CPU use, for the share gauge (decayed) and the CPU counter. */
    private void account(ClassState c, long x, long now) {
        if (x <= 0) {
            return;
        }
        double decay = Math.exp(-(now - lastDecayNanos) / SHARE_DECAY_NANOS);
        lastDecayNanos = now;
        for (ClassState k : classes) {
            k.decayedCpu *= decay;
        }
        c.decayedCpu += x;
        c.cpuNanos.add(x);
    }

    /**
     * Grants waiters while the policy allows: under share, free run slots go to the most-owed waiting class, one
     * request at a time (its parked requests first, then its admission queue); otherwise every waiter within its
     * class cap goes.
     */
    private void dispatch(long now) {
        FairsliceConfig cfg = config;
        boolean gated = !closed && cfg.policy() == Policy.SHARE;
        while (true) {
            ClassState k = mostOwedWaiter(now, cfg);
            if (k == null) {
                return;
            }
            if (gated && competing(k, now, cfg) && slotsTaken(now, cfg) >= cfg.cpus() && !idleGrant(now)) {
                return;
            }
            if (!k.yieldWaiters.isEmpty()) {
                resume(k.yieldWaiters.poll(), now);
            } else {
                admitFromQueue(k.admissionQueue.poll(), now);
            }
        }
    }

    private void resume(Ticket t, long now) {
        t.cls.waitingYield--;
        t.parkedAtYield = false;
        takeSlot(t, now);
        t.granted = true;
        LockSupport.unpark(t.thread);
    }

    private void admitFromQueue(Ticket t, long now) {
        t.cls.waitingAdmission--;
        t.queuedForAdmission = false;
        grantPermit(t, now);
        LockSupport.unpark(t.thread);
    }

    /** Arms the global yield gate while this scheduler may want a running request to yield. */
    private void updateArmed() {
        FairsliceConfig cfg = config;
        boolean want = false;
        if (!closed) {
            switch (cfg.policy()) {
                case OBSERVE -> {
                    for (ClassState c : classes) {
                        want |= c.inflight > 0;
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
                        busy += c.inflight > 0 ? 1 : 0;
                    }
                    want = busy >= 2;
                }
            }
        }
        if (want != armed) {
            armed = want;
            if (want) {
                YieldGate.arm();
            } else {
                YieldGate.disarm();
            }
        }
    }

    // ---- views for metrics and JMX -------------------------------------------------------------------------------

    /** The class's part of the CPU used by all requests, decayed over about two seconds (0 when nothing ran). */
    public double cpuShare(int classIndex) {
        double total = 0;
        for (ClassState c : classes) {
            total += c.decayedCpu;
        }
        return total <= 0 ? 0 : classes[classIndex].decayedCpu / total;
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
            lock.unlock();
        }
    }

    /** Requests running now across classes. */
    public int totalRunning() {
        lock.lock();
        try {
            return holders.size();
        } finally {
            lock.unlock();
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
