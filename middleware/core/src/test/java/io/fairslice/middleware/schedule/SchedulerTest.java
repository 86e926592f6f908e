package io.fairslice.middleware.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.internal.YieldGate;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SchedulerTest {

    private static final long MS = 1_000_000L;
    private static final int LIGHT = 0;
    private static final int HEAVY = 1;

    private final FakeClock clock = new FakeClock();
    private Scheduler scheduler;

    private Scheduler scheduler(String... keyValues) {
        Map<String, String> keys = new HashMap<>();
        keys.put("share.cpus", "1");
        for (int i = 0; i < keyValues.length; i += 2) {
            keys.put(keyValues[i], keyValues[i + 1]);
        }
        scheduler = new Scheduler(FairsliceConfig.parse(keys), clock);
        return scheduler;
    }

    @AfterEach
    void close() {
        if (scheduler != null) {
            scheduler.close();
        }
    }

    /** Admits without blocking (fails the test if it would queue). */
    private Ticket running(int cls, long expected) {
        Ticket t = scheduler.newTicket(cls, expected);
        scheduler.beginDispatch(t);
        assertThat(scheduler.tryAdmit(t)).as("admission of %s", t.className()).isEqualTo(Scheduler.ADMITTED);
        return t;
    }

    /** Runs {@code cpu} ns on the ticket's thread and completes it. */
    private void finish(Ticket t, long cpu) {
        t.cpuDispatchStart = clock.cpu; // one fake CPU clock for all tickets: this one runs now
        clock.advance(cpu, cpu);
        scheduler.endDispatch(t);
        scheduler.complete(t);
    }

    @Test
    void shouldAdmitEveryHeavyRequestWhenNoOtherClassIsActive() {
        scheduler();
        for (int i = 0; i < 10; i++) {
            running(HEAVY, 25 * MS);
        }
        assertThat(scheduler.classState(HEAVY).running()).isEqualTo(10);
        assertThat(scheduler.classState(HEAVY).waiting()).isZero();
    }

    @Test
    void shouldQueueHeavyWhileLightRunsAndHeavyIsOverItsShare() {
        scheduler();
        running(LIGHT, MS);
        running(HEAVY, 25 * MS); // balance was 0: admitted, and its reservation puts the class in debt
        assertThat(scheduler.classState(HEAVY).balanceNanos()).isNegative();

        Ticket second = scheduler.newTicket(HEAVY, 25 * MS);
        scheduler.beginDispatch(second);
        assertThat(scheduler.tryAdmit(second)).isEqualTo(Scheduler.QUEUED);
        assertThat(scheduler.classState(HEAVY).waitingAdmission()).isEqualTo(1);
    }

    @Test
    void shouldKeepCompetingBalancesSummingToZero() {
        scheduler();
        running(LIGHT, MS); // keeps light active throughout
        Ticket light = running(LIGHT, MS);
        Ticket heavy = running(HEAVY, 25 * MS);
        finish(light, 3 * MS);
        finish(heavy, 30 * MS);
        long sum = scheduler.classState(LIGHT).balanceNanos() + scheduler.classState(HEAVY).balanceNanos();
        assertThat(Math.abs(sum)).isLessThan(10); // rounding of the shares only
    }

    @Test
    void shouldGrantQueuedHeavyOnceLightHasUsedItsShare() {
        scheduler();
        running(LIGHT, MS); // keeps light active throughout
        Ticket first = running(HEAVY, 20 * MS);
        Ticket second = scheduler.newTicket(HEAVY, 20 * MS);
        scheduler.beginDispatch(second);
        assertThat(scheduler.tryAdmit(second)).isEqualTo(Scheduler.QUEUED);
        finish(first, 20 * MS); // heavy debt: 0.8 x 20 ms = 16 ms; light must use 16 / 0.2 = 80 ms to repay it

        for (int i = 0; i < 7; i++) {
            finish(running(LIGHT, MS), 10 * MS);
        }
        assertThat(second.granted).as("granted after 70 ms of light CPU").isFalse();
        finish(running(LIGHT, MS), 10 * MS);
        assertThat(second.granted).as("granted after 80 ms of light CPU").isTrue();
        assertThat(scheduler.classState(HEAVY).running()).isEqualTo(1);
    }

    @Test
    void shouldLetHeavyBeyondItsShareOnlyWhileCpuCapacityGoesUnused() {
        scheduler("share.cpus", "4");
        running(LIGHT, MS);
        running(HEAVY, 25 * MS); // now in debt
        Ticket busy = scheduler.newTicket(HEAVY, 25 * MS);
        assertThat(scheduler.tryAdmit(busy)).as("CPUs busy: held back").isEqualTo(Scheduler.QUEUED);
        scheduler.close();

        scheduler("share.cpus", "4");
        clock.idle = true;
        running(LIGHT, MS);
        running(HEAVY, 25 * MS);
        running(HEAVY, 25 * MS); // in debt, but capacity is unused and only 2 of 4 CPUs run requests
        running(HEAVY, 25 * MS);
        Ticket fifth = scheduler.newTicket(HEAVY, 25 * MS);
        scheduler.beginDispatch(fifth);
        assertThat(scheduler.tryAdmit(fifth)).as("4 requests run on 4 CPUs").isEqualTo(Scheduler.QUEUED);
    }

    @Test
    void shouldParkHeavyAtYieldPointAfterAQuantumWhileLightWaitsAndResumeWhenRepaid() {
        scheduler("share.quantum", "5ms");
        running(LIGHT, MS);
        Ticket heavy = running(HEAVY, MS); // reserved only 1 ms: a longer run is charged at its yield points
        clock.advance(2 * MS, 2 * MS);
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> scheduler.yieldPoint(heavy),
                "before a quantum of CPU the yield point returns at once");
        assertThat(scheduler.classState(HEAVY).waiting()).isZero();
        clock.advance(20 * MS, 20 * MS);
        assertThat(scheduler.parkAtYield(heavy, heavy.cpuNanos())).as("after the quantum, in debt").isTrue();
        assertThat(scheduler.classState(HEAVY).waiting()).isEqualTo(1);
        assertThat(scheduler.classState(HEAVY).running()).isZero();

        long debt = -scheduler.classState(HEAVY).balanceNanos();
        long lightCpu = (long) (debt / 0.2) + MS;
        finish(running(LIGHT, MS), lightCpu);
        assertThat(heavy.granted).isTrue();
        assertThat(scheduler.classState(HEAVY).running()).isEqualTo(1);
    }

    @Test
    void shouldNeverParkAtYieldWhenAlone() {
        scheduler("share.quantum", "1ms");
        Ticket heavy = running(HEAVY, MS);
        clock.advance(50 * MS, 50 * MS);
        assertThat(scheduler.parkAtYield(heavy, heavy.cpuNanos())).isFalse();
    }

    @Test
    void shouldRejectWhenTheQueueIsFull() {
        scheduler("class.heavy.max-concurrency", "1", "class.heavy.queue-size", "2");
        running(HEAVY, MS);
        for (int i = 0; i < 2; i++) {
            Ticket t = scheduler.newTicket(HEAVY, MS);
            assertThat(scheduler.tryAdmit(t)).isEqualTo(Scheduler.QUEUED);
        }
        Ticket third = scheduler.newTicket(HEAVY, MS);
        assertThat(scheduler.tryAdmit(third)).isEqualTo(Scheduler.REJECTED_QUEUE_FULL);
        assertThat(scheduler.classState(HEAVY).rejections(Scheduler.REJECTED_QUEUE_FULL)).isEqualTo(1);
        assertThat(scheduler.classState(HEAVY).inflight()).isEqualTo(3);
    }

    @Test
    void shouldReleaseTheCapPermitOnCompletionToTheNextInQueue() {
        scheduler("class.heavy.max-concurrency", "1");
        Ticket first = running(HEAVY, MS);
        Ticket second = scheduler.newTicket(HEAVY, MS);
        scheduler.beginDispatch(second);
        assertThat(scheduler.tryAdmit(second)).isEqualTo(Scheduler.QUEUED);
        finish(first, MS);
        assertThat(second.granted).isTrue();
        assertThat(second.holdsPermit).isTrue();
    }

    @Test
    void shouldRejectAfterTheQueueTimeoutWithARetryAfterFromTheDrainRate() throws Exception {
        scheduler("class.heavy.max-concurrency", "1", "class.heavy.queue-timeout", "100ms");
        // two completions 2 s apart: the drain interval is 2 s
        finish(running(HEAVY, MS), MS);
        clock.advance(1_999 * MS, 0); // plus the 1 ms the request ran: completions 2 s apart
        finish(running(HEAVY, MS), MS);
        running(HEAVY, MS); // holds the only permit

        Ticket waiting = scheduler.newTicket(HEAVY, MS);
        CompletableFuture<Integer> result = CompletableFuture.supplyAsync(() -> scheduler.admit(waiting));
        while (scheduler.classState(HEAVY).waitingAdmission() == 0) {
            Thread.sleep(1);
        }
        assertThat(scheduler.retryAfterSeconds(HEAVY)).as("(1 waiting + 1) x 2 s").isEqualTo(4);
        clock.advance(150 * MS, 0);
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo(Scheduler.REJECTED_QUEUE_TIMEOUT);
        assertThat(scheduler.classState(HEAVY).rejections(Scheduler.REJECTED_QUEUE_TIMEOUT)).isEqualTo(1);
        assertThat(scheduler.classState(HEAVY).waitingAdmission()).isZero();
        assertThat(scheduler.retryAfterSeconds(HEAVY)).isEqualTo(2);
    }

    @Test
    void shouldBoundTheParkAtAYieldPointByMaxPark() throws Exception {
        scheduler("share.quantum", "1ms", "share.max-park", "50ms");
        running(LIGHT, MS);
        Ticket heavy = running(HEAVY, MS);
        clock.advance(30 * MS, 30 * MS);
        CompletableFuture<Void> yielded = CompletableFuture.runAsync(() -> {
            assertThat(scheduler.parkAtYield(heavy, 30 * MS)).isTrue();
            heavy.dispatching = false; // the async thread is not the one whose CPU the fake clock reports
        }).thenRun(() -> { });
        yielded.get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> resumed = CompletableFuture.runAsync(() -> {
            try {
                java.lang.reflect.Method await = Scheduler.class.getDeclaredMethod("await", Ticket.class, int.class);
                await.setAccessible(true);
                await.invoke(scheduler, heavy, Scheduler.WHERE_YIELD);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(resumed).as("still parked: the fake clock has not passed max-park").isNotDone();
        clock.advance(60 * MS, 0);
        resumed.get(5, TimeUnit.SECONDS);
        assertThat(heavy.granted).isTrue();
        assertThat(scheduler.classState(HEAVY).running()).isEqualTo(1);
        assertThat(scheduler.classState(HEAVY).parks(Scheduler.WHERE_YIELD)).isEqualTo(1);
    }

    @Test
    void shouldNeverQueueUnderObserve() {
        scheduler("policy", "observe", "class.heavy.max-concurrency", "1");
        running(LIGHT, MS);
        for (int i = 0; i < 5; i++) {
            running(HEAVY, 25 * MS);
        }
        assertThat(scheduler.classState(HEAVY).running()).isEqualTo(5);
    }

    @Test
    void shouldArmTheYieldGateOnlyWhileTwoClassesCompete() {
        scheduler();
        boolean before = YieldGate.armed();
        Ticket heavy = running(HEAVY, MS);
        assertThat(scheduler.armed()).isFalse();
        Ticket light = running(LIGHT, MS);
        assertThat(scheduler.armed()).isTrue();
        assertThat(YieldGate.armed()).isTrue();
        finish(light, MS);
        assertThat(scheduler.armed()).isFalse();
        assertThat(YieldGate.armed()).isEqualTo(before);
        finish(heavy, MS);
    }

    @Test
    void shouldApplyARuntimePolicySwitchToWaiters() {
        scheduler();
        running(LIGHT, MS);
        running(HEAVY, 25 * MS);
        Ticket queued = scheduler.newTicket(HEAVY, 25 * MS);
        scheduler.beginDispatch(queued);
        assertThat(scheduler.tryAdmit(queued)).isEqualTo(Scheduler.QUEUED);
        scheduler.reconfigure(scheduler.config().with(Map.of("policy", "observe")));
        assertThat(queued.granted).isTrue();
    }

    @Test
    void shouldReportCpuShareAgainstTarget() {
        scheduler();
        Ticket light = running(LIGHT, MS);
        Ticket heavy = running(HEAVY, MS);
        finish(light, 60 * MS);
        finish(heavy, 40 * MS);
        assertThat(scheduler.cpuShare(LIGHT)).isBetween(0.55, 0.65);
        assertThat(scheduler.targetShare(LIGHT)).isEqualTo(0.8);
        assertThat(scheduler.classState(HEAVY).cpuNanos()).isEqualTo(40 * MS);
    }
}
