package io.fairslice.probe.internal;

import static io.fairslice.probe.ProbeMeterNames.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.probe.KernelProbeMetrics;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadStats;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the sampler publishes for the gauges, driven tick by tick against a scripted probe and a fake clock. */
class SamplerTest {

    /** The counters of the sampler's system readings. */
    private static final List<String> SYSTEM_COUNTERS = List.of(CPU_PRESSURE_STALL, CGROUP_PERIODS,
            CGROUP_THROTTLED_PERIODS, CGROUP_THROTTLED_TIME);

    private final AttributionTest.ScriptedProbe probe = new AttributionTest.ScriptedProbe();
    private final List<String> warnings = new CopyOnWriteArrayList<>(); // the sampler's thread adds to it too
    private final Attribution attribution = new Attribution(probe, List.of("light", "heavy"), "none", Map.of(),
            Map.of(), warnings::add);

    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private Sampler sampler() {
        return new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, warnings::add);
    }

    private Sampler sampler(AtomicLong clock) {
        return new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, warnings::add, clock::get);
    }

    /** A sampler on the fake clock whose gauges are in {@link #registry}. */
    private Sampler boundSampler() {
        Sampler sampler = new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, warnings::add, clock::get);
        new KernelProbeMetrics(attribution, sampler, "/").bindTo(registry);
        return sampler;
    }

    /**
     * A heavy request entered on this thread from zero counters (the sampler's baseline tick), whose counters read
     * {@code counters} ({@link AttributionTest.ScriptedProbe#set}'s) at the tick {@code nanos} later.
     */
    private void heavyInterval(Sampler sampler, long nanos, long... counters) {
        probe.set(0, 0, 0, 0, 0);
        attribution.enter("heavy");
        sampler.tick();
        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).as("no interval seen yet").isNaN();
        probe.set(counters[0], counters[1], counters[2], counters[3], counters[4]);
        clock.addAndGet(nanos);
        sampler.tick();
    }

    private double gauge(String name, String cls) {
        return registry.get(name).tag(TAG_CLASS, cls).gauge().value();
    }

    private double gauge(String name, String cls, String kind) {
        return registry.get(name).tag(TAG_CLASS, cls).tag(TAG_KIND, kind).gauge().value();
    }

    /** The interval gauges: a heavy request's growth over one 2 s interval, per dispatch and per second. */
    @Test
    void shouldPublishEachClassRatesOverTheLastInterval() {
        Sampler sampler = boundSampler();
        // 8 ms on a CPU in 4 dispatches, 2 ms waiting for one, over 2 s
        heavyInterval(sampler, 2_000_000_000L, 8_000_000, 2_000_000, 4, 6, 2);

        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).isEqualTo(0.002);
        assertThat(gauge(RUN_QUEUE_WAIT_PER_DISPATCH, "heavy")).isEqualTo(0.0005);
        assertThat(gauge(RUN_QUEUE_WAIT_RATE, "heavy")).isEqualTo(0.001);
        assertThat(gauge(SWITCH_RATE, "heavy", KIND_VOLUNTARY)).isEqualTo(3.0);
        assertThat(gauge(SWITCH_RATE, "heavy", KIND_INVOLUNTARY)).isEqualTo(1.0);
        assertThat(gauge(EFFECTIVE_SLICE, "light")).as("no dispatch: no slice").isNaN();
        assertThat(gauge(RUN_QUEUE_WAIT_RATE, "light")).isZero();
        assertThat(gauge(SWITCH_RATE, "none", KIND_VOLUNTARY)).isZero();

        probe.set(9_000_000, 2_000_000, 5, 6, 2); // one more dispatch of 1 ms, no wait, in the next second
        clock.addAndGet(1_000_000_000L);
        sampler.tick();

        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).as("this interval's only").isEqualTo(0.001);
        assertThat(gauge(RUN_QUEUE_WAIT_PER_DISPATCH, "heavy")).isZero();
        assertThat(gauge(RUN_QUEUE_WAIT_RATE, "heavy")).isZero();
        assertThat(gauge(SWITCH_RATE, "heavy", KIND_VOLUNTARY)).isZero();
    }

    /**
     * Request threads add to the class totals while the sampler reads them: every count lands in exactly one interval,
     * none between the read for the rates and the one kept for the next interval.
     */
    @Test
    void shouldCountEverySwitchAddedWhileItSamplesInOneInterval() throws Exception {
        Sampler sampler = sampler(clock);
        ClassTotals heavy = attribution.totals(1);
        sampler.tick(); // the baseline
        AtomicBoolean adding = new AtomicBoolean(true);
        long[] added = new long[1];
        Thread requests = new Thread(() -> {
            while (adding.get()) {
                heavy.voluntary.increment();
                heavy.dispatches.increment();
                added[0]++;
            }
        });
        requests.start();
        double switches = 0;
        for (int i = 0; i < 2_000; i++) {
            clock.addAndGet(1_000_000_000L); // one second: a rate is its interval's count
            sampler.tick();
            switches += sampler.voluntaryPerSecond(1);
        }
        adding.set(false);
        requests.join();
        clock.addAndGet(1_000_000_000L);
        sampler.tick();
        switches += sampler.voluntaryPerSecond(1);
        assertThat(added[0]).as("counts added while it sampled").isPositive();
        assertThat(switches).isEqualTo((double) added[0]);
    }

    /** System.nanoTime has an arbitrary origin and may read negative: the rates must come all the same. */
    @Test
    void shouldPublishRatesWhenTheClockReadsNegative() {
        clock.set(-7_000_000_000L);
        Sampler sampler = boundSampler();
        heavyInterval(sampler, 1_000_000_000L, 3_000_000, 0, 3, 0, 0);

        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).isEqualTo(0.001);
    }

    @Test
    void shouldPublishTheFirstSystemReadingAtConstructionWithUnsupportedSignalsMarked() {
        probe.load = 1.5;

        SystemStats system = sampler().system();

        assertThat(system.load1()).isEqualTo(1.5);
        assertThat(system.runnable()).isEqualTo(3);
        assertThat(system.cpuPressureSomeAvg10()).isNaN();
        assertThat(ThreadStats.isSupported(system.cgroupPeriods())).isFalse();
    }

    /** Starts {@code sampler} with its probe failing at the next system reading, and waits for its warning. */
    private void failOnItsThread(Sampler sampler, List<String> warned) throws InterruptedException {
        probe.readSystemFailure = new IllegalStateException("no /proc");
        sampler.start();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (warned.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        sampler.stop();
    }

    @Test
    void shouldWarnWhenItsFirstTickFailsAndStops() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        Sampler sampler = new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, seen::add);
        failOnItsThread(sampler, seen);

        assertThat(seen).singleElement().asString().contains("the sampler failed and stopped").contains("no /proc");
    }

    /**
     * A sampler that failed left its gauges at the last interval's values, read as current rates for as long as the
     * application ran (one warning said it had stopped): they read NaN, no value in Prometheus, and the per-class
     * counters stay. Its system counters stayed at their last readings, so the dashboard's rate of them read 0 (no CPU
     * pressure) with nothing measured: they are removed, and a rate of them has no data.
     */
    @Test
    void shouldStopClaimingRatesWhenItFails() throws Exception {
        probe.load = 1.5;
        probe.systemTotal = 2_000_000;
        Sampler sampler = boundSampler();
        for (String counter : SYSTEM_COUNTERS) {
            assertThat(registry.find(counter).functionCounter()).as(counter).isNotNull();
        }
        assertThat(registry.get(CPU_PRESSURE_STALL).functionCounter().count()).isEqualTo(2.0);
        heavyInterval(sampler, 2_000_000_000L, 8_000_000, 2_000_000, 4, 6, 2);
        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).isEqualTo(0.002);

        failOnItsThread(sampler, warnings);

        assertThat(warnings).singleElement().asString().contains("the sampler failed and stopped")
                .contains("gauges read NaN");
        assertThat(gauge(EFFECTIVE_SLICE, "heavy")).isNaN();
        assertThat(gauge(RUN_QUEUE_WAIT_PER_DISPATCH, "heavy")).isNaN();
        assertThat(gauge(RUN_QUEUE_WAIT_RATE, "heavy")).isNaN();
        assertThat(gauge(SWITCH_RATE, "heavy", KIND_VOLUNTARY)).isNaN();
        assertThat(gauge(SWITCH_RATE, "heavy", KIND_INVOLUNTARY)).isNaN();
        assertThat(registry.get(LOAD).gauge().value()).isNaN();
        assertThat(registry.get(RUNNABLE).gauge().value()).isNaN();
        assertThat(registry.get(SAMPLER_COST).gauge().value()).isNaN();
        assertThat(registry.get(RUN_TIME).tag(TAG_CLASS, "heavy").functionCounter().count()).as("a counter stays")
                .isEqualTo(0.008);
        for (String counter : SYSTEM_COUNTERS) {
            assertThat(registry.find(counter).meters()).as(counter + ", which nothing reads any more").isEmpty();
        }
    }

    /**
     * An action set after the sampler failed (a binder bound late) was never run, and the counters it removes stayed
     * at their last readings: it runs at once. Without one, the warning does not claim the counters are removed.
     */
    @Test
    void shouldRunAnActionSetAfterItFailedAtOnce() throws Exception {
        Sampler sampler = sampler();
        failOnItsThread(sampler, warnings);
        AtomicInteger runs = new AtomicInteger();

        sampler.whenFailed(runs::incrementAndGet);

        assertThat(runs).hasValue(1);
        assertThat(warnings).singleElement().asString().contains("the sampler failed and stopped")
                .doesNotContain("system counters");
    }

    /** An action that throws is said in a warning: it escaped the sampler's thread as an uncaught exception. */
    @Test
    void shouldSayAFailedActionRatherThanThrowIt() throws Exception {
        Sampler sampler = sampler();
        sampler.whenFailed(() -> {
            throw new IllegalStateException("registry gone");
        });

        failOnItsThread(sampler, warnings);

        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0)).contains("its system counters (PSI stall, cgroup) are removed");
        assertThat(warnings.get(1)).contains("removing the stopped sampler's system counters failed")
                .contains("registry gone");
    }

    @Test
    void shouldPublishEachTickAsANewReadingAndKeepTheLastWhenAReadFails() {
        probe.load = 1.5;
        Sampler sampler = sampler();
        SystemStats first = sampler.system();

        probe.load = 2.5;
        sampler.tick();
        SystemStats second = sampler.system();
        probe.load = Double.NaN;
        sampler.tick();

        assertThat(second.load1()).isEqualTo(2.5);
        assertThat(first.load1()).as("a published reading never changes").isEqualTo(1.5);
        assertThat(sampler.system().load1()).as("a failed read keeps the last values").isEqualTo(2.5);
        assertThat(warnings).isEmpty();
    }

    @Test
    void shouldPublishNothingSupportedWhenThePlatformHasNoSystemSignals() {
        SystemStats system = sampler().system();

        assertThat(system.load1()).isNaN();
        assertThat(ThreadStats.isSupported(system.runnable())).isFalse();
        assertThat(ThreadStats.isSupported(system.cpuPressureSomeTotalMicros())).isFalse();
    }
}
