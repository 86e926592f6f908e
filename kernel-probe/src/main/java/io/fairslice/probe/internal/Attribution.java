package io.fairslice.probe.internal;

import io.fairslice.probe.ActuatorException;
import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Attributes each worker thread's scheduler counters to the request class it serves (a thread that runs a task of a
 * request counts as serving its class).
 *
 * <p>Why checkpoints on the thread itself: light requests take well under a millisecond, so a thread changes class
 * thousands of times per sampler interval and no sampler could split its counters between classes. Instead the
 * thread reads its own counters at {@link #enter} and {@link #exit} (Linux: one {@code pread} of schedstat and one
 * {@code getrusage}, about 2 us) and adds the difference since its last checkpoint to the class it was serving. While
 * a thread runs, every run-queue wait before its current dispatch has been credited; the dispatch a request enters in
 * (the thread's wake-up for it) is the request's class's, with that wait. The
 * sampler checkpoints threads that sit in one class for long (idle threads, long requests) so that rates stay
 * current; a per-thread lock orders the two, and the only contention is once per interval. The same lock guards the
 * thread's nice and slice changes, which {@link #close} restores from another thread.
 *
 * <p>Threads are looked up in a map keyed by {@link Thread} rather than a {@link ThreadLocal}, so that a thread's state
 * (its open files, its class, its counters) goes with the web application. The platform probes do keep per-thread
 * scratch in {@code ThreadLocal}s on the container's threads (a thread id, buffers for native calls), but only arrays
 * of primitives under plain {@code ThreadLocal} keys held weakly: no class of the application's, so no class loader.
 */
public final class Attribution {

    /** Receives per-request figures at {@link #exit}. */
    public interface RequestSink {
        void record(int classIndex, long cpuNanos, long voluntarySwitches, long involuntarySwitches);
    }

    public static final int NO_NICE = Integer.MIN_VALUE;
    /** {@code Thread.isVirtual()} on Java 21+, null before: looked up once so that this class stays Java 17. */
    private static final MethodHandle IS_VIRTUAL = lookUpIsVirtual();
    private static final RequestSink NO_SINK = (i, c, v, n) -> { };

    private final KernelProbe probe;
    private final List<String> classNames;
    private final Map<String, Integer> indexByName;
    private final int noneIndex;
    private final ClassTotals[] totals;
    private final int[] niceByClass;
    private final long[] sliceByClass;
    private final Consumer<String> warnings;
    private final Map<Thread, ThreadState> byThread = new ConcurrentHashMap<>();
    /**
     * Threads registered since ended ones were last forgotten: a thread holds two open files until then, and the
     * sampler's pass, which forgets them, can be a minute apart (an executor that starts a thread per task).
     */
    private final AtomicInteger registeredSinceSweep = new AtomicInteger();
    /** Registrations after which ended threads are forgotten without waiting for the sampler. */
    static final int SWEEP_EVERY = 64;
    private final ThreadState untrackable = new ThreadState(null, null, -1, 0);
    private final LongAdder niceFailures = new LongAdder();
    private final LongAdder sliceFailures = new LongAdder();
    private final AtomicBoolean warnedUnknownClass = new AtomicBoolean();
    private final AtomicBoolean warnedUntrackable = new AtomicBoolean();
    private final AtomicBoolean warnedVirtual = new AtomicBoolean();
    private final AtomicBoolean warnedNoSlice = new AtomicBoolean();
    private volatile boolean niceEnabled;
    /** The process's nice (its main thread's, which serves no request), or NO_NICE where unknown. */
    private final int processNice;
    private volatile boolean sliceEnabled;
    private volatile RequestSink sink = NO_SINK;
    private volatile boolean closed;

    /**
     * @param requestClasses the configured classes; the class {@code none} (between requests) is added last
     * @param nice nice per class name (absent: not actuated)
     * @param sliceNanos EEVDF slice per class name (absent: not actuated)
     */
    public Attribution(KernelProbe probe, List<String> requestClasses, String noneName, Map<String, Integer> nice,
            Map<String, Long> sliceNanos, Consumer<String> warnings) {
        this.probe = probe;
        List<String> names = new ArrayList<>(requestClasses);
        names.add(noneName);
        this.classNames = Collections.unmodifiableList(names);
        this.noneIndex = names.size() - 1;
        this.indexByName = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            indexByName.put(names.get(i), i);
        }
        this.totals = new ClassTotals[names.size()];
        this.niceByClass = new int[names.size()];
        this.sliceByClass = new long[names.size()];
        for (int i = 0; i < names.size(); i++) {
            totals[i] = new ClassTotals();
            niceByClass[i] = nice.getOrDefault(names.get(i), NO_NICE);
            sliceByClass[i] = sliceNanos.getOrDefault(names.get(i), 0L);
        }
        this.niceEnabled = !nice.isEmpty();
        this.processNice = niceEnabled ? processNice(probe) : NO_NICE;
        this.sliceEnabled = !sliceNanos.isEmpty();
        this.warnings = warnings;
    }

    private static int processNice(KernelProbe probe) {
        ThreadStats s = new ThreadStats();
        long mainThread = ProcessHandle.current().pid(); // Linux: the main thread's id is the process's
        if (probe.actuator().readScheduling(mainThread, s) && ThreadStats.isSupported(s.nice())) {
            return (int) s.nice();
        }
        return NO_NICE;
    }

    /** Class names by index; the last is the idle class. */
    public List<String> classNames() {
        return classNames;
    }

    public int noneIndex() {
        return noneIndex;
    }

    public ClassTotals totals(int classIndex) {
        return totals[classIndex];
    }

    public void setRequestSink(RequestSink sink) {
        this.sink = sink == null ? NO_SINK : sink;
    }

    /**
     * Threads being tracked (request workers, task executors); a thread whose statistics could not be opened is left
     * alone and not counted (the map keeps a placeholder for it, so that it is tried once).
     */
    public int trackedThreads() {
        int n = 0;
        for (ThreadState st : byThread.values()) {
            if (st != untrackable) {
                n++;
            }
        }
        return n;
    }

    public long niceFailures() {
        return niceFailures.sum();
    }

    public long sliceFailures() {
        return sliceFailures.sum();
    }

    /** The calling thread starts serving a request of {@code requestClass}. */
    public void enter(String requestClass) {
        enter(requestClass, true);
    }

    /**
     * The calling thread (an executor's) starts running a task of a request of {@code requestClass}: its counters go
     * to the class and the class's actuators apply, as for a request, but its {@link #exit} records no request.
     */
    public void enterTask(String requestClass) {
        enter(requestClass, false);
    }

    private void enter(String requestClass, boolean request) {
        if (closed) {
            return;
        }
        Thread current = Thread.currentThread();
        if (isVirtual(current)) {
            return;
        }
        ThreadState st = byThread.get(current);
        if (st == null) {
            st = register(current);
        }
        if (st == untrackable) {
            return;
        }
        int idx = indexOf(requestClass);
        synchronized (st) {
            if (st.closed) {
                return;
            }
            ThreadStats own = st.own;
            if (probe.readCurrentThread(st.handle, own)) {
                checkpoint(st, own, st.classIndex, idx);
                st.requestCpu = own.cpuTimeNanos();
                st.requestVoluntary = own.voluntarySwitches();
                st.requestInvoluntary = own.involuntarySwitches();
                st.requestOpen = request;
            } else {
                st.requestOpen = false;
            }
            st.classIndex = idx;
            applyActuators(st, idx); // under the lock: a close() now waits, then restores what this set
        }
    }

    /**
     * The calling thread's request belongs to {@code requestClass} from now on: what the thread used so far stays
     * with its old class, what it uses from here goes to the new one, the new class's actuators replace the old's.
     * The request stays one request: its exit records it, all of it, under the new class.
     */
    public void move(String requestClass) {
        ThreadState st = closed ? null : tracked();
        if (st == null) {
            return;
        }
        int idx = indexOf(requestClass);
        synchronized (st) {
            if (st.closed) {
                return;
            }
            if (probe.readCurrentThread(st.handle, st.own)) {
                checkpoint(st, st.own, st.classIndex);
            }
            st.classIndex = idx;
            restoreActuators(st);
            applyActuators(st, idx);
        }
    }

    /** The calling thread stops serving the request it entered. */
    public void exit(String requestClass) {
        ThreadState st = tracked();
        if (st == null) {
            return;
        }
        synchronized (st) {
            if (st.closed) {
                return;
            }
            restoreActuators(st);
            int idx = st.classIndex;
            ThreadStats own = st.own;
            if (probe.readCurrentThread(st.handle, own)) {
                checkpoint(st, own, idx);
                if (st.requestOpen && idx != noneIndex) {
                    sink.record(idx, own.cpuTimeNanos() - st.requestCpu,
                            diffOrZero(own.voluntarySwitches(), st.requestVoluntary),
                            diffOrZero(own.involuntarySwitches(), st.requestInvoluntary));
                }
            }
            st.requestOpen = false;
            st.classIndex = noneIndex;
        }
    }

    /** The calling thread's state, if it is tracked (not virtual, and entered a request before); else null. */
    private ThreadState tracked() {
        Thread current = Thread.currentThread();
        if (IS_VIRTUAL != null && isVirtual(current)) {
            return null;
        }
        ThreadState st = byThread.get(current);
        return st == untrackable ? null : st;
    }

    /**
     * The sampler's pass: checkpoints every tracked thread into the class it is serving now, and forgets threads
     * that have exited. Returns the number of threads still tracked.
     */
    public int sample(ThreadStats scratch) {
        for (Map.Entry<Thread, ThreadState> e : byThread.entrySet()) {
            ThreadState st = e.getValue();
            boolean alive = e.getKey().isAlive();
            if (st != untrackable && alive) {
                synchronized (st) {
                    if (!st.closed) {
                        if (st.handle.read(scratch, false)) {
                            checkpoint(st, scratch, st.classIndex);
                        }
                        continue; // a read that failed once is retried next time: the thread's nice or slice, if
                                  // set, is still its exit's to restore
                    }
                }
            }
            if (!alive || st != untrackable) { // an untrackable thread that lives stays, so that it is tried once
                forget(e.getKey(), st);
            }
        }
        return trackedThreads();
    }

    /**
     * Closes and forgets the threads that have ended (their exit recorded what they used; an ended thread's statistics
     * cannot be read), as the sampler's pass does: a registration calls it every {@link #SWEEP_EVERY} threads.
     */
    private void forgetEnded() {
        for (Map.Entry<Thread, ThreadState> e : byThread.entrySet()) {
            if (!e.getKey().isAlive()) {
                forget(e.getKey(), e.getValue());
            }
        }
    }

    /** Closes a thread's files (under its lock, as its own reads and exit take it) and forgets it. */
    private void forget(Thread thread, ThreadState st) {
        if (st != untrackable) {
            synchronized (st) {
                st.close();
            }
        }
        byThread.remove(thread, st);
    }

    /**
     * Stops tracking: gives every thread serving a request now its own nice and slice back (the container's threads
     * outlive the application; by thread id, from this thread), and closes every handle. Later enters and exits do
     * nothing. A thread that is applying its class's nice or slice at this moment finishes first (both hold the
     * thread's lock), so what it set is restored here: its own exit will find it gone.
     */
    public void close() {
        closed = true;
        for (ThreadState st : byThread.values()) {
            synchronized (st) {
                if (st != untrackable && !st.closed) {
                    restoreActuators(st);
                }
                st.close();
            }
        }
        byThread.clear();
    }

    /**
     * Virtual threads are not attributed: they move between carrier OS threads, so an OS thread's counters are not
     * theirs. (A carrier's own counters would be, but the middleware does not call us on carriers.)
     */
    private boolean isVirtual(Thread t) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            boolean virtual = (boolean) IS_VIRTUAL.invokeExact(t);
            if (virtual && warnedVirtual.compareAndSet(false, true)) {
                warnings.accept("fairslice kernel probe: requests on virtual threads are not attributed to classes "
                        + "(a virtual thread has no OS thread of its own)");
            }
            return virtual;
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle lookUpIsVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }

    private ThreadState register(Thread current) {
        ThreadHandle handle = probe.openCurrentThread();
        if (handle == null) {
            if (warnedUntrackable.compareAndSet(false, true)) {
                warnings.accept("fairslice kernel probe: cannot open the scheduler statistics of thread '"
                        + current.getName() + "'; threads like it are not tracked");
            }
            byThread.put(current, untrackable);
            return untrackable;
        }
        ThreadState st = new ThreadState(current, handle, handle.tid(), noneIndex);
        try {
            if (probe.readCurrentThread(handle, st.own)) {
                checkpoint(st, st.own, noneIndex); // sets the baseline only: history before tracking is nobody's
            }
            undoInherited(st);
        } catch (RuntimeException | Error e) { // the listener disables the probe: its files must not stay open
            handle.close();
            throw e;
        }
        byThread.put(current, st);
        if (registeredSinceSweep.incrementAndGet() >= SWEEP_EVERY) {
            registeredSinceSweep.set(0);
            forgetEnded();
        }
        if (closed) { // close() ran while this thread registered: its map was cleared before this entry came
            byThread.remove(current, st);
            synchronized (st) {
                st.close();
            }
        }
        return st;
    }

    /**
     * A thread created by one that served a class with a nice or a slice (an executor's thread that a heavy request's
     * submit created, a container thread created in an async dispatch) inherits them: Linux copies a thread's nice and
     * its EEVDF slice to the threads it creates. As the probe first sees such a thread, a nice that is a class's goes
     * back to the process's (its main thread's) and a slice that is a class's to the kernel's default; otherwise the
     * thread would keep them for everything it runs that sets none (a light request on it, the executor's next task).
     * A nice or slice that no class sets (the operator's) stays, and so does the nice when the process's own is a
     * class's (nothing then tells an inherited nice from the process's).
     */
    private void undoInherited(ThreadState st) {
        boolean nice = niceEnabled && processNice != NO_NICE && !isClassNice(processNice);
        boolean slice = sliceEnabled;
        if (!nice && !slice) {
            return;
        }
        ThreadActuator actuator = probe.actuator();
        if (!actuator.readScheduling(st.tid, st.scheduling)) {
            return;
        }
        long n = st.scheduling.nice();
        if (nice && ThreadStats.isSupported(n) && isClassNice(n)) {
            try {
                actuator.setNice(st.tid, processNice);
            } catch (ActuatorException e) {
                niceFailed(e);
            }
        }
        long sliceNanos = st.scheduling.sliceNanos();
        if (slice && ThreadStats.isSupported(sliceNanos) && isClassSlice(sliceNanos)) {
            try {
                actuator.setSlice(st.tid, 0); // 0: the kernel's default slice
            } catch (ActuatorException e) {
                sliceFailed(e);
            }
        }
    }

    private boolean isClassNice(long nice) {
        for (int classNice : niceByClass) {
            if (classNice != NO_NICE && classNice == nice) {
                return true;
            }
        }
        return false;
    }

    private boolean isClassSlice(long sliceNanos) {
        for (long classSlice : sliceByClass) {
            if (classSlice > 0 && classSlice == sliceNanos) {
                return true;
            }
        }
        return false;
    }

    private int indexOf(String requestClass) {
        Integer idx = requestClass == null ? null : indexByName.get(requestClass);
        if (idx == null) {
            if (warnedUnknownClass.compareAndSet(false, true)) {
                warnings.accept("fairslice kernel probe: request class '" + requestClass + "' is not one of "
                        + classNames + "; its threads count as '" + classNames.get(noneIndex) + "'");
            }
            return noneIndex;
        }
        return idx;
    }

    /**
     * Adds the growth of each counter since the thread's last checkpoint to {@code classIndex}. A counter this
     * reading lacks keeps its previous baseline (Windows: the thread's own reading has no switch count, the
     * sampler's has), so its growth goes to the class in effect when it is next read.
     */
    private void checkpoint(ThreadState st, ThreadStats now, int classIndex) {
        checkpoint(st, now, classIndex, classIndex);
    }

    /**
     * As {@link #checkpoint(ThreadState, ThreadStats, int)}, at an {@link #enter} into {@code entering}: the dispatch
     * the thread is in, if it began since the last checkpoint, is the entered class's, with the run-queue wait before
     * it and its run. The kernel counts a dispatch and its wait as the thread is switched in, before the request
     * reaches enter (a worker woken for it, or let in from the admission queue): counted with the class the thread
     * served before (none, between requests), a light request that ended in the dispatch it started in added its CPU
     * to light but neither a dispatch nor a wait, and light's effective slice read 2.2 ms for requests of 0.2 ms. With
     * one dispatch since the last checkpoint (a worker parked between requests) all of that growth goes to the
     * entered class; with more, a share of run and wait per dispatch. Context switches are counted as the thread is
     * switched out, so they stay with the class it served then.
     */
    private void checkpoint(ThreadState st, ThreadStats now, int classIndex, int entering) {
        ClassTotals t = totals[classIndex];
        long dispatches = growth(st.lastDispatches, now.dispatches(), st.hasLast);
        long run = growth(st.lastRun, now.cpuTimeNanos(), st.hasLast);
        long wait = growth(st.lastWait, now.runQueueWaitNanos(), st.hasLast);
        if (entering != classIndex && dispatches > 0) { // the entered dispatch: its share of run and wait
            ClassTotals e = totals[entering];
            long enteredRun = run / dispatches;
            long enteredWait = wait / dispatches;
            e.dispatches.increment();
            e.runNanos.add(enteredRun);
            e.waitNanos.add(enteredWait);
            dispatches--;
            run -= enteredRun;
            wait -= enteredWait;
        }
        t.dispatches.add(dispatches);
        t.runNanos.add(run);
        t.waitNanos.add(wait);
        st.lastRun = baseline(st.lastRun, now.cpuTimeNanos(), st.hasLast, false);
        st.lastWait = baseline(st.lastWait, now.runQueueWaitNanos(), st.hasLast, false);
        // Windows' ContextSwitches is 32 bits
        st.lastDispatches = baseline(st.lastDispatches, now.dispatches(), st.hasLast, true);
        st.lastVoluntary = advance(st.lastVoluntary, now.voluntarySwitches(), t.voluntary, st.hasLast, false);
        st.lastInvoluntary = advance(st.lastInvoluntary, now.involuntarySwitches(), t.involuntary, st.hasLast,
                false);
        st.hasLast = true;
    }

    /**
     * The new baseline of a counter after adding its growth to {@code total}. A reading lower than the baseline is
     * older than it (FreeBSD's and Windows' sampler read a snapshot up to an interval old while the owner reads live),
     * also a young thread's snapshot at 0 against its own one tick: moving the baseline back would count the
     * difference twice. Only a {@code thirtyTwoBit} counter in the upper half of its range that fell by half or more
     * has wrapped: it starts from its new value.
     */
    private static long advance(long last, long now, LongAdder total, boolean hasLast, boolean thirtyTwoBit) {
        long g = growth(last, now, hasLast);
        if (g > 0) {
            total.add(g);
        }
        return baseline(last, now, hasLast, thirtyTwoBit);
    }

    /** What {@link #advance} adds to the total: the counter's growth since its baseline, 0 when it did not grow. */
    private static long growth(long last, long now, boolean hasLast) {
        return hasLast && ThreadStats.isSupported(now) && ThreadStats.isSupported(last) && now > last ? now - last : 0;
    }

    /** The baseline {@link #advance} leaves. */
    private static long baseline(long last, long now, boolean hasLast, boolean thirtyTwoBit) {
        if (!ThreadStats.isSupported(now)) {
            return last;
        }
        if (hasLast && ThreadStats.isSupported(last) && now <= last
                && !(thirtyTwoBit && last >= 1L << 31 && now < last / 2)) {
            return last;
        }
        return now;
    }

    private static long diffOrZero(long now, long before) {
        if (!ThreadStats.isSupported(now) || !ThreadStats.isSupported(before) || now < before) {
            return 0;
        }
        return now - before;
    }

    private void applyActuators(ThreadState st, int idx) {
        int nice = niceByClass[idx];
        long slice = sliceByClass[idx];
        boolean wantNice = nice != NO_NICE && niceEnabled;
        boolean wantSlice = slice > 0 && sliceEnabled;
        if (st.niceApplied || st.sliceApplied) {
            // an enter without its exit: do not stack changes, nor run a class without actuators at the last one's
            restoreActuators(st);
        }
        if (!wantNice && !wantSlice) {
            return;
        }
        ThreadActuator actuator = probe.actuator();
        // the slice first and the nice last, and back the other way: this thread holds its lock meanwhile, and
        // at the class's nice (say 10) it may wait long for the core while the sampler or a close() waits for it
        if (wantSlice) {
            try {
                st.sliceApplied = actuator.setSlice(st.tid, slice);
                if (!st.sliceApplied && warnedNoSlice.compareAndSet(false, true)) {
                    warnings.accept("fairslice kernel probe: thread " + st.tid + " runs under a"
                            + " real-time or idle policy, which has no EEVDF slice: its requests keep its policy (said"
                            + " once; the slice actuator stays on for the other threads)");
                }
            } catch (ActuatorException e) {
                sliceFailed(e);
            }
        }
        if (wantNice) {
            if (actuator.readScheduling(st.tid, st.scheduling) && ThreadStats.isSupported(st.scheduling.nice())) {
                st.savedNice = (int) st.scheduling.nice();
                try {
                    actuator.setNice(st.tid, nice);
                    st.niceApplied = true;
                } catch (ActuatorException e) {
                    niceFailed(e);
                }
            } else { // without the nice it has, it could not be given back: not set, and said like a failed set
                niceFailed(new ActuatorException("reading the nice of thread " + st.tid, 0,
                        "no nice to restore after the request, so none is set"));
            }
        }
    }

    private void restoreActuators(ThreadState st) {
        if (!st.niceApplied && !st.sliceApplied) {
            return;
        }
        ThreadActuator actuator = probe.actuator();
        if (st.niceApplied) {
            st.niceApplied = false;
            try {
                actuator.setNice(st.tid, st.savedNice);
            } catch (ActuatorException e) {
                niceFailed(e);
            }
        }
        if (st.sliceApplied) {
            st.sliceApplied = false;
            try {
                actuator.setSlice(st.tid, 0); // 0: back to the kernel's default slice
            } catch (ActuatorException e) {
                sliceFailed(e);
            }
        }
    }

    private void niceFailed(ActuatorException e) {
        niceFailures.increment();
        if (niceEnabled) {
            niceEnabled = false;
            warnings.accept("fairslice kernel probe: the nice actuator failed and is now off: " + e.getMessage());
        }
    }

    private void sliceFailed(ActuatorException e) {
        sliceFailures.increment();
        if (sliceEnabled) {
            sliceEnabled = false;
            warnings.accept("fairslice kernel probe: the slice actuator failed and is now off: " + e.getMessage());
        }
    }

    /** One tracked worker thread; fields other than {@link #classIndex} are guarded by the instance's lock. */
    static final class ThreadState {
        final Thread thread;
        final ThreadHandle handle;
        final long tid;
        final ThreadStats own = new ThreadStats();
        final ThreadStats scheduling = new ThreadStats();
        volatile int classIndex;
        boolean hasLast;
        long lastRun = ThreadStats.UNSUPPORTED;
        long lastWait = ThreadStats.UNSUPPORTED;
        long lastDispatches = ThreadStats.UNSUPPORTED;
        long lastVoluntary = ThreadStats.UNSUPPORTED;
        long lastInvoluntary = ThreadStats.UNSUPPORTED;
        boolean requestOpen;
        long requestCpu;
        long requestVoluntary;
        long requestInvoluntary;
        // actuator state: set by the owner thread, restored by it or by close(), always under the lock
        boolean niceApplied;
        boolean sliceApplied;
        int savedNice;
        boolean closed;

        ThreadState(Thread thread, ThreadHandle handle, long tid, int classIndex) {
            this.thread = thread;
            this.handle = handle;
            this.tid = tid;
            this.classIndex = classIndex;
        }

        void close() {
            if (!closed) {
                closed = true;
                if (handle != null) {
                    handle.close();
                }
            }
        }
    }
}
