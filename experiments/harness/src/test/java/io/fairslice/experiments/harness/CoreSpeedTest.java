package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoreSpeedTest {

    @Test
    void shouldCallAHostSteadyWhenItsSlowestSampleIsWithinTwentyPercentOfItsFastest() {
        CoreSpeed.Samples steady = CoreSpeed.Samples.parse("803.4\n834.3\n\n845.0\n");

        assertThat(steady.millis()).containsExactly(803.4, 834.3, 845.0);
        assertThat(steady.steady()).isTrue();
        assertThat(steady.median()).isEqualTo(834.3);
        assertThat(steady.describe()).isEqualTo("803-845 ms (median 834) over 3 samples of a fixed unit of work");
    }

    @Test
    void shouldSayHowFarFromSteadyAHostThatChangesSpeedIs() {
        // the 1 MB walk's samples on this project's VM on 2026-11-27
        CoreSpeed.Samples unsteady = new CoreSpeed.Samples(List.of(299.0, 480.0, 897.0, 315.0));

        assertThat(unsteady.steady()).isFalse();
        assertThat(unsteady.median()).isEqualTo(397.5);
        assertThat(unsteady.describe()).isEqualTo("299-897 ms (median 398) over 4 samples of a fixed unit of work: "
                + "not steady (slowest 3.00x the fastest)");
    }

    /** Steady at each end, but slower after the run than before it by more than the steady spread: said. */
    @Test
    void shouldSayWhenTheHostRanTheCoreAtAnotherSpeedAfterTheRunThanBeforeIt() {
        CoreSpeed.Samples before = new CoreSpeed.Samples(List.of(29.0, 30.0, 30.0));
        CoreSpeed.Samples after = new CoreSpeed.Samples(List.of(44.0, 45.0, 46.0));

        assertThat(CoreSpeed.change(before, after))
                .isEqualTo("median 45 ms after the run against 30 ms before it: 1.50x");
        assertThat(CoreSpeed.change(after, before))
                .isEqualTo("median 30 ms after the run against 45 ms before it: 0.67x");
        assertThat(CoreSpeed.change(before, new CoreSpeed.Samples(List.of(33.0, 34.0)))).as("1.12x: steady").isNull();
        assertThat(CoreSpeed.change(null, after)).as("not sampled before").isNull();
    }

    @Test
    void shouldRefuseOutputThatIsNotSamples() {
        assertThatThrownBy(() -> CoreSpeed.Samples.parse("812.0\nError: could not find main class\n"))
                .hasMessage("core speed: not a number of ms: 'Error: could not find main class'");
        assertThatThrownBy(() -> CoreSpeed.Samples.parse("")).hasMessage("no samples");
    }

    /**
     * The sampler's JVM tells of JAVA_TOOL_OPTIONS on its standard error; merged into the output, that line was read
     * as a sample and refused, and the core's speed went unsampled.
     */
    @Test
    void shouldReadTheSamplesFromTheSamplersOutputOnly(@TempDir Path dir) throws Exception {
        Path quantum = Files.writeString(dir.resolve("sched_rr_timeslice_ms"), "100\n");
        Path throttle = Files.writeString(dir.resolve("sched_rt_runtime_us"), "950000\n");
        Path log = dir.resolve("logs/core-speed-start.log");
        try (Host host = new Host(quantum, throttle)) {
            CoreSpeed.Samples samples = host.sample(List.of("sh", "-c",
                    "echo 'Picked up JAVA_TOOL_OPTIONS: -Xss1m' >&2; echo 30.1; echo 30.5"), log);

            assertThat(samples.millis()).containsExactly(30.1, 30.5);
        }
        assertThat(Files.readString(dir.resolve("logs/core-speed-start.log.stderr")))
                .isEqualTo("Picked up JAVA_TOOL_OPTIONS: -Xss1m\n");
        try (Host host = new Host(quantum, throttle)) {
            host.sample(List.of("sh", "-c", "echo 30.1"), log);
        }
        assertThat(dir.resolve("logs/core-speed-start.log.stderr")).as("removed when empty").doesNotExist();
    }

    @Test
    void shouldPrintOneSampleOfCpuTimePerLine() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            CoreSpeed.main(new String[] {"2", "0"});
        } finally {
            System.setOut(saved);
        }

        CoreSpeed.Samples samples = CoreSpeed.Samples.parse(bytes.toString(StandardCharsets.UTF_8));
        assertThat(samples.millis()).hasSize(2).allSatisfy(ms -> assertThat(ms).isPositive());
    }

    @Test
    void shouldWalkEveryIntOfTheCycleBeforeComingBack() {
        int[] next = CoreSpeed.cycle();
        int p = 0;
        int steps = 0;
        do {
            p = next[p];
            steps++;
        } while (p != 0 && steps <= next.length);

        assertThat(steps).as("one cycle through all of them, not a shorter loop the caches would hold").isEqualTo(
                next.length);
    }
}
