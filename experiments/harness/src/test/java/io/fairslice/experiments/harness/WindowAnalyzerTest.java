package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WindowAnalyzerTest {

    @TempDir
    Path dir;

    @Test
    void shouldCountOnlyRequestsThatEndInsideTheWindow() throws Exception {
        SimulationLogWriter w = new SimulationLogWriter(10_000L, List.of("light", "heavy"));
        w.request("light:/light", 900, 999, true, "");      // ends before the window: warm-up
        for (int i = 0; i < 10; i++) {
            w.request("light:/light", 1000 + i * 100, 1000 + i * 100 + 1 + i, true, "");
        }
        w.request("light:/light", 1990, 2000, true, "");    // ends exactly at the window's end: not in it
        w.request("heavy:/heavy", 500, 1500, true, "");
        Path log = w.writeTo(dir.resolve("simulation.log"));

        WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, 1000, 2000);

        assertThat(window.light().requests()).isEqualTo(10);
        assertThat(window.light().throughput()).isCloseTo(10.0, within(1e-9));
        assertThat(window.light().p50Millis()).isEqualTo(5);
        assertThat(window.light().p99Millis()).isEqualTo(10);
        assertThat(window.light().maxMillis()).isEqualTo(10);
        assertThat(window.heavy().requests()).isEqualTo(1);
        assertThat(window.heavy().p50Millis()).isEqualTo(1000);
        assertThat(window.fromEpochMillis()).isEqualTo(11_000L);
        assertThat(window.toEpochMillis()).isEqualTo(12_000L);
    }

    /**
     * Three heavy clients start with the load (at 5-12 ms) and their first requests end at 3.1, 6.2 and 7.4 s, each
     * client's next beginning as its first ends, whatever order the log has them in. With a 5 s warm-up the window
     * began with two of them running, and the harness said nothing of it.
     */
    @Test
    void shouldTellWhenTheLoadsFirstHeavyRequestsEndedAndWarnWhenThatIsPastTheWarmUp() throws Exception {
        Path log = new SimulationLogWriter(0L, List.of("light", "heavy"))
                .request("light:/light", 0, 40, true, "")
                .request("heavy:/heavy", 8, 6200, true, "")
                .request("heavy:/heavy", 3100, 9000, true, "") // before 6.2 s, but after a first request ended
                .request("heavy:/heavy", 5, 3100, true, "")
                .request("heavy:/heavy", 12, 7400, true, "")
                .request("heavy:/heavy", 6200, 12000, true, "")
                .request("heavy:/heavy", 7400, 13000, true, "")
                .writeTo(dir.resolve("simulation.log"));

        WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, 5000, 17000);

        assertThat(window.firstHeavyEndMillis()).isEqualTo(7400);
        assertThat(StudyRunner.warmUpShort("share@rr-100ms", 3, Duration.ofSeconds(5),
                window.firstHeavyEndMillis())).isEqualTo("share@rr-100ms H=3: the load's first heavy requests ran "
                + "until 7.4 s into it, past the 5s warm-up, so its window holds the load's start; set warmUp above "
                + "that (8s or more)");
        assertThat(StudyRunner.warmUpShort("share@rr-100ms", 3, Duration.ofMillis(7401), 7400)).isNull();
        Path lightOnly = new SimulationLogWriter(0L, List.of("light"))
                .request("light:/light", 0, 40, true, "")
                .writeTo(dir.resolve("light-only.log"));
        assertThat(WindowAnalyzer.analyze(lightOnly, 5000, 17000).firstHeavyEndMillis()).isEqualTo(-1);
    }

    /**
     * A heavy client's first request shed at once (a 503 in 2 ms, the class full as the load began) ends before another
     * client's first request has started (Gatling starts them over some ms): that one, served for 9 s, is still one of
     * the load's first, and an 8.5 s warm-up is said to be short.
     */
    @Test
    void shouldCountAFirstHeavyRequestThatStartedAfterAnotherWasShedAtOnce() throws Exception {
        Path log = new SimulationLogWriter(0L, List.of("light", "heavy"))
                .request("heavy:/heavy", 5, 7, false, "status.find.in([200, 209], 304), but actually found 503")
                .request("heavy:/heavy", 6, 8000, true, "")
                .request("heavy:/heavy", 9, 9000, true, "")
                .request("heavy:/heavy", 8000, 15000, true, "")
                .request("heavy:/heavy", 9000, 16000, true, "")
                .writeTo(dir.resolve("simulation.log"));

        WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, 8500, 20000);

        assertThat(window.firstHeavyEndMillis()).as("the 9 ms client's first request ended at 9 s").isEqualTo(9000);
    }

    /**
     * Nearest rank over enough samples that p99 is not the maximum: 1 000 requests of 1..1 000 ms, shuffled, give p50
     * 500, p90 900, p99 990 (an off-by-one rank would give 989 or 991).
     */
    @Test
    void shouldTakeNearestRankPercentilesOverTheWindowsLatencies() throws Exception {
        SimulationLogWriter w = new SimulationLogWriter(10_000L, List.of("light", "heavy"));
        List<Integer> latencies = new ArrayList<>(IntStream.rangeClosed(1, 1000).boxed()
                .toList());
        Collections.shuffle(latencies, new Random(7));
        for (int latency : latencies) {
            w.request("light:/light", 1000, 1000 + latency, true, "");
        }
        Path log = w.writeTo(dir.resolve("simulation.log"));

        ClassStats light = WindowAnalyzer.analyze(log, 1000, 3000).light();

        assertThat(light.requests()).isEqualTo(1000);
        assertThat(light.p50Millis()).isEqualTo(500);
        assertThat(light.p90Millis()).isEqualTo(900);
        assertThat(light.p99Millis()).isEqualTo(990);
        assertThat(light.maxMillis()).isEqualTo(1000);
        assertThat(light.meanMillis()).isCloseTo(500.5, within(1e-9));
    }

    @Test
    void shouldSeparateRejectionsFromOtherFailures() throws Exception {
        Path log = new SimulationLogWriter(0L, List.of("light"))
                .request("light:/light", 100, 110, false, "status.find.in([200, 209], 304), but actually found 503")
                .request("light:/light", 120, 130, false, "status.find.in([200, 209], 304), but actually found 429")
                .request("light:/light", 140, 150, false, "status.find.in([200, 209], 304), but actually found 500")
                .request("light:/light", 160, 170, false, "Request timeout to 127.0.0.1/127.0.0.1:8080 after 60000 ms")
                .request("light:/light", 180, 190, true, "")
                .writeTo(dir.resolve("simulation.log"));

        ClassStats light = WindowAnalyzer.analyze(log, 0, 1000).light();

        assertThat(light.requests()).isEqualTo(5);
        assertThat(light.ok()).isEqualTo(1);
        assertThat(light.rejected()).isEqualTo(2);
        assertThat(light.failed()).isEqualTo(2);
        assertThat(light.throughput()).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void shouldReportTheAgeOfTheOldestRequestStillOpenAtTheWindowsEnd() throws Exception {
        Path log = new SimulationLogWriter(0L, List.of("light"))
                .request("light:/light", 1200, 2600, true, "")     // open at 2000 for 800 ms
                .request("light:/light", 1900, 2100, true, "")     // open for 100 ms
                .request("light:/light", 1500, 1600, true, "")
                .writeTo(dir.resolve("simulation.log"));

        ClassStats light = WindowAnalyzer.analyze(log, 1000, 2000).light();

        assertThat(light.oldestOpenMillis()).isEqualTo(800);
        assertThat(light.requests()).isEqualTo(1);
    }

    @Test
    void shouldGiveNoPercentilesForAClassWithoutSuccessfulRequests() throws Exception {
        Path log = new SimulationLogWriter(0L, List.of("light"))
                .request("light:/light", 100, 110, true, "")
                .writeTo(dir.resolve("simulation.log"));

        ClassStats heavy = WindowAnalyzer.analyze(log, 0, 1000).heavy();

        assertThat(heavy.requests()).isZero();
        assertThat(heavy.throughput()).isZero();
        assertThat(heavy.p99Millis()).isEqualTo(-1);
    }

    @Test
    void shouldAgreeWithTheRecordedFixtureOverTheWholeRun() throws Exception {
        WindowAnalyzer.Window all = WindowAnalyzer.analyze(SimulationLogTest.fixture(), 0, 60_000);

        assertThat(all.light().requests()).isEqualTo(793 + 790);
        assertThat(all.heavy().requests()).isEqualTo(22);
        assertThat(all.light().p50Millis()).isLessThanOrEqualTo(all.light().p90Millis());
        assertThat(all.light().p90Millis()).isLessThanOrEqualTo(all.light().p99Millis());
        assertThat(all.light().p99Millis()).isLessThanOrEqualTo(all.light().maxMillis());
    }

    @Test
    void shouldRejectAnEmptyWindow() {
        assertThatThrownBy(() -> WindowAnalyzer.analyze(dir.resolve("x"), 2000, 2000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the window must satisfy 0 <= from < to, got [2000, 2000) ms");
    }
}
