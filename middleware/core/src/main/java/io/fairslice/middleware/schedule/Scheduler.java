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
 * <p><b>The share policy.</b> Each class has a CPU balance (ns). When a class uses CPU {@code x} (measured on the
 * request's own thread clock, or reserved up front on admission from the route's expected cost), its balance drops
 * by {@code x} and every active class, itself included, is credited {@code x} times its share among the active
 * classes: balances of competing classes sum to zero, a class below zero has used more than its share. A request may
 * start, or continue at a yield point after a burst of at least {@code share.quantum} CPU, when its class's balance is
 * not negative, or no other class is active, or CPU capacity is going unused ({@link Clock#cpuIdle()}) while fewer
 * requests run than there are CPUs (work-conserving).
 * Otherwise it parks ({@link LockSupport#parkNanos}) until the dispatcher grants it (on every completion and charge,
 * in order of balance) or its bound passes: {@code share.max-park} at a yield point (then it runs anyway: no
 * starvation), the class's queue timeout at admission (then 503).
 *
 * <p>Reserving the expected cost on admission is what keeps the number of runnable heavy threads small even when the
 * application has no yield points inside: after one heavy request is admitted its class is in debt until lighter
 * classes have used their share, so the next one waits parked, off the run queue.
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
    private static final long BALANCE_LIMIT_PER_CPU = 2_000_000_000L;

    final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final ClassState[] classes;
    private final int[] order;
    private volatile FairsliceConfig config;
    private volatile boolean[] sleepy;
    private int totalRunning;
    private boolean armed;
    private boolean closed;
    private long lastDecayNanos;

    public Scheduler(FairsliceConfig config, Clock clock) {
        this.clock = clock;
        List<RequestClassConfig> cs = config.classes();
        this.classes = new ClassState[cs.size()];
        this.order = new int[cs.size()];
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

    /** A ticket for a request of class {@code classIndex} expected to use {@code expectedCpuNanos} (0: unknown). */
    public Ticket newTicket(int classIndex, long expectedCpuNanos) {
        return new Ticket(this, classes[classIndex], expectedCpuNanos, clock.nanoTime());
    }

    // ---- dispatches ----------------------------------------------------------------------------------------------

    /** The current thread starts (or resumes, async) serving the ticket's request. */
    public void beginDispatch(Ticket t) {
        t.thread = Thread.currentThread();
        t.cpuDispatchStart = clock.threadCpuNanos();
        t.dispatching = true;
        long now = clock.nanoTime();
        t.burstStartCpu = t.cpuDone;
        t.burstStartWall = now;
        t.lastCheckNanos = now;
    }

    /** The current thread stops serving the ticket's request. */
    public void endDispatch(Ticket t) {
        if (t.dispatching) {
            t.cpuDone += clock.threadCpuNanos() - t.cpuDispatchStart;
            t.dispatching = false;
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
            c.inflight++;
            c.lastActiveNanos = now;
            if (closed || cfg.policy() == Policy.OBSERVE
                    || (c.admissionQueue.isEmpty() && capOk(c, cfg) && canRun(c, now, cfg))) {
                grantPermit(t, now, cfg);
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
            updateArmed();
            return QUEUED;
        } finally {
            lock.unlock();
        }
    }

    private static boolean capOk(ClassState c, FairsliceConfig cfg) {
        int cap = cfg.classes().get(c.index).maxConcurrency();
        return cap == 0 || c.permits < cap;
    }

    private void grantPermit(Ticket t, long now, FairsliceConfig cfg) {
        ClassState c = t.cls;
        t.holdsPermit = true;
        c.permits++;
        c.running++;
        totalRunning++;
        long reserve = t.expectedCpuNanos > 0 ? t.expectedCpuNanos
                : c.ewmaCost > 0 ? (long) c.ewmaCost : cfg.shareQuantum().toNanos();
        charge(c, reserve, now, cfg);
        t.charged = reserve;
        t.granted = true;
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
        long quantum = cfg.shareQuantum().toNanos();
        if (now - t.lastCheckNanos < Math.min(quantum, 1_000_000L)) {
            return; // reading the thread's CPU clock costs more than this check: not at every yield point
        }
        t.lastCheckNanos = now;
        long cpu = t.cpuNanos();
        if (cpu - t.burstStartCpu < quantum) {
            return;
        }
        if (!parkAtYield(t, cpu)) {
            return;
        }
        await(t, WHERE_YIELD);
        t.burstStartCpu = t.cpuNanos();
        t.lastCheckNanos = clock.nanoTime();
    }

    /** Settles the ticket's CPU and decides; true when the ticket now waits in the class's yield queue. */
    boolean parkAtYield(Ticket t, long cpu) {
        ClassState c = t.cls;
        lock.lock();
        try {
            long now = clock.nanoTime();
            FairsliceConfig cfg = config;
            settle(t, cpu, now, cfg);
            if (closed || cfg.policy() != Policy.SHARE || canRun(c, now, cfg)) {
                t.burstStartCpu = cpu;
                return false;
            }
            c.running--;
            totalRunning--;
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
            c.running++;
            totalRunning++;
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
            if (t.holdsPermit) {
                t.holdsPermit = false;
                c.permits--;
                c.running--;
                totalRunning--;
            }
            c.inflight--;
            c.lastActiveNanos = now;
            charge(c, cpu - t.charged, now, cfg);
            t.charged = cpu;
            account(c, cpu - t.accounted, now);
            t.accounted = cpu;
            c.yieldPoints.add(t.yieldPoints);
            c.ewmaCost = c.ewmaCost == 0 ? cpu : 0.2 * cpu + 0.8 * c.ewmaCost;
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
                    resume(c.yieldWaiters.poll());
                }
                while (!c.admissionQueue.isEmpty()) {
                    admitFromQueue(c.admissionQueue.poll(), clock.nanoTime(), config);
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

    /** Whether a request of {@code c} may run now under the current policy (caps aside). */
    boolean canRun(ClassState c, long now, FairsliceConfig cfg) {
        if (cfg.policy() != Policy.SHARE) {
            return true;
        }
        if (c.balance >= 0) {
            return true;
        }
        for (ClassState k : classes) {
            if (k != c && active(k, now, cfg)) {
                // over its share while others compete: only unused CPU lets it go on (work-conserving)
                return totalRunning < cfg.cpus() && clock.cpuIdle();
            }
        }
        return true;
    }

    /** Charges {@code x} ns of CPU (negative: a refund) to {@code c}; active classes are credited by share. */
    private void charge(ClassState c, long x, long now, FairsliceConfig cfg) {
        if (x == 0) {
            return;
        }
        double total = 0;
        for (ClassState k : classes) {
            if (k == c || active(k, now, cfg)) {
                total += cfg.classes().get(k.index).share();
            }
        }
        long limit = BALANCE_LIMIT_PER_CPU * cfg.cpus();
        for (ClassState k : classes) {
            if (k == c || active(k, now, cfg)) {
                long b = k.balance + (long) (x * (cfg.classes().get(k.index).share() / total));
                if (k == c) {
                    b -= x;
                }
                k.balance = Math.max(-limit, Math.min(limit, b));
            } else {
                k.balance = 0; // an idle class neither banks credit nor keeps debt
            }
        }
    }

    private void settle(Ticket t, long cpu, long now, FairsliceConfig cfg) {
        if (cpu > t.charged) {
            charge(t.cls, cpu - t.charged, now, cfg);
            t.charged = cpu;
        }
        account(t.cls, cpu - t.accounted, now);
        t.accounted = cpu;
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

    /** Grants every waiter the policy now allows, classes in order of balance (most owed first). */
    private void dispatch(long now) {
        FairsliceConfig cfg = config;
        boolean progress = true;
        while (progress) {
            progress = false;
            sortByBalance();
            for (int i : order) {
                ClassState c = classes[i];
                while (!c.yieldWaiters.isEmpty() && (closed || canRun(c, now, cfg))) {
                    resume(c.yieldWaiters.poll());
                    progress = true;
                }
                while (!c.admissionQueue.isEmpty()
                        && (closed || cfg.policy() == Policy.OBSERVE || (capOk(c, cfg) && canRun(c, now, cfg)))) {
                    admitFromQueue(c.admissionQueue.poll(), now, cfg);
                    progress = true;
                }
            }
        }
    }

    private void resume(Ticket t) {
        ClassState c = t.cls;
        c.waitingYield--;
        t.parkedAtYield = false;
        c.running++;
        totalRunning++;
        t.granted = true;
        LockSupport.unpark(t.thread);
    }

    private void admitFromQueue(Ticket t, long now, FairsliceConfig cfg) {
        t.cls.waitingAdmission--;
        t.queuedForAdmission = false;
        grantPermit(t, now, cfg);
        LockSupport.unpark(t.thread);
    }

    private void sortByBalance() {
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        for (int i = 1; i < order.length; i++) {
            int v = order[i];
            int j = i - 1;
            while (j >= 0 && classes[order[j]].balance < classes[v].balance) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = v;
        }
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
            return totalRunning;
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
