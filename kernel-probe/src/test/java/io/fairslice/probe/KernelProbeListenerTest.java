package io.fairslice.probe;

import static io.fairslice.probe.ProbeMeterNames.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairslice.middleware.spi.RequestListener;
import io.fairslice.probe.internal.Sampler;
import io.fairslice.probe.linux.BusyBurstyMain;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class KernelProbeListenerTest {

    private static final List<String> CLASSES = List.of("light", "heavy");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-worker"));
    private KernelProbeListener listener;

    @AfterEach
    void tearDown() {
        BreakingProbe.losesSystem = false;
        if (listener != null) {
            listener.stop();
        }
        worker.shutdownNow();
    }

    private KernelProbeListener start(Map<String, String> settings) {
        listener = new KernelProbeListener(w -> KernelProbes.create(System.getProperty("os.name"), Path.of("/proc"),
                w), warnings::add);
        listener.start(new TestContext(CLASSES, registry, settings));
        return listener;
    }

    @Test
    void shouldBeFoundByServiceLoaderUnderItsName() {
        List<String> names = new ArrayList<>();
        for (RequestListener l : ServiceLoader.load(RequestListener.class)) {
            names.add(l.name() + ":" + l.getClass().getName());
        }

        assertThat(names).contains("kernel-probe:" + KernelProbeListener.class.getName());
    }

    @Test
    void shouldAcceptItsSettingNamesAndNoOthers() {
        Set<String> names = new KernelProbeListener().settingNames();

        // the middleware's convention: "nice.*" declares nice.<anything>
        assertThat(names).containsExactlyInAnyOrder("interval", "enabled", "nice.*", "slice.*");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldAttributeCpuToTheClassEachThreadServes() throws Exception {
        start(Map.of());
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        worker.submit(() -> {
            for (int i = 0; i < 200; i++) { // warm up: first calls load classes and compile outside the requests
                listener.enter(i % 2 == 0 ? "light" : "heavy");
                listener.exit(i % 2 == 0 ? "light" : "heavy");
            }
        }).get();
        double heavyBefore = registry.get(RUN_TIME).tag(TAG_CLASS, "heavy").functionCounter().count();
        double lightBefore = registry.get(RUN_TIME).tag(TAG_CLASS, "light").functionCounter().count();
        DistributionSummary lightCpu = registry.get(REQUEST_CPU).tag(TAG_CLASS, "light").summary();
        long lightCount = lightCpu.count();
        double lightTotal = lightCpu.totalAmount();
        // CPU time by ThreadMXBean around each request, the cross-check (wall time would include preemption)
        long[] cpu = worker.submit(() -> {
            long t0 = mx.getCurrentThreadCpuTime();
            listener.enter("heavy");
            BusyBurstyMain.burnCpu(75_000_000L);
            // a thread alone on its core may burn 150 ms without being switched out (no dispatch to count); the
            // sleep's wake-up is one dispatch for certain
            Thread.sleep(1);
            BusyBurstyMain.burnCpu(75_000_000L);
            listener.exit("heavy");
            long t1 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < 10; i++) {
                listener.enter("light");
                BusyBurstyMain.burnCpu(2_000_000L);
                listener.exit("light");
            }
            return new long[] {t1 - t0, mx.getCurrentThreadCpuTime() - t1};
        }).get();

        double heavy = registry.get(RUN_TIME).tag(TAG_CLASS, "heavy").functionCounter().count() - heavyBefore;
        double light = registry.get(RUN_TIME).tag(TAG_CLASS, "light").functionCounter().count() - lightBefore;
        double heavyMx = cpu[0] / 1e9;
        double lightMx = cpu[1] / 1e9;
        assertThat(heavyMx).as("the heavy request ran").isGreaterThan(0.14);
        assertThat(heavy).as("heavy run time, s").isCloseTo(heavyMx, within(0.002 + heavyMx * 0.05));
        assertThat(light).as("light run time, s").isCloseTo(lightMx, within(0.002 + lightMx * 0.05));
        assertThat(lightCpu.count() - lightCount).isEqualTo(10);
        assertThat(lightCpu.totalAmount() - lightTotal).as("CPU of the light requests, s")
                .isCloseTo(lightMx, within(0.002 + lightMx * 0.05));
        assertThat(registry.get(DISPATCHES).tag(TAG_CLASS, "heavy").functionCounter().count()).isPositive();
        assertThat(warnings).isEmpty();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldPublishIntervalRatesWithOnlyConfiguredClassesAndNoneAsTags() throws Exception {
        start(Map.of("interval", "100ms"));
        Sampler sampler = listener.sampler();
        worker.submit(() -> {
            for (int i = 0; i < 60; i++) {
                listener.enter(i % 2 == 0 ? "heavy" : "light");
                BusyBurstyMain.spin(3_000_000L);
                try {
                    Thread.sleep(2); // voluntary switches inside the request
                } catch (InterruptedException e) {
                    return;
                }
                listener.exit(i % 2 == 0 ? "heavy" : "light");
            }
        }).get();
        awaitTwoTicksAfter(sampler, sampler.ticks());

        Set<String> classTags = registry.getMeters().stream().map(m -> m.getId().getTag(TAG_CLASS))
                .filter(t -> t != null).collect(Collectors.toSet());
        assertThat(classTags).containsExactlyInAnyOrder("light", "heavy", "none");
        assertThat(registry.getMeters())
                .allSatisfy(m -> assertThat(m.getId().getName()).startsWith("fairslice.probe."));
        assertThat(registry.get(SWITCHES).tag(TAG_CLASS, "heavy").tag(TAG_KIND, KIND_VOLUNTARY).functionCounter()
                .count()).isGreaterThanOrEqualTo(30);
        assertThat(registry.get(SAMPLER_INTERVAL).gauge().value()).isGreaterThanOrEqualTo(0.1);
        // the sampler's cost as a fraction of one CPU; that the governor keeps it near its 1 % budget is
        // IntervalGovernorTest's, on a fake clock: here, two ticks after start on a busy shared host, it read 0.0105
        assertThat(registry.get(SAMPLER_COST).gauge().value()).isBetween(0.0, 0.1);
        assertThat(registry.get(THREADS).gauge().value()).isEqualTo(1.0);
        assertThat(registry.get(LOAD).gauge().value()).isGreaterThanOrEqualTo(0.0);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldNiceAThreadWhileItServesTheClassAndRestoreItOnExit() throws Exception {
        start(Map.of("nice.heavy", "10"));
        KernelProbe probe = KernelProbes.create();
        long[] nice = worker.submit(() -> {
            long tid = probe.currentThreadId();
            ThreadStats s = new ThreadStats();
            listener.enter("heavy");
            probe.actuator().readScheduling(tid, s);
            long during = s.nice();
            listener.exit("heavy");
            probe.actuator().readScheduling(tid, s);
            long after = s.nice();
            listener.enter("light");
            probe.actuator().readScheduling(tid, s);
            long light = s.nice();
            listener.exit("light");
            return new long[] {during, after, light};
        }).get();

        assertThat(nice).containsExactly(10, 0, 0);
        assertThat(registry.get(ACTUATOR_FAILURES).tag(TAG_ACTUATOR, "nice").functionCounter().count()).isZero();
    }

    /**
     * An unexpected error on one thread disables the probe, and the threads serving a request then must not keep
     * their class's nice: they never reach an exit the probe acts on (it kept nice 10 for every later request). An
     * OutOfMemoryError (a failed native allocation) too: it went past the listener to the middleware, which took the
     * listener off without the probe's clean-up; it still goes on up, to fail the request.
     */
    @ParameterizedTest
    @ValueSource(strings = {BreakingProbe.BREAKS, BreakingProbe.BREAKS_JVM})
    @EnabledOnOs(OS.LINUX)
    void shouldGiveEveryThreadItsNiceBackWhenAnErrorDisablesTheProbe(String breaking) throws Exception {
        listener = new KernelProbeListener(w -> new BreakingProbe(KernelProbes.create(System.getProperty("os.name"),
                Path.of("/proc"), w)), warnings::add);
        listener.start(new TestContext(CLASSES, registry, Map.of("nice.heavy", "10")));
        KernelProbe probe = KernelProbes.create();
        long tid = worker.submit(() -> {
            listener.enter("heavy");
            return probe.currentThreadId();
        }).get();
        ThreadStats s = new ThreadStats();
        probe.actuator().readScheduling(tid, s);
        assertThat(s.nice()).as("while the worker serves heavy").isEqualTo(10);

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread breaker = new Thread(() -> {
            try {
                listener.enter("light");
            } catch (Throwable e) {
                thrown.set(e);
            }
        }, breaking);
        breaker.start();
        breaker.join();
        if (breaking.equals(BreakingProbe.BREAKS_JVM)) {
            assertThat(thrown.get()).as("the JVM's error goes on up").isInstanceOf(OutOfMemoryError.class);
        } else {
            assertThat(thrown.get()).as("a probe's bug stays in the probe").isNull();
        }
        assertThat(listener.isActive()).isFalse();
        assertThat(warnings).anyMatch(w -> w.contains("disabled after an unexpected error"));
        // what tells it on a dashboard: the probe caught it, so the middleware's listener failures do not count it
        assertThat(registry.get(THREADS).gauge().value()).as("threads tracked once disabled").isZero();

        probe.actuator().readScheduling(tid, s);
        assertThat(s.nice()).as("the worker, still in its request, once the probe is disabled").isZero();
        worker.submit(() -> listener.exit("heavy")).get(); // a no-op now
    }

    /**
     * A system reading that lacks a value it had (PSI's total, the runnable count) leaves the stall counter where it
     * was and the runnable gauge without a number: the counter read 0, a reset to Prometheus, and the gauge
     * Long.MIN_VALUE.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldKeepTheStallCounterAndGiveNoRunnableCountWhenAReadingLacksThem() throws Exception {
        assumeTrue(Files.exists(Path.of("/proc/pressure/cpu")), "no PSI on this kernel");
        listener = new KernelProbeListener(w -> new BreakingProbe(KernelProbes.create(System.getProperty("os.name"),
                Path.of("/proc"), w)), warnings::add);
        listener.start(new TestContext(CLASSES, registry, Map.of("interval", "100ms")));
        double stall = registry.get(CPU_PRESSURE_STALL).functionCounter().count();
        assertThat(stall).isPositive();
        assertThat(registry.get(RUNNABLE).gauge().value()).isNotNaN().isPositive();

        long ticks = listener.sampler().ticks();
        BreakingProbe.losesSystem = true;
        // waited for, not slept for: a loaded machine may run the sampler's thread later than a fixed 0.5 s (1 s
        // late, it failed)
        awaitTwoTicksAfter(listener.sampler(), ticks);
        assertThat(registry.get(CPU_PRESSURE_STALL).functionCounter().count()).isGreaterThanOrEqualTo(stall);
        assertThat(registry.get(RUNNABLE).gauge().value()).isNaN();
    }

    /**
     * Waits until {@code sampler} has ticked twice since it had {@code ticks} (the first may have read before what the
     * test changed), for at most 10 s, and fails if it has not: a gauge read NaN without them, which isPositive() and
     * isGreaterThan() let by (AssertJ compares with Double.compare, which puts NaN above every number; only
     * isGreaterThanOrEqualTo(double) compares as Java does and fails).
     */
    private static void awaitTwoTicksAfter(Sampler sampler, long ticks) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sampler.ticks() < ticks + 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(sampler.ticks()).as("the sampler's ticks, 10 s after %d", ticks).isGreaterThanOrEqualTo(ticks + 2);
    }

    /** A probe that throws when a thread named {@link #BREAKS} reads its counters: an unexpected error. */
    private record BreakingProbe(KernelProbe probe) implements KernelProbe {

        static final String BREAKS = "test-breaker";
        static final String BREAKS_JVM = "test-breaker-jvm";
        /** From now on, system readings lack PSI's total and the runnable count. */
        static volatile boolean losesSystem;

        @Override
        public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
            if (Thread.currentThread().getName().equals(BREAKS)) {
                throw new IllegalStateException("a probe bug");
            }
            if (Thread.currentThread().getName().equals(BREAKS_JVM)) {
                throw new OutOfMemoryError("test: a native allocation failed");
            }
            return probe.readCurrentThread(handle, into);
        }

        @Override
        public String platform() {
            return probe.platform();
        }

        @Override
        public boolean isOperational() {
            return probe.isOperational();
        }

        @Override
        public long currentThreadId() {
            return probe.currentThreadId();
        }

        @Override
        public ThreadHandle openThread(long tid) {
            return probe.openThread(tid);
        }

        @Override
        public ThreadHandle openCurrentThread() {
            return probe.openCurrentThread();
        }

        @Override
        public boolean readSystem(SystemStats into) {
            boolean read = probe.readSystem(into);
            if (losesSystem) { // a file that still reads but lacks its values
                into.setPressure(into.cpuPressureSomeAvg10(), ThreadStats.UNSUPPORTED)
                        .setLoad(into.load1(), ThreadStats.UNSUPPORTED);
            }
            return read;
        }

        @Override
        public ThreadActuator actuator() {
            return probe.actuator();
        }

        @Override
        public void close() {
            probe.close();
        }
    }

    /** A new page's request starts light and is moved heavy at a yield point: it takes heavy's nice from there on. */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldGiveAMovedRequestItsNewClassNiceAndCountItOnce() throws Exception {
        start(Map.of("nice.heavy", "10"));
        KernelProbe probe = KernelProbes.create();
        long[] nice = worker.submit(() -> {
            long tid = probe.currentThreadId();
            ThreadStats s = new ThreadStats();
            listener.enter("light");
            probe.actuator().readScheduling(tid, s);
            long asLight = s.nice();
            listener.move("light", "heavy");
            probe.actuator().readScheduling(tid, s);
            long moved = s.nice();
            listener.exit("heavy");
            probe.actuator().readScheduling(tid, s);
            return new long[] {asLight, moved, s.nice()};
        }).get();

        assertThat(nice).as("as light, moved heavy, after").containsExactly(0, 10, 0);
        assertThat(registry.get(REQUEST_CPU).tag(TAG_CLASS, "heavy").summary().count()).isEqualTo(1);
        assertThat(registry.get(REQUEST_CPU).tag(TAG_CLASS, "light").summary().count()).isZero();
        assertThat(registry.get(ACTUATOR_FAILURES).tag(TAG_ACTUATOR, "nice").functionCounter().count()).isZero();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldGiveAThreadTheClassSliceWhileItServesTheClass() throws Exception {
        KernelProbe probe = KernelProbes.create();
        assumeTrue(probe.actuator().supportsSlice(), "per-thread EEVDF slices need Linux 6.12+, this is "
                + System.getProperty("os.version"));
        start(Map.of("slice.heavy", "2ms"));
        long[] slice = worker.submit(() -> {
            long tid = probe.currentThreadId();
            String sched = "/proc/self/task/" + tid + "/sched";
            long before = seSlice(sched);
            listener.enter("heavy");
            long during = seSlice(sched);
            listener.exit("heavy");
            return new long[] {before, during, seSlice(sched)};
        }).get();

        assertThat(slice[1]).isEqualTo(2_000_000L);
        assertThat(slice[2]).isEqualTo(slice[0]);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldEndTheSamplerThreadAndRemoveItsMetersOnStop() throws Exception {
        start(Map.of());
        assertThat(samplerThreads()).hasSize(1);
        assertThat(registry.getMeters()).isNotEmpty();

        listener.stop();

        assertThat(samplerThreads()).isEmpty();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(listener.isActive()).isFalse();
        listener.enter("heavy"); // after stop: nothing happens, nothing breaks
        listener.exit("heavy");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldTagEveryMeterWithItsApplicationAndRemoveOnlyItsOwnOnStop() {
        start(Map.of());
        KernelProbeListener shop = new KernelProbeListener(w -> KernelProbes.create(System.getProperty("os.name"),
                Path.of("/proc"), w), warnings::add);
        shop.start(new TestContext(CLASSES, registry, Map.of(), "/shop"));
        Set<Meter.Id> root;
        try {
            root = meterIds("/");
            assertThat(root).isNotEmpty();
            assertThat(meterIds("/shop")).as("the same meters for the second application").hasSameSizeAs(root);
            assertThat(registry.getMeters()).as("every meter names its application")
                    .allSatisfy(m -> assertThat(m.getId().getTag(TAG_APPLICATION)).isIn("/", "/shop"));
        } finally {
            shop.stop();
        }

        assertThat(meterIds("/shop")).as("the stopped application's meters").isEmpty();
        assertThat(meterIds("/")).as("the running application's meters").isEqualTo(root);
    }

    private Set<Meter.Id> meterIds(String application) {
        return registry.getMeters().stream().map(Meter::getId)
                .filter(id -> application.equals(id.getTag(TAG_APPLICATION))).collect(Collectors.toSet());
    }

    @Test
    void shouldRejectBadSettingsNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> start(Map.of("nice.heavy", "25")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kernel-probe.nice.heavy")
                .hasMessageContaining("25");
        assertThatThrownBy(() -> start(Map.of("slice.medium", "1ms")))
                .hasMessageContaining("kernel-probe.slice.medium").hasMessageContaining("not configured");
        assertThatThrownBy(() -> start(Map.of("interval", "1000")))
                .hasMessageContaining("kernel-probe.interval").hasMessageContaining("'1000'");
        assertThatThrownBy(() -> start(Map.of("slice.heavy", "200ms")))
                .hasMessageContaining("kernel-probe.slice.heavy").hasMessageContaining("200ms");
        assertThatThrownBy(() -> start(Map.of("colour", "red")))
                .hasMessageContaining("unknown kernel probe setting kernel-probe.colour");
        listener = null;
    }

    /** A host that validates before the application starts (Spring Boot) gets start's refusals, and no probe. */
    @Test
    void shouldCheckSettingsAsStartWouldWithoutStartingTheProbe() {
        KernelProbeListener unstarted = new KernelProbeListener(w -> {
            throw new AssertionError("check must not open a probe");
        }, warnings::add);

        assertThatThrownBy(() -> unstarted.check(Map.of("nice.heavy", "25"), CLASSES))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kernel-probe.nice.heavy")
                .hasMessageContaining("25");
        assertThatThrownBy(() -> unstarted.check(Map.of("slice.medium", "1ms"), CLASSES))
                .hasMessageContaining("kernel-probe.slice.medium").hasMessageContaining("not configured");
        assertThatThrownBy(() -> unstarted.check(Map.of("enabled", "false", "nice.heavy", "10"), CLASSES))
                .hasMessageContaining("kernel-probe.nice.heavy is set, but kernel-probe.enabled is false");
        unstarted.check(Map.of("nice.heavy", "10", "interval", "2s"), CLASSES);

        assertThat(unstarted.isActive()).isFalse();
        assertThat(samplerThreads()).isEmpty();
        assertThat(warnings).isEmpty();
    }

    /**
     * A request class named none (a valid class name) would share the probe's idle class: its counters merged into
     * the time outside requests, its per-request meters at 0. Refused while the probe is on.
     */
    @Test
    void shouldRefuseARequestClassNamedNoneWhileTheProbeIsOn() {
        KernelProbeListener unstarted = new KernelProbeListener(w -> {
            throw new AssertionError("check must not open a probe");
        }, warnings::add);

        assertThatThrownBy(() -> unstarted.check(Map.of(), List.of("light", "none")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("classes names a request class 'none'")
                .hasMessageContaining("the kernel probe's name for a worker thread's time outside requests")
                .hasMessageContaining("[light, none]");
        unstarted.check(Map.of("enabled", "false"), List.of("light", "none"));
        assertThatThrownBy(() -> unstarted.start(new TestContext(List.of("light", "none"), registry, Map.of())))
                .hasMessageContaining("classes names a request class 'none'");
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldStayOffWithOneWarningWhenTheProbeCannotRunAndLeaveRequestsAlone(@TempDir Path fakeProc)
            throws Exception {
        Files.createDirectories(fakeProc.resolve("self"));
        listener = new KernelProbeListener(w -> KernelProbes.create("Linux", fakeProc, w), warnings::add);
        assertThat(listener.start(new TestContext(CLASSES, registry, Map.of()))).as("off: the middleware logs so")
                .isFalse();

        worker.submit(() -> {
            listener.enter("heavy");
            listener.exit("heavy");
        }).get();

        assertThat(listener.isActive()).isFalse();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("kernel probe disabled").contains("requests are unaffected");
        assertThat(registry.getMeters()).isEmpty();
        assertThat(samplerThreads()).isEmpty();
    }

    @Test
    void shouldFailStartWhenActuatorsAreConfiguredButTheProbeCannotRun() {
        listener = new KernelProbeListener(w -> KernelProbes.create("Plan 9", Path.of("/proc"), w), warnings::add);

        assertThatThrownBy(() -> listener.start(new TestContext(CLASSES, registry, Map.of("nice.heavy", "5"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kernel-probe.nice.heavy")
                .hasMessageContaining("Plan 9");
    }

    @Test
    void shouldDoNothingWhenDisabled() {
        listener = new KernelProbeListener(w -> KernelProbes.create(System.getProperty("os.name"), Path.of("/proc"),
                w), warnings::add);
        assertThat(listener.start(new TestContext(CLASSES, registry, Map.of("enabled", "FALSE"))))
                .as("off: the middleware logs so").isFalse();

        assertThat(listener.isActive()).isFalse();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(warnings).isEmpty();
    }

    @Test
    void shouldFailStartWhenActuatorsAreConfiguredButTheProbeIsOff() {
        assertThatThrownBy(() -> start(Map.of("enabled", "false", "nice.heavy", "10")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kernel-probe.nice.heavy is set, but kernel-probe.enabled is false");
    }

    static long seSlice(String schedFile) {
        try {
            String text = Files.readString(Path.of(schedFile));
            Matcher m = Pattern.compile("(?m)^se\\.slice\\s+:\\s+(\\d+)").matcher(text);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Thread> samplerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(Sampler.THREAD_NAME) && t.isAlive()).collect(Collectors.toList());
    }

}
