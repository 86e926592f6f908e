package io.fairslice.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The attribution arithmetic against a scripted probe: exact, platform-independent. */
class AttributionTest {

    /** Counters the test sets; the probe reports them for every thread. */
    static final class ScriptedProbe implements KernelProbe {
        volatile long[] counters = {0, 0, 0, 0, 0};
        volatile boolean ownReadHasSwitches = true;
        volatile boolean canOpen = true;
        /** The load average readSystem reports; NaN: the read fails. */
        volatile double load = Double.NaN;
        /** PSI's stall total and the cgroup's three counters readSystem reports with the load; UNSUPPORTED: none. */
        volatile long systemTotal = ThreadStats.UNSUPPORTED;
        /** The sampler's reads of a thread fail while set (the thread's own reads still work). */
        volatile boolean samplerReadFails;
        /** Thrown by readSystem when set. */
        volatile RuntimeException readSystemFailure;
        /** Thrown by readCurrentThread (the thread's own reading) when set. */
        volatile RuntimeException readCurrentFailure;
        /** Handles opened and not yet closed. */
        final AtomicInteger openHandles = new AtomicInteger();
        /** What the actuator was told ("nice 10", "slice 1000000"); nice and slice supported when set. */
        volatile List<String> actuatorCalls;
        /** The thread runs under a policy without an EEVDF slice (real-time, idle). */
        volatile boolean noSlice;
        /** The nice value and slice of every thread, as the actuator reads and sets them. */
        volatile int nice;
        static final long DEFAULT_SLICE = 3_000_000;
        volatile long slice = DEFAULT_SLICE;
        /** Whether readScheduling can read a thread's policy, nice and slice. */
        volatile boolean schedulingReadable = true;
        /** Run by setNice before it sets the value (a test blocks the thread there). */
        volatile Runnable beforeSetNice = () -> { };

        void set(long run, long wait, long dispatches, long vol, long invol) {
            counters = new long[] {run, wait, dispatches, vol, invol};
        }

        private void fill(ThreadStats into, boolean switches) {
            long[] c = counters;
            into.setCounters(c[0], c[1], c[2], switches ? c[3] : ThreadStats.UNSUPPORTED,
                    switches ? c[4] : ThreadStats.UNSUPPORTED);
        }

        @Override
        public String platform() {
            return "scripted";
        }

        @Override
        public boolean isOperational() {
            return true;
        }

        @Override
        public long currentThreadId() {
            return Thread.currentThread().getId();
        }

        @Override
        public ThreadHandle openThread(long tid) {
            return null;
        }

        @Override
        public ThreadHandle openCurrentThread() {
            if (!canOpen) {
                return null;
            }
            long tid = currentThreadId();
            openHandles.incrementAndGet();
            return new ThreadHandle() {
                private boolean closed;

                @Override
                public long tid() {
                    return tid;
                }

                @Override
                public boolean read(ThreadStats into, boolean scheduling) {
                    if (samplerReadFails) {
                        return false;
                    }
                    fill(into, true);
                    return true;
                }

                @Override
                public void close() {
                    if (!closed) {
                        closed = true;
                        openHandles.decrementAndGet();
                    }
                }
            };
        }

        @Override
        public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
            RuntimeException failure = readCurrentFailure;
            if (failure != null) {
                throw failure;
            }
            fill(into, ownReadHasSwitches);
            return true;
        }

        @Override
        public boolean readSystem(SystemStats into) {
            RuntimeException failure = readSystemFailure;
            if (failure != null) {
                throw failure;
            }
            if (Double.isNaN(load)) {
                return false;
            }
            into.setLoad(load, 3);
            into.setPressure(Double.NaN, systemTotal).setCgroup(systemTotal, systemTotal, systemTotal);
            return true;
        }

        @Override
        public ThreadActuator actuator() {
            List<String> calls = actuatorCalls;
            if (calls == null) {
                return ThreadActuator.NONE;
            }
            return new ThreadActuator() {
                @Override
                public boolean supportsNice() {
                    return true;
                }

                @Override
                public boolean supportsSlice() {
                    return true;
                }

                @Override
                public boolean readScheduling(long tid, ThreadStats into) {
                    if (!schedulingReadable) {
                        return false;
                    }
                    into.setScheduling(SchedPolicy.OTHER, nice, slice);
                    return true;
                }

                @Override
                public void setNice(long tid, int value) {
                    beforeSetNice.run();
                    nice = value;
                    calls.add("nice " + value);
                }

                @Override
                public boolean setSlice(long tid, long sliceNanos) {
                    if (noSlice) {
                        return false;
                    }
                    calls.add("slice " + sliceNanos);
                    slice = sliceNanos == 0 ? DEFAULT_SLICE : sliceNanos;
                    return true;
                }
            };
        }

        @Override
        public void close() {
        }
    }

    private final ScriptedProbe probe = new ScriptedProbe();
    private final List<String> warnings = new ArrayList<>();
    private final List<long[]> requests = new ArrayList<>();
    private final Attribution attribution = new Attribution(probe, List.of("light", "heavy"), "none", Map.of(),
            Map.of(), warnings::add);

    {
        attribution.setRequestSink((cls, cpu, vol, invol) -> requests.add(new long[] {cls, cpu, vol, invol}));
    }

    /** An attribution with these classes' nice values and slices, the probe's actuator calls recorded from here. */
    private Attribution withActuators(Map<String, Integer> nice, Map<String, Long> slice) {
        probe.actuatorCalls = new CopyOnWriteArrayList<>();
        return new Attribution(probe, List.of("light", "heavy"), "none", nice, slice, warnings::add);
    }

    private long[] totals(String cls) {
        ClassTotals t = attribution.totals(attribution.classNames().indexOf(cls));
        return new long[] {t.runNanos.sum(), t.waitNanos.sum(), t.dispatches.sum(), t.voluntary.sum(),
                t.involuntary.sum()};
    }

    /**
     * An executor that starts a thread per task (Spring's SimpleAsyncTaskExecutor, a new Thread per job): each ended
     * thread kept its two open files until the sampler's next pass, up to a minute away; 2 000 such threads held 2 000
     * handles. Ended threads are forgotten as new ones register.
     */
    @Test
    void shouldCloseTheFilesOfEndedThreadsWithoutWaitingForTheSampler() throws Exception {
        for (int i = 0; i < 2_000; i++) {
            Thread task = new Thread(() -> {
                attribution.enterTask("light");
                attribution.exit("light");
            });
            task.start();
            task.join();
        }

        assertThat(probe.openHandles.get()).as("handles open, no sampler pass").isLessThanOrEqualTo(
                Attribution.SWEEP_EVERY);
        assertThat(attribution.trackedThreads()).isLessThanOrEqualTo(Attribution.SWEEP_EVERY);
    }

    @Test
    void shouldAddTheGrowthBetweenEnterAndExitToTheRequestClass() {
        probe.set(100, 10, 1, 0, 0);
        attribution.enter("heavy");
        probe.set(1_100, 60, 3, 1, 2);
        attribution.exit("heavy");

        assertThat(totals("heavy")).containsExactly(1_000, 50, 2, 1, 2);
        assertThat(totals("light")).containsExactly(0, 0, 0, 0, 0);
        assertThat(requests).singleElement().satisfies(r -> assertThat(r).containsExactly(1, 1_000, 1, 2));
    }

    @Test
    void shouldSplitAMovedRequestsCountersAtTheMoveAndRecordItOnceUnderItsNewClass() {
        probe.set(100, 10, 1, 0, 0);
        attribution.enter("light"); // a new page's request starts light
        probe.set(400, 20, 2, 1, 0);
        attribution.move("heavy"); // its page was learnt heavy while it ran
        probe.set(1_400, 70, 5, 1, 3);
        attribution.exit("heavy");

        assertThat(totals("light")).containsExactly(300, 10, 1, 1, 0);
        assertThat(totals("heavy")).containsExactly(1_000, 50, 3, 0, 3);
        assertThat(requests).as("one request, all of it, in the class it ended in").singleElement()
                .satisfies(r -> assertThat(r).containsExactly(1, 1_300, 1, 3));
    }

    /**
     * An executor's thread runs a task of a heavy request (Fairslice.task): its counters are heavy's and heavy's nice
     * applies while it runs, but a task is no request: the per-request summaries do not record it.
     */
    @Test
    void shouldAttributeATasksCountersToItsClassWithoutRecordingARequest() {
        probe.set(100, 10, 1, 0, 0);
        attribution.enterTask("light");
        probe.set(300, 20, 2, 1, 0);
        attribution.move("heavy"); // its request was learnt heavy: the task moved with it
        probe.set(1_300, 70, 4, 1, 2);
        attribution.exit("heavy");

        assertThat(totals("light")).containsExactly(200, 10, 1, 1, 0);
        assertThat(totals("heavy")).containsExactly(1_000, 50, 2, 0, 2);
        assertThat(requests).as("no request recorded").isEmpty();

        Attribution a = withActuators(Map.of("heavy", 10), Map.of());
        a.enterTask("heavy");
        a.exit("heavy");
        assertThat(probe.actuatorCalls).as("the class's nice while the task runs").containsExactly("nice 10", "nice 0");
    }

    /**
     * A thread that a heavy request's thread started (an executor's, created by the request's submit) inherits heavy's
     * nice 10 and slice (Linux copies both to the threads a thread creates): the probe sets them back to the process's
     * nice and the kernel's default slice as it first sees the thread, or every task and light request it runs would
     * keep them. A nice that no class sets is the operator's and stays.
     */
    @Test
    void shouldUndoAClassNiceAndSliceANewThreadInheritedAsItFirstEnters() {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of("heavy", 1_000_000L)); // the process runs at nice 0
        probe.nice = 10; // this thread was created by one serving heavy
        probe.slice = 1_000_000;
        a.enterTask("light");
        a.exit("light");
        assertThat(probe.actuatorCalls).as("back to the process's as it is first seen").containsExactly("nice 0",
                "slice 0");
        a.enterTask("heavy");
        a.exit("heavy");
        assertThat(probe.nice).as("heavy's nice undone after its task").isZero();
        assertThat(probe.slice).isEqualTo(ScriptedProbe.DEFAULT_SLICE);

        probe.actuatorCalls.clear();
        Attribution b = new Attribution(probe, List.of("light", "heavy"), "none", Map.of("heavy", 10), Map.of(),
                warnings::add);
        probe.nice = 5; // the operator's (renice), no class's
        b.enter("light");
        b.exit("light");
        assertThat(probe.actuatorCalls).as("left as it is").isEmpty();

        probe.nice = 10; // the whole process runs at heavy's nice: an inherited 10 cannot be told from its own
        Attribution c = new Attribution(probe, List.of("light", "heavy"), "none", Map.of("heavy", 10), Map.of(),
                warnings::add);
        c.enter("light");
        c.exit("light");
        assertThat(probe.actuatorCalls).as("left as it is").isEmpty();
    }

    /**
     * An enter without its exit (a listener used on its own, or an exit skipped by a failure before it) into a class
     * with no nice or slice: the thread got the last class's back only as a class with one came, so the light request
     * ran at heavy's nice 10 and slice.
     */
    @Test
    void shouldRestoreTheLastClassesActuatorsAtAnEnterWithoutItsExitIntoAClassWithout() {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of("heavy", 1_000_000L));
        a.enter("heavy");
        a.enter("light"); // heavy's exit never came
        assertThat(probe.nice).as("light runs at the thread's own nice").isZero();
        assertThat(probe.slice).as("and the kernel's slice").isEqualTo(ScriptedProbe.DEFAULT_SLICE);
        a.exit("light");
        assertThat(probe.actuatorCalls).containsExactly("slice 1000000", "nice 10", "nice 0", "slice 0");
        a.close();
    }

    /** A thread whose nice cannot be read is not given its class's (it could not be given back), and that is said. */
    @Test
    void shouldCountAndSayANiceNotSetBecauseTheThreadsOwnCouldNotBeRead() {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of());
        probe.schedulingReadable = false;
        a.enter("heavy");
        a.exit("heavy");
        assertThat(probe.actuatorCalls).as("no nice set").isEmpty();
        assertThat(a.niceFailures()).isEqualTo(1);
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("fairslice kernel probe: the nice actuator"
                + " failed and is now off: reading the nice of thread"));
        a.close();
    }

    /** The web application stops while a request runs: the container's thread gets its own nice and slice back. */
    @Test
    void shouldRestoreTheActuatorsOfAThreadServingARequestWhenClosed() {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of("heavy", 1_000_000L));
        a.enter("heavy");
        a.close();
        a.exit("heavy"); // after the stop: nothing left to do

        assertThat(probe.actuatorCalls).containsExactly("slice 1000000", "nice 10", "nice 0", "slice 0");
    }

    /**
     * The web application stops (or the listener fails) while a worker is setting heavy's nice: close() must not miss
     * it, or the container's thread keeps nice 10 for good (its exit finds the thread no longer tracked).
     */
    @Test
    void shouldRestoreANiceBeingAppliedWhileClosing() throws Exception {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of());
        CountDownLatch applying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        probe.beforeSetNice = () -> {
            if (applying.getCount() > 0) { // the first call: heavy's nice
                applying.countDown();
                awaitQuietly(release);
            }
        };
        Thread worker = new Thread(() -> {
            a.enter("heavy");
            a.exit("heavy");
        });
        worker.start();
        assertThat(applying.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(a::close);
        closer.start();
        awaitBlockedOrDone(closer); // it went as far as it can while the worker is inside the actuator
        release.countDown();
        closer.join(10_000);
        worker.join(10_000);

        assertThat(probe.nice).as("the worker's nice after close, calls " + probe.actuatorCalls).isZero();
        assertThat(probe.actuatorCalls).containsExactly("nice 10", "nice 0");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitBlockedOrDone(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.BLOCKED && t.getState() != Thread.State.TERMINATED) {
            assertThat(System.nanoTime() - deadline).as(t + " neither blocked nor done").isNegative();
            Thread.onSpinWait();
        }
    }

    /** One thread under a real-time or idle policy must not turn the slice off for every other thread. */
    @Test
    void shouldSkipTheSliceOfAThreadWhosePolicyHasNoneAndKeepTheActuatorOn() {
        Attribution a = withActuators(Map.of(), Map.of("heavy", 1_000_000L));
        probe.noSlice = true;
        a.enter("heavy");
        a.exit("heavy");
        a.enter("heavy");
        a.exit("heavy");
        probe.noSlice = false;
        a.enter("heavy");
        a.exit("heavy");

        assertThat(probe.actuatorCalls).containsExactly("slice 1000000", "slice 0");
        assertThat(warnings).singleElement().asString().contains("has no EEVDF slice")
                .contains("stays on for the other threads");
    }

    /** A sampler read of a live thread that fails once must not forget the thread, and with it its nice to restore. */
    @Test
    void shouldKeepTrackingAThreadWhoseSamplerReadFailedOnce() {
        Attribution a = withActuators(Map.of("heavy", 10), Map.of());
        a.enter("heavy");
        probe.samplerReadFails = true;
        assertThat(a.sample(new ThreadStats())).as("threads still tracked").isEqualTo(1);
        probe.samplerReadFails = false;
        a.exit("heavy");

        assertThat(probe.actuatorCalls).containsExactly("nice 10", "nice 0");
    }

    /**
     * FreeBSD and Windows: the thread reads its own counters live, the sampler reads a snapshot up to an interval
     * old. A snapshot older than the thread's last reading must not move the baseline back (counted twice).
     */
    @Test
    void shouldNotCountTwiceWhatAnOlderSnapshotShowsAgain() {
        probe.set(1_000, 0, 0, 0, 0);
        attribution.enter("heavy");
        attribution.exit("heavy"); // baseline 1 000
        probe.set(1_100, 0, 0, 0, 0);
        attribution.enter("heavy"); // none: 100
        probe.set(1_090, 0, 0, 0, 0); // the sampler's snapshot, taken before that reading
        attribution.sample(new ThreadStats());
        probe.set(1_300, 0, 0, 0, 0);
        attribution.exit("heavy");

        assertThat(totals("none")[0] + totals("heavy")[0]).as("what the thread used since the baseline")
                .isEqualTo(300);
        assertThat(totals("heavy")[0]).isEqualTo(200);
    }

    /**
     * A young thread's snapshot may read less than half of its own last reading (0 against one 15.6 ms Windows
     * tick), which was taken for a counter that wrapped: the baseline went back, and that tick counted twice.
     */
    @Test
    void shouldNotTakeAYoungThreadsOlderSnapshotForAWrappedCounter() {
        probe.set(0, 0, 0, 0, 0);
        attribution.enter("heavy");
        probe.set(15_600_000, 0, 0, 0, 0);
        attribution.exit("heavy"); // heavy: one tick
        probe.set(0, 0, 0, 0, 0); // the sampler's snapshot, taken before that reading
        attribution.sample(new ThreadStats());
        probe.set(15_600_000, 0, 0, 0, 0);
        attribution.enter("heavy");
        attribution.exit("heavy");

        assertThat(totals("none")[0] + totals("heavy")[0]).as("what the thread used").isEqualTo(15_600_000);
    }

    /** Windows' switch count (the dispatches) is 32 bits: when it wraps it starts again from its new value. */
    @Test
    void shouldStartAWrappedThirtyTwoBitCounterFromItsNewValue() {
        probe.set(0, 0, 0xFFFF_FF00L, 0, 0);
        attribution.enter("heavy");
        probe.set(0, 0, 0x10, 0, 0); // wrapped
        attribution.exit("heavy");
        probe.set(0, 0, 0x30, 0, 0);
        attribution.enter("heavy");
        attribution.exit("heavy");

        assertThat(totals("none")[2] + totals("heavy")[2]).as("what it counted after the wrap").isEqualTo(0x20);
    }

    /**
     * The dispatch a request enters in is its class's, with the run-queue wait before it: the kernel counts both as
     * the thread is switched in (woken for the request), before enter. The switch out of the last request's
     * dispatch (the park between requests) stays with none; history before tracking goes to nobody.
     */
    @Test
    void shouldGiveTheDispatchARequestEntersInToItsClassAndTheSwitchesBetweenRequestsToNone() {
        probe.set(5_000, 500, 50, 5, 5);
        attribution.enter("light"); // first sight of this thread: baseline only
        probe.set(5_100, 500, 51, 5, 5);
        attribution.exit("light");
        probe.set(5_130, 510, 52, 6, 5); // parked (a voluntary switch), woken: one dispatch after 10 of waiting
        attribution.enter("heavy");

        assertThat(totals("light")).containsExactly(100, 0, 1, 0, 0);
        assertThat(totals("heavy")).containsExactly(30, 10, 1, 0, 0);
        assertThat(totals("none")).containsExactly(0, 0, 0, 1, 0);
    }

    /** More dispatches between requests: the entered one gets a share of run and wait per dispatch, none the rest. */
    @Test
    void shouldGiveTheEnteredClassOneDispatchsShareWhenTheThreadRanSeveralTimesBetweenRequests() {
        probe.set(100, 10, 1, 0, 0);
        attribution.enter("light");
        attribution.exit("light");
        probe.set(400, 70, 4, 3, 0); // three dispatches in none (a pool thread's housekeeping), the last for heavy
        attribution.enter("heavy");

        assertThat(totals("heavy")).containsExactly(100, 20, 1, 0, 0);
        assertThat(totals("none")).containsExactly(200, 40, 2, 3, 0);
        probe.set(1_400, 90, 5, 3, 1);
        attribution.exit("heavy");
        assertThat(totals("heavy")).containsExactly(1_100, 40, 2, 0, 1);
    }

    @Test
    void shouldLetTheSamplerCheckpointALongRequestIntoItsClass() {
        probe.set(0, 0, 0, 0, 0);
        attribution.enter("heavy");
        probe.set(400, 40, 4, 0, 4);
        attribution.sample(new ThreadStats());
        assertThat(totals("heavy")).containsExactly(400, 40, 4, 0, 4);

        probe.set(500, 50, 5, 1, 4);
        attribution.exit("heavy");
        assertThat(totals("heavy")).containsExactly(500, 50, 5, 1, 4);
        assertThat(requests).singleElement().satisfies(r -> assertThat(r[1]).isEqualTo(500));
    }

    @Test
    void shouldKeepTheBaselineOfACounterTheThreadsOwnReadingLacks() {
        probe.ownReadHasSwitches = false; // like Windows: switches only in the sampler's reading
        probe.set(0, 0, 0, 10, 0);
        attribution.enter("heavy");
        attribution.sample(new ThreadStats()); // sampler sets the switch baseline: 10
        probe.set(100, 0, 1, 13, 0);
        attribution.exit("heavy");
        assertThat(totals("heavy")[3]).as("no switch reading at exit yet").isZero();

        attribution.sample(new ThreadStats());

        assertThat(totals("none")[3]).as("growth goes to the class in effect when next read").isEqualTo(3);
        assertThat(totals("heavy")[0]).isEqualTo(100);
    }

    @Test
    void shouldLeaveThreadsItCannotOpenAloneWithOneWarning() throws Exception {
        probe.canOpen = false;
        Thread t = new Thread(() -> {
            for (int i = 0; i < 3; i++) {
                attribution.enter("heavy");
                attribution.exit("heavy");
            }
        });
        t.start();
        t.join();

        assertThat(attribution.sample(new ThreadStats())).isZero();
        assertThat(warnings).singleElement().asString().contains("not tracked");
    }

    /** The probe is disabled after an unexpected error (the listener's fail()): the handle just opened is closed. */
    @Test
    void shouldCloseTheHandleOfAThreadWhoseFirstReadingThrows() {
        probe.readCurrentFailure = new IllegalStateException("unexpected");

        assertThatThrownBy(() -> attribution.enter("heavy")).hasMessage("unexpected");

        assertThat(probe.openHandles).as("handles left open").hasValue(0);
        assertThat(attribution.trackedThreads()).isZero();
    }

    /** The threads gauge counts threads the probe follows, not those it could not open and leaves alone. */
    @Test
    void shouldNotCountAThreadItCannotOpenAsTracked() {
        probe.canOpen = false;
        attribution.enter("heavy");
        attribution.exit("heavy");

        assertThat(attribution.trackedThreads()).isZero();
        assertThat(attribution.sample(new ThreadStats())).as("still alive, still not tracked").isZero();
    }

    @Test
    void shouldCountUnknownClassesAsNoneWithOneWarning() {
        probe.set(0, 0, 0, 0, 0);
        attribution.enter("heavy");
        attribution.exit("heavy");
        attribution.enter("medium");
        probe.set(10, 0, 1, 0, 0);
        attribution.exit("medium");
        attribution.enter("medium");
        attribution.exit("medium");

        assertThat(totals("none")[0]).isEqualTo(10);
        assertThat(warnings).singleElement().asString().contains("'medium'");
    }

    @Test
    void shouldForgetThreadsThatHaveExited() throws Exception {
        Thread t = new Thread(() -> {
            attribution.enter("light");
            attribution.exit("light");
        });
        t.start();
        t.join();
        assertThat(attribution.trackedThreads()).isEqualTo(1);

        assertThat(attribution.sample(new ThreadStats())).isZero();
    }
}
