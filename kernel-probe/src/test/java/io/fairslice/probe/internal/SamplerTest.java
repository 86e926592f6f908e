package io.fairslice.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the sampler publishes for the system gauges, driven tick by tick against a scripted probe. */
class SamplerTest {

    private final AttributionTest.ScriptedProbe probe = new AttributionTest.ScriptedProbe();
    private final List<String> warnings = new ArrayList<>();
    private final Attribution attribution = new Attribution(probe, List.of("light", "heavy"), "none", Map.of(),
            Map.of(), warnings::add);

    private Sampler sampler() {
        return new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, warnings::add);
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

    @Test
    void shouldWarnWhenItsFirstTickFailsAndStops() throws Exception {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Sampler sampler = new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, seen::add);
        probe.readSystemFailure = new IllegalStateException("no /proc");
        sampler.start();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (seen.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        sampler.stop();

        assertThat(seen).singleElement().asString().contains("the sampler failed and stopped").contains("no /proc");
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
