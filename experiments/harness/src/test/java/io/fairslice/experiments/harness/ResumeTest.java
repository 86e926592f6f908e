package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Going on with an interrupted run: its own settings come back, and a changed setting or machine is refused. */
class ResumeTest {

    @TempDir
    Path dir;

    private static final Map<String, String> MACHINE = Map.of("cpu", "Xeon", "cores", "2",
            "sched_rr_timeslice_ms_at_start", "100");

    private static StudyResult run(StudyConfig config, Map<String, String> machine) {
        Map<String, String> settings = new LinkedHashMap<>(config.describe());
        settings.put("weaving", "none (no yield points woven)");
        settings.put("completed", "1 of 17 configurations");
        return new StudyResult("20261122-073929", settings, machine, List.of(), List.of(
                new ConfigurationOutcome("none@default", ConfigurationOutcome.Status.MEASURED, "")),
                1_700_000_000_000L, 1_700_000_500_000L, 40);
    }

    @Test
    void shouldRebuildTheRunsConfigFromWhatItRecorded() throws Exception {
        StudyConfig full = StudyConfig.full().with(Map.of("measure", "15s", "documentSize", "10MB",
                "serverJvmOptions", "-XX:+UseSerialGC -Xmx8g -Xmn6g"));
        ResultsFiles.write(run(full, MACHINE), dir);

        StudyConfig again = StudyMain.resumedConfig(ResultsFiles.read(dir));

        assertThat(again).isEqualTo(full);
    }

    @Test
    void shouldRefuseARunOfAnUnknownPreset() {
        StudyResult odd = run(StudyConfig.quick(), MACHINE);
        Map<String, String> settings = new LinkedHashMap<>(odd.settings());
        settings.put("preset", "nightly");
        StudyResult nightly = new StudyResult(odd.runId(), settings, MACHINE, List.of(), List.of(), 0, 0, 40);

        assertThatThrownBy(() -> StudyMain.resumedConfig(nightly)).hasMessageContaining("unknown preset 'nightly'");
    }

    @Test
    void shouldGoOnOnlyWithTheSameSettingsOnTheSameMachine() {
        StudyResult previous = run(StudyConfig.full(), MACHINE);
        Map<String, String> settings = new LinkedHashMap<>(previous.settings());
        settings.put("completed", "0 of 17 configurations");
        Map<String, String> machine = new LinkedHashMap<>(MACHINE);
        machine.put("sched_rr_timeslice_ms_at_start", "8");

        // the RR quantum found at start and the progress may differ; nothing else
        StudyRunner.checkResumable(previous, settings, machine);

        Map<String, String> woven = new LinkedHashMap<>(settings);
        woven.put("weaving", "-javaagent:aspectjweaver.jar (fairslice configurations only)");
        assertThatThrownBy(() -> StudyRunner.checkResumable(previous, woven, machine))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot resume 20261122-073929: setting weaving was 'none (no yield points "
                        + "woven)', now '-javaagent:aspectjweaver.jar");
        Map<String, String> other = new LinkedHashMap<>(machine);
        other.put("cpu", "EPYC");
        assertThatThrownBy(() -> StudyRunner.checkResumable(previous, settings, other))
                .hasMessageContaining("on another machine: machine fact cpu was 'Xeon', now 'EPYC'");
        Map<String, String> newer = new LinkedHashMap<>(machine);
        newer.put("sched_new_policy", "available");
        assertThatThrownBy(() -> StudyRunner.checkResumable(previous, settings, newer))
                .hasMessageContaining("cannot resume 20261122-073929: it was started by a harness that did not record"
                        + " machine fact sched_new_policy (now 'available'); start a new run");
    }

    /**
     * A resumed run removes the report an earlier end or --report left: until the run ends it would read as the
     * run's report. Every configuration of this run was measured, so it starts no server (only the core speed
     * sampler's JVM, twice).
     */
    @Test
    @Timeout(120)
    void shouldRemoveTheEarlierReportWhenARunGoesOn() throws Exception {
        StudyResult previous = measuredRun(Map.of());
        ResultsFiles.write(previous, dir);
        Report.write(previous, dir);

        String console = goOn(previous);

        assertThat(console).contains("none@default was measured before; kept")
                .contains("the run's earlier report (report.md, report.html, figures/) is removed");
        assertThat(dir.resolve("report.md")).doesNotExist();
        assertThat(dir.resolve("report.html")).doesNotExist();
        assertThat(dir.resolve("figures/retention.png")).doesNotExist();
        assertThat(dir.resolve(ResultsFiles.POINTS_CSV)).exists();
    }

    /**
     * A run started on a host five times slower than this one goes on here: the run keeps its start's core speed and
     * its samples, and the resume's own, another speed, is warned of and recorded. The resume's samples replaced the
     * start's, and the end was compared with them: no warning.
     */
    @Test
    @Timeout(120)
    void shouldKeepTheStartsCoreSpeedAndWarnOfAnotherSpeedWhenARunGoesOn() throws Exception {
        String start = "340-360 ms (median 350) over 6 samples of a fixed unit of work";
        StudyResult previous = measuredRun(Map.of(StudyRunner.CORE_SPEED_AT_START, start));
        ResultsFiles.write(previous, dir);
        Path startLog = Files.createDirectories(dir.resolve("logs")).resolve("core-speed-start.log");
        Files.writeString(startLog, "340\n345\n350\n350\n355\n360\n");

        ByteArrayOutputStream console = new ByteArrayOutputStream();
        StudyResult resumed = new StudyRunner(RESUMED, CLASSPATHS, dir,
                new PrintStream(console, true, StandardCharsets.UTF_8), previous).run();

        assertThat(console.toString(StandardCharsets.UTF_8)).contains("warning: the server's core"
                + " runs at another speed as the run goes on than at its start (median ");
        assertThat(Files.readString(startLog)).as("the start's samples").isEqualTo("340\n345\n350\n350\n355\n360\n");
        assertThat(resumed.machine().get(StudyRunner.CORE_SPEED_AT_START)).isEqualTo(start);
        assertThat(resumed.machine().get(StudyRunner.CORE_SPEED_AT_RESUME)).contains("samples of a fixed unit");
        assertThat(resumed.machine().get(StudyRunner.CORE_SPEED_CHANGE))
                .as("the resume and the end, each against the start")
                .contains("as the run goes on against 350 ms at its start")
                .contains("after the run against 350 ms before it");
    }

    /** A run of none@default alone, measured (from the report fixture), with this host's facts and {@code facts}. */
    private StudyResult measuredRun(Map<String, String> facts) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>(RESUMED.describe());
        settings.put("source", StudyRunner.source());
        settings.put("components", Components.describe(CLASSPATHS));
        settings.put("extraServerJvmOptions", "");
        settings.put("weaving", "none (no yield points woven)");
        Map<String, String> machine;
        try (Host host = new Host()) {
            machine = host.facts();
        }
        machine.putAll(facts);
        return new StudyResult("earlier", settings, machine, ReportTest.fixture().points().stream()
                .filter(p -> p.configuration().equals("none@default")).toList(), List.of(
                new ConfigurationOutcome("none@default", ConfigurationOutcome.Status.MEASURED, "")),
                1_700_000_000_000L, 1_700_000_500_000L, 40);
    }

    /** Goes on with {@code previous} in {@link #dir}; its console. */
    private String goOn(StudyResult previous) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        new StudyRunner(RESUMED, CLASSPATHS, dir, new PrintStream(console, true, StandardCharsets.UTF_8),
                previous).run();
        return console.toString(StandardCharsets.UTF_8);
    }

    private static final StudyConfig RESUMED = StudyConfig.quick().with(Map.of("configurations", "none@default"));
    private static final String CLASSPATH = System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path"));
    private static final StudyRunner.Classpaths CLASSPATHS = new StudyRunner.Classpaths(CLASSPATH, CLASSPATH,
            List.of(), List.of());

    /** A new run in a run's folder rewrote its points.csv and the rest after its first configuration, unasked. */
    @Test
    void shouldRefuseANewRunInTheFolderOfAnotherRun() throws Exception {
        ResultsFiles.write(ReportTest.fixture(), dir);
        // one configuration whose server cannot start: were the run not refused, it would end in seconds
        Path config = Files.writeString(dir.resolve("one.properties"), "configurations = none@default\n");

        assertThatThrownBy(() -> StudyMain.run(new String[] {"--out", dir.toString(), "--config", config.toString(),
                "--server-classpath", dir.resolve("no-such.jar").toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--out " + dir + " holds a study run already (run.properties), whose data files a new run "
                        + "would overwrite: go on with it (--resume " + dir + "), make its report again (--report "
                        + dir + "), or give another folder");
        assertThat(ResultsFiles.read(dir).points()).isEqualTo(ReportTest.fixture().points());
        // --report (and --plan) still take it
        assertThat(StudyConfigTest.runQuietly("--report", dir.toString())).isZero();
        assertThat(StudyConfigTest.runQuietly("--plan", "--out", dir.toString())).isZero();
    }

    @Test
    void shouldNameADefaultFolderByTheTimeInUtc() {
        assertThat(StudyMain.defaultOut("results", Instant.parse("2026-12-02T23:30:05Z")))
                .isEqualTo(Path.of("results", "20261202-233005"));
    }

    @Test
    void shouldRefuseResumeWithOtherSettingsOnTheCommandLine() {
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--resume", dir.toString(), "--full"}))
                .hasMessageContaining("--resume takes the settings and the folder of the run it goes on with");
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--resume", dir.toString()}))
                .hasMessageContaining("no run.properties there");
    }
}
