package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness for real, small: the study server and Gatling in JVMs of their own (pinned when the machine has two
 * cores), two points of a few seconds, then the data files, figures and report. The timeouts guard against a hang
 * only: on the slowest host seen (2026-12-01, an AMD EPYC VM whose core ran the harness's unit of work in 82-101 ms
 * against the Intel host's 25-30) the tests took 78, 154 and 178 s, most of it Gatling JVMs starting (about 8 s each,
 * twelve of them for the fresh-server test); the Gatling JVMs here compile with C1 only, which took that test to
 * 124 s.
 */
class StudyEndToEndTest {

    @TempDir
    Path out;

    /**
     * Two points measured against a real server, their data files and report; then that run taken as one interrupted
     * before its second configuration, resumed (one run serves both: a configuration's run is a minute and a half of
     * the test command).
     */
    @Test
    @Timeout(360)
    void shouldMeasureTwoPointsWriteTheReportThenKeepThemWhenTheRunGoesOnWithTheRest() throws Exception {
        // an earlier run in `out` that finished none@default and was interrupted before observe@default
        StudyConfig config = small("none@default, observe@default");
        // surefire runs the tests from a manifest-only jar; this property holds the real class path
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        StudyRunner.Classpaths classpaths = new StudyRunner.Classpaths(classpath, classpath, List.of(), List.of());
        ByteArrayOutputStream firstConsole = new ByteArrayOutputStream();
        StudyResult first = new StudyRunner(small("none@default"), classpaths, out, new PrintStream(
                firstConsole, true, StandardCharsets.UTF_8)).run();
        Path report = out.resolve("report-of-the-first-run"); // a folder of its own: the resumed run goes on in `out`
        ResultsFiles.write(first, report); // as ./fairslice study does at the end, the core's speed at the end in
        String headline = Report.write(first, report);

        assertThat(first.outcomes()).singleElement()
                .satisfies(o -> assertThat(o.status()).as(o.message() + "\n" + firstConsole)
                        .isEqualTo(ConfigurationOutcome.Status.MEASURED));
        assertThat(first.points()).extracting(PointResult::heavyUsers)
                .as("heaviest first, the light-only reference last").containsExactly(4, 0);
        PointResult mixed = first.points().get(0);
        PointResult lightOnly = first.points().get(1);
        assertThat(lightOnly.light().throughput()).as("light req/s with no heavy clients").isGreaterThan(10);
        assertThat(lightOnly.light().failed()).isZero();
        assertThat(lightOnly.heavy().requests()).isZero();
        assertThat(mixed.light().throughput()).isGreaterThan(1);
        assertThat(mixed.heavy().throughput()).as("heavy req/s with 4 heavy clients").isGreaterThan(0);
        assertThat(mixed.heavy().p50Millis()).isGreaterThan(0);
        for (PointResult p : first.points()) {
            assertThat(p.serverCpu()).as("server CPU share").isBetween(0.05, 1.1);
            assertThat(p.windowSeconds()).isEqualTo(5.0);
        }
        assertThat(headline).startsWith("light retention at 4 heavy clients: none@default ");
        for (String fact : List.of(StudyRunner.CORE_SPEED_AT_START, StudyRunner.CORE_SPEED_AT_END)) {
            assertThat(first.machine().get(fact)).as(fact + "\n" + firstConsole)
                    .matches("\\d+-\\d+ ms \\(median \\d+\\) over 6 samples of a fixed unit of work.*");
        }
        assertThat(Files.readString(report.resolve("run.properties"))).contains("machine.core_speed_at_end=");
        assertThat(Files.readAllLines(out.resolve("logs/core-speed-end.log"))).as("the sampler's output").hasSize(6);

        assertThat(Files.readAllLines(out.resolve("points.csv"))).hasSize(3);
        assertThat(Files.readString(out.resolve("points.json"))).contains("\"heavyUsers\": 4");
        assertThat(Files.readString(report.resolve("report.md"))).contains("| this run: none@default | 4 | ");
        assertThat(report.resolve("report.html")).isNotEmptyFile();
        assertThat(report.resolve("figures/throughput.png")).isNotEmptyFile();
        assertThat(report.resolve("figures/throughput.svg")).isNotEmptyFile();
        try (Stream<Path> files = Files.walk(out.resolve("gatling"))) {
            assertThat(files.filter(p -> p.getFileName().toString().equals("simulation.log")).count())
                    .as("one simulation.log for the JIT warm-up, and per point a settling step and its window")
                    .isEqualTo(5);
        }
        assertThat(out.resolve("gatling/none-default-h04-r1-settle-0s")).isDirectory();
        assertThat(firstConsole.toString(StandardCharsets.UTF_8)).contains("ETA").contains("none@default: H=4 rep 1/1");

        // what the runner wrote after its configuration, before returning: the data files of a run cut short
        StudyResult interrupted = ResultsFiles.read(out);
        assertThat(interrupted.points()).hasSize(2);
        assertThat(interrupted.settings()).containsEntry("completed", "1 of 1 configurations");
        StudyResult previous = new StudyResult(interrupted.runId(), config.describe(), interrupted.machine(),
                interrupted.points(), interrupted.outcomes(), interrupted.startEpochMillis(),
                interrupted.endEpochMillis(), interrupted.heaviest());
        ByteArrayOutputStream console = new ByteArrayOutputStream();

        StudyResult resumed = new StudyRunner(config, classpaths, out, new PrintStream(console, true,
                StandardCharsets.UTF_8), withRunSettings(previous, classpaths)).run();

        assertThat(console.toString(StandardCharsets.UTF_8)).contains("none@default was measured before; kept")
                .contains("observe@default: H=4 rep 1/1").doesNotContain("none@default: H=0");
        assertThat(resumed.points().subList(0, 2)).isEqualTo(interrupted.points());
        assertThat(interrupted.points()).extracting(PointResult::startEpochMillis)
                .isEqualTo(first.points().stream().map(PointResult::startEpochMillis).toList());
        assertThat(resumed.points()).extracting(PointResult::configuration)
                .containsExactly("none@default", "none@default", "observe@default", "observe@default");
        assertThat(resumed.outcomes()).extracting(ConfigurationOutcome::status)
                .containsExactly(ConfigurationOutcome.Status.MEASURED, ConfigurationOutcome.Status.MEASURED);
        assertThat(resumed.startEpochMillis()).isEqualTo(first.startEpochMillis());
        assertThat(resumed.settings()).containsKey("resumed").containsEntry("completed", "2 of 2 configurations");
        assertThat(ResultsFiles.read(out).points()).hasSize(4);
        // each page's part of the server's CPU comes from fairslice's own meter, which the baseline does not have
        assertThat(resumed.points().subList(0, 2)).allSatisfy(p -> assertThat(p.lightCpu()).isNaN());
        PointResult observed = resumed.points().get(2);
        assertThat(observed.lightCpu()).as("the light page's part of the server's CPU at H=4").isBetween(0.01, 1.0);
        assertThat(observed.heavyCpu()).as("the heavy page's part").isBetween(0.01, 1.0);
        assertThat(observed.lightCpu() + observed.heavyCpu()).isLessThanOrEqualTo(1.05);
        assertThat(resumed.points().get(3).heavyCpu()).as("no heavy clients at H=0").isZero();
    }

    @Test
    @Timeout(360)
    void shouldStartAFreshServerForEveryRepetitionAndRunTheRepetitionsInRounds() throws Exception {
        // the second configuration's servers run under SCHED_BATCH (chrt -b 0, allowed without privileges)
        StudyConfig config = small("none@default, observe@batch").with(Map.of("heavyUsers", "0",
                "repetitions", "2", "freshServer", "repetition"));
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream console = new ByteArrayOutputStream();

        StudyResult result = new StudyRunner(config, new StudyRunner.Classpaths(classpath, classpath, List.of(),
                List.of()), out, new PrintStream(console, true, StandardCharsets.UTF_8)).run();

        assertThat(result.outcomes()).extracting(ConfigurationOutcome::status).as(console.toString(
                StandardCharsets.UTF_8)).containsExactly(ConfigurationOutcome.Status.MEASURED,
                ConfigurationOutcome.Status.MEASURED);
        // rounds: every configuration's first repetition, then every configuration's second
        assertThat(result.points()).extracting(p -> p.configuration() + " r" + p.repetition())
                .containsExactly("none@default r1", "observe@batch r1", "none@default r2", "observe@batch r2");
        assertThat(result.settings()).containsEntry("freshServer", "repetition")
                .containsEntry("completed", "2 of 2 configurations");
        assertThat(ResultsFiles.read(out).points()).hasSize(4);
        // each server's log names its first repetition, and each had its own JIT warm-up
        assertThat(out.resolve("logs/none-default-r1-server.log")).exists();
        assertThat(out.resolve("logs/none-default-r2-server.log")).exists();
        assertThat(out.resolve("gatling/none-default-r2-jit")).isDirectory();
        assertThat(Files.readString(out.resolve("logs/observe-batch-r1-server.log.cmd"))).startsWith("chrt -b 0 ");
        assertThat(Files.readString(out.resolve("logs/none-default-r1-server.log.cmd"))).doesNotStartWith("chrt");
        assertThat(result.machine()).containsEntry("sched_batch", "available (chrt -b 0)");
        String text = console.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("none@default: starting the server for repetition 1")
                .contains("none@default: starting the server for repetition 2");
        assertThat(text.indexOf("starting the server for repetition 2"))
                .as("the second server starts after the first repetition's point")
                .isGreaterThan(text.indexOf("H=0 rep 1/2"));
    }

    /** The previous run's settings as the runner records them (the config's plus the class path's). */
    private static StudyResult withRunSettings(StudyResult r, StudyRunner.Classpaths classpaths) {
        Map<String, String> settings = new LinkedHashMap<>(r.settings());
        settings.put("source", StudyRunner.source());
        settings.put("components", Components.describe(classpaths));
        settings.put("extraServerJvmOptions", String.join(" ", classpaths.serverJvmOptions()));
        settings.put("weaving", "none (no yield points woven)");
        return new StudyResult(r.runId(), settings, r.machine(), r.points(), r.outcomes(), r.startEpochMillis(),
                r.endEpochMillis(), r.heaviest());
    }

    /**
     * Two points of a few seconds, 5 light clients and 0 or 4 heavy ones, small heap and document. The loaded point
     * comes first, right after the short warm-up, with the JIT compiler at a quarter of the server: its window is 5 s,
     * so that the meter sampler (one scrape a second) spans it and heavy requests end inside it.
     */
    private static StudyConfig small(String configurations) {
        return StudyConfig.quick().with(Map.of(
                "configurations", configurations,
                "heavyUsers", "0, 4",
                "lightUsers", "5",
                "warmUp", "1s",
                "measure", "5s",
                "jitWarmUp", "1s",
                "retries", "0",
                "documentSize", "256KB",
                "serverJvmOptions", "-XX:+UseSerialGC -Xms256m -Xmx512m",
                // C1 only: the load generator starts in about two thirds of the time, and nothing here measures it
                "gatlingJvmOptions", "-Xmx512m -XX:TieredStopAtLevel=1"))
                .with(Map.of("jitSettle", "2s")); // one short settling step
    }
}
