package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.io.TempDir;

class StudyConfigTest {

    @TempDir
    Path dir;

    @Test
    void shouldMeasureBaselineAndShareAtNoneAndFortyHeavyClientsInTheQuickPreset() {
        StudyConfig quick = StudyConfig.quick();

        assertThat(quick.configurations()).extracting(Configuration::id)
                .containsExactly("none@default", "share@default", "none@rr-100ms", "share@rr-100ms");
        assertThat(quick.heavyUsers()).containsExactly(0, 40);
        assertThat(quick.lightUsers()).isEqualTo(30);
        assertThat(quick.heaviest()).isEqualTo(40);
    }

    @Test
    void shouldCoverEveryMiddlewareUnderEverySchedulerWhereItAppliesInTheFullPreset() {
        StudyConfig full = StudyConfig.full();

        // 7 middlewares x the study's 3 schedulers (not batch), less nice and slice under the two SCHED_RR schedulers
        assertThat(full.configurations()).hasSize(17);
        assertThat(full.configurations()).extracting(Configuration::middleware).containsOnly(Middleware.values());
        assertThat(full.configurations()).extracting(Configuration::scheduler)
                .containsOnlyElementsOf(Scheduler.fullPreset());
        assertThat(full.configurations()).extracting(Configuration::id)
                .contains("nice@default", "slice@default", "share@rr-8ms")
                .doesNotContain("nice@rr-100ms", "slice@rr-100ms", "nice@rr-8ms", "slice@rr-8ms");
        assertThat(full.heavyUsers()).containsExactly(0, 10, 20, 30, 40);
        assertThat(full.measurementOrder()).as("heaviest first, the light-only reference last")
                .containsExactly(40, 30, 20, 10, 0);
        assertThat(full.repetitions()).isEqualTo(3);
        assertThat(full.pointCount()).isEqualTo(17 * 5 * 3);
    }

    @Test
    void shouldRunTheWholeFullMatrixInTheTargetsFirstPreset() throws Exception {
        StudyConfig ordered = StudyConfig.full().withFile(Path.of("presets/full-targets-first.properties"));

        assertThat(ordered.configurations()).containsExactlyInAnyOrderElementsOf(StudyConfig.full().configurations());
        assertThat(ordered.configurations().subList(0, 6)).extracting(Configuration::middleware)
                .containsOnly(Middleware.NONE, Middleware.SHARE);
        assertThat(ordered.pointCount()).isEqualTo(StudyConfig.full().pointCount());
    }

    @Test
    void shouldMeasureFairsliceWithoutTheKernelProbeAndItsPeersWithIt() {
        // the probe's per-request attribution would be counted as the policy's cost; the peers act through it
        for (Middleware m : List.of(Middleware.OBSERVE, Middleware.SLEEP, Middleware.SHARE)) {
            assertThat(m.jvmOptions()).as(m.id()).contains("-Dfairslice.kernel-probe.enabled=false");
            assertThat(m.kernelProbe()).as(m.id()).isFalse();
        }
        assertThat(Middleware.NICE.kernelProbe()).isTrue();
        assertThat(Middleware.SLICE.kernelProbe()).isTrue();
        assertThat(Middleware.NONE.kernelProbe()).isFalse();
    }

    @Test
    void shouldSampleFairslicesMeterOnlyWhereTheServerRunsFairslice() {
        // the baseline and the Netflix peer run the server with --policy none: no meter, nothing to sample
        assertThat(Arrays.stream(Middleware.values()).filter(Middleware::fairsliceMeter))
                .containsExactlyInAnyOrder(Middleware.OBSERVE, Middleware.SLEEP, Middleware.SHARE, Middleware.NICE,
                        Middleware.SLICE);
    }

    @Test
    void shouldRefuseAKernelProbePeerUnderARealtimeScheduler() throws Exception {
        Path file = Files.writeString(dir.resolve("study.properties"), "configurations = none@default, nice@rr-8ms\n");

        assertThatThrownBy(() -> StudyConfig.quick().withFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nice@rr-8ms does not apply")
                .hasMessageContaining("SCHED_RR");
        assertThatThrownBy(() -> Configuration.parse("slice@rr-100ms"))
                .hasMessageContaining("slice@rr-100ms does not apply");
    }

    /** A duration too large to read (1000000000h, over 146 years) was said to be no duration at all. */
    @Test
    void shouldSayADurationIsTooLongRatherThanNoDuration() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("measure", "1000000000h")))
                .hasMessage("measure must be a duration such as 500ms, 20s or 2m, got '1000000000h' (too long to be"
                        + " read)");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("jitWarmUp", "99999999999H")))
                .hasMessageEndingWith("got '99999999999H' (too long to be read)");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("warmUp", "5 sec")))
                .hasMessage("warmUp must be a duration such as 500ms, 20s or 2m, got '5 sec'");
    }

    /** The properties format keeps a repeated key's last value without a word: measure = 12s, then 20s, ran 20 s. */
    @Test
    void shouldRefuseAKeyGivenTwiceInAConfigFile() throws Exception {
        Path file = Files.writeString(dir.resolve("study.properties"),
                "measure = 12s\nrepetitions = 2\nmeasure = 20s\n");

        assertThatThrownBy(() -> StudyConfig.quick().withFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + ": measure is given twice ('12s', then '20s'): give each key once");
    }

    @Test
    void shouldStartABatchServerUnderChrtAndKeepItOutOfTheFullPreset() {
        Configuration batch = Configuration.parse("share@batch");

        assertThat(batch.scheduler().launchPrefix()).containsExactly("chrt", "-b", "0");
        assertThat(batch.scheduler().realtime()).isFalse();
        assertThat(batch.scheduler().minimumCpuShare()).isEqualTo(Scheduler.DEFAULT.minimumCpuShare());
        assertThat(Scheduler.DEFAULT.launchPrefix()).isEmpty();
        assertThat(Scheduler.RR_8MS.launchPrefix()).containsExactly("chrt", "-r", "1");
        assertThat(Scheduler.fullPreset()).containsExactly(Scheduler.DEFAULT, Scheduler.RR_100MS, Scheduler.RR_8MS);
        // SCHED_BATCH threads are fair-class threads: the kernel probe's peers act on them
        assertThat(Configuration.parse("nice@batch").id()).isEqualTo("nice@batch");
    }

    @Test
    void shouldOverrideThePresetFromAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("study.properties"), """
                # two light pages, one heavy page, as in the study's second experiment
                configurations = none@default, sleep@rr-8ms
                heavyUsers = 0, 20
                lightPaths = /light,/light2
                measure = 30s
                serverJvmOptions = -XX:+UseSerialGC -Xmx8g -Xmn6g
                documentSize = 10MB
                """);

        StudyConfig config = StudyConfig.quick().withFile(file);

        assertThat(config.configurations()).extracting(Configuration::id)
                .containsExactly("none@default", "sleep@rr-8ms");
        assertThat(config.heavyUsers()).containsExactly(0, 20);
        assertThat(config.lightPaths()).isEqualTo("/light,/light2");
        assertThat(config.measure()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.serverJvmOptions()).containsExactly("-XX:+UseSerialGC", "-Xmx8g", "-Xmn6g");
        assertThat(config.documentSize()).isEqualTo("10MB");
        assertThat(config.warmUp()).isEqualTo(StudyConfig.quick().warmUp());
    }

    /** The subset preset's plan must fit in this; docs/study.md says so. */
    private static final int SUBSET_PLAN_LIMIT_MINUTES = 45;

    @Test
    void shouldKeepTheFullSubsetPresetWithinFortyFiveMinutesAndCoverEveryMiddleware() throws Exception {
        // the committed preset the lead runs; the harness's own plan (what the ETA starts from) must fit
        StudyConfig subset = StudyConfig.full().withFile(Path.of("presets/full-subset.properties"));

        assertThat(Progress.plannedSeconds(subset)).isLessThanOrEqualTo(SUBSET_PLAN_LIMIT_MINUTES * 60);
        assertThat(subset.configurations()).extracting(Configuration::middleware).containsOnly(Middleware.values());
        assertThat(subset.configurations()).extracting(Configuration::scheduler)
                .containsOnlyElementsOf(Scheduler.fullPreset());
        assertThat(subset.heavyUsers()).contains(0, 40);
        assertThat(subset.repetitions()).isEqualTo(1);
    }

    @Test
    void shouldStateThePlansTheHarnessComputesInTheDocsTheUsageAndThePreset() throws Exception {
        // they said about 2.5 hours for --full (planned 3h26m) and 27m29s for the subset (planned 40m40s)
        String full = plan(StudyConfig.full());
        String subset = plan(StudyConfig.full().withFile(Path.of("presets/full-subset.properties")));
        String targets = plan(StudyConfig.full().withFile(Path.of("presets/targets.properties")));
        String study = Files.readString(Path.of("../../docs/study.md")).replaceAll("\\s+", " ");

        assertThat(study).contains("--full # the whole matrix; it prints its plan (" + full + ")")
                .contains("Its plan is " + subset + " (`--plan`")
                .contains("fails if the preset's plan grows beyond " + SUBSET_PLAN_LIMIT_MINUTES + " minutes")
                .contains("the plan says " + targets);
        assertThat(StudyMain.USAGE).contains("(planned " + full + ";");
        assertThat(Files.readString(Path.of("presets/full-subset.properties"))).contains("its plan is " + subset);
        // without root the rr-* configurations and nice@default are not available and the rest runs: the preset's
        // comment said 16m45s for them where the docs said 14m21s
        StudyConfig subsetConfig = StudyConfig.full().withFile(Path.of("presets/full-subset.properties"));
        String withoutRoot = plan(subsetConfig.with(Map.of("configurations", String.join(", ",
                subsetConfig.configurations().stream().filter(c -> !c.scheduler().realtime()
                        && c.middleware() != Middleware.NICE).map(Configuration::id).toList()))));
        assertThat(study).contains("(6 configurations, planned " + withoutRoot + ")");
        assertThat(Files.readString(Path.of("presets/full-subset.properties")).replaceAll("\\s+", " "))
                .contains("(6 configurations: planned " + withoutRoot + ",");
        String quick = plan(StudyConfig.quick());
        assertThat(StudyMain.USAGE).contains("(planned " + quick + ";");
        assertThat(study).contains("--quick, the default: planned " + quick + ",");
    }

    private static String plan(StudyConfig config) {
        return Progress.clock(Duration.ofSeconds(Math.round(Progress.plannedSeconds(config))));
    }

    @Test
    void shouldKeepTheTargetsPresetToShareAndTheBaselineUnderEverySchedulerWithAServerPerRepetition()
            throws Exception {
        StudyConfig targets = StudyConfig.full().withFile(Path.of("presets/targets.properties"));

        assertThat(targets.configurations()).extracting(Configuration::middleware)
                .containsOnly(Middleware.NONE, Middleware.SHARE);
        assertThat(targets.configurations()).extracting(Configuration::scheduler)
                .containsOnlyElementsOf(Scheduler.fullPreset());
        assertThat(targets.heavyUsers()).containsExactly(0, 40);
        assertThat(targets.serversPerConfiguration()).isEqualTo(3);
        // the plan; the preset's comment says about 50 minutes, the settling steps beyond the first per point included
        assertThat(Progress.plannedSeconds(targets)).isBetween(35 * 60.0, 45 * 60.0);
    }

    @Test
    void shouldPrintThePlanAndRunNothingOnPlan() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = run(bytes, "--quick", "--out", dir.resolve("run").toString(), "--plan");

        assertThat(status).isZero();
        // quick: 4 x (4 s start + 4 + 15 + 1.5 s JIT warm-up + 2 x (4 + 10 + 1.5 s settling + 4 + 5 + 12 + 1.5 s))
        // = 402 s
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("4 configuration(s) x 2 point(s) x 1 repetition(s); planned 6m42s")
                .contains("  share@rr-100ms: fairslice, share policy, scheduler rr-100ms");
        assertThat(dir.resolve("run")).doesNotExist();
    }

    /** {@link StudyMain#run} with what it prints to standard output thrown away; its status. */
    static int runQuietly(String... args) throws Exception {
        return run(OutputStream.nullOutputStream(), args);
    }

    /** {@link StudyMain#run} with what it prints to standard output in {@code out}; its status. */
    private static int run(OutputStream out, String... args) throws Exception {
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            return StudyMain.run(args);
        } finally {
            System.setOut(saved);
        }
    }

    @Test
    void shouldRejectAnUnknownKeyNamingTheKnownOnes() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("heavyUser", "10")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown key(s) [heavyUser]; known keys: [configurations,");
    }

    @Test
    void shouldNameTheFileWhenItHasABadValue() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.properties"), "repetitions = three\n");

        assertThatThrownBy(() -> StudyConfig.quick().withFile(file))
                .hasMessage(file + ": repetitions must be a whole number, got 'three'");
    }

    /**
     * A file saved in another encoding (a Latin-1 é in a comment) or with a malformed unicode escape: the message
     * named neither the file nor what was wrong ("Input length = 1"), and the first ended the run as a crash.
     */
    @Test
    void shouldNameTheFileWhenItIsNotUtf8OrHasAMalformedEscape() throws Exception {
        Path latin1 = Files.write(dir.resolve("latin1.properties"),
                "measure = 20s\n# r\u00e9glage\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> StudyConfig.quick().withFile(latin1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(latin1 + ": not UTF-8 text (").hasMessageEndingWith("); save it as UTF-8");
        Path escape = Files.writeString(dir.resolve("escape.properties"), "lightPaths = /\\u00zz\n");
        assertThatThrownBy(() -> StudyConfig.quick().withFile(escape)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(escape + ": Malformed \\uxxxx encoding.");
    }

    /** Blank JVM options dropped the study's heap and collector without a word; every other blank key is refused. */
    @Test
    void shouldRefuseBlankJvmOptions() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("serverJvmOptions", " ")))
                .hasMessageStartingWith("serverJvmOptions must name at least one option (the study's are -");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("gatlingJvmOptions", "")))
                .hasMessage("gatlingJvmOptions must name at least one option (the study's are -Xms1g -Xmx1g), got"
                        + " nothing");
    }

    @Test
    void shouldRejectAnUnknownMiddlewareOrScheduler() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("configurations", "fair@default")))
                .hasMessageStartingWith("configurations: unknown middleware 'fair'; known: none, observe");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("configurations", "none@rr-1ms")))
                .hasMessage("configurations: unknown scheduler 'rr-1ms'; known: default, batch, rr-100ms, rr-8ms");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("configurations", "none")))
                .hasMessageContaining("a configuration is middleware@scheduler");
    }

    @Test
    void shouldRejectADurationWithoutUnit() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("measure", "20")))
                .hasMessage("measure must be a duration such as 500ms, 20s or 2m, got '20'");
    }

    /** The server's own size rule, before any server starts (a regex let 100 and 2GB through to fail every server). */
    @Test
    void shouldRejectADocumentSizeTheServerWouldRefuse() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("documentSize", "100")))
                .hasMessage("documentSize must be a size in 1KB..1GB such as 2MB, got '100'");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("documentSize", "2GB")))
                .hasMessage("documentSize must be a size in 1KB..1GB such as 2MB, got '2GB'");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("documentSize", "two")))
                .hasMessageStartingWith("documentSize must be a size such as");
        assertThat(StudyConfig.quick().with(Map.of("documentSize", "512kb")).documentSize()).isEqualTo("512kb");
    }

    /** A JVM option's value starts with a dash; --report takes nothing but its folder. */
    @Test
    void shouldTakeJvmOptionsThatLookLikeOptionsAndRefuseReportWithOthers() throws Exception {
        assertThat(runQuietly("--server-jvm-option", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--weaving-jvm-option", "-Daj.weaving.verbose=false", "--plan")).isZero();
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--server-jvm-option"}))
                .hasMessageStartingWith("--server-jvm-option needs a value");
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--report", dir.toString(), "--full"}))
                .hasMessageStartingWith("--report makes the report again from the run's own data files; give it alone");
    }

    /**
     * The usage follows a command line of the wrong form, not a bad value: after "repetitions must be a whole
     * number" in a --config file, 30 lines of options pushed the one line that mattered off the screen.
     */
    @Test
    void shouldAnswerWithTheUsageOnlyACommandLineOfTheWrongForm() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.properties"), "repetitions = three\n");

        assertThat(refused("--plan", "--config", file.toString()))
                .isEqualTo("fairslice study: " + file + ": repetitions must be a whole number, got 'three'\n");

        assertThat(refused("--bogus"))
                .startsWith("fairslice study: unknown option '--bogus'\nusage: ./fairslice study");
    }

    /**
     * An empty value ({@code --out "$DIR"} with the variable unset) was taken as the current folder: a run wrote its
     * data files, logs and report wherever it was started from, and an empty class path failed every server.
     */
    @Test
    void shouldRefuseAnEmptyValueWithTheUsage() throws Exception {
        for (String option : List.of("--config", "--out", "--report", "--resume", "--server-classpath",
                "--loadgen-classpath")) {
            for (String empty : List.of("", " ")) {
                assertThatThrownBy(() -> StudyMain.run(new String[] {option, empty, "--plan"})).as(option)
                        .isInstanceOf(StudyMain.UsageException.class)
                        .hasMessage(option + " needs a value, got '" + empty + "'");
            }
        }
        assertThat(refused("--out", "", "--plan")).startsWith("fairslice study: --out needs a value, got ''\n"
                + "usage: ./fairslice study");
    }

    /** The last one was taken without a word: --out a ... --out b wrote to b, --config read the second file only. */
    @Test
    void shouldRefuseAnOptionGivenTwiceWithTheUsage() throws Exception {
        Path first = Files.writeString(dir.resolve("first.properties"), "repetitions = 2\n");
        Path second = Files.writeString(dir.resolve("second.properties"), "measure = 20s\n");

        assertThat(refused("--config", first.toString(), "--plan", "--config", second.toString()))
                .startsWith("fairslice study: --config given twice, '" + first + "' and '" + second
                        + "'\nusage: ./fairslice study");
        for (String option : List.of("--out", "--report", "--resume", "--server-classpath", "--loadgen-classpath")) {
            assertThatThrownBy(() -> StudyMain.run(new String[] {option, "a", option, "b"})).as(option)
                    .isInstanceOf(StudyMain.UsageException.class)
                    .hasMessage(option + " given twice, 'a' and 'b'");
        }
        Path out = dir.resolve("out");
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--out", out.toString(), "--out", out.toString()}))
                .hasMessageContaining("--out given twice");
        assertThat(out).as("nothing made").doesNotExist();
    }

    /**
     * A file error is said as its file and why; one that carries no reason of its own (a folder that is not empty
     * where --resume removes an old report file) was said "path: path".
     */
    @Test
    void shouldSayWhyAFileErrorHappenedWhenItCarriesNoReason() {
        assertThat(StudyMain.describe(new DirectoryNotEmptyException("/r/report.md")))
                .isEqualTo("/r/report.md: a folder that is not empty is there");
        assertThat(StudyMain.describe(new FileSystemException("/r/points.csv")))
                .isEqualTo("/r/points.csv: FileSystemException");
        assertThat(StudyMain.describe(new FileSystemException("/r/a", "/r/b", "Device or resource busy")))
                .isEqualTo("/r/a -> /r/b: Device or resource busy");
    }

    /**
     * A folder that cannot be made or written to is refused naming --out and why, exit 2, before anything runs: it was
     * said as its bare path ("fairslice study: /srv/file", exit 1), the reason left out.
     */
    @Test
    void shouldRefuseAnOutFolderThatCannotBeWrittenNamingWhy() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "not a folder\n");

        assertThat(refused("--out", file.toString())).isEqualTo("fairslice study: --out " + file
                + ": cannot write the run's files there (a file, not a folder, is there)\n");
        assertThat(Files.readString(file)).isEqualTo("not a folder\n");

        assertThat(refused("--out", file.resolve("run").toString()))
                .startsWith("fairslice study: --out " + file.resolve("run") + ": cannot write the run's files there (");
        try (var listing = Files.list(dir)) {
            assertThat(listing).as("nothing left behind").containsExactly(file);
        }
    }

    /**
     * Server JVM options the servers' java does not start with are refused before anything runs, naming them and the
     * JVM's own words, exit 2: every configuration's server failed to start, one after the other, and the run ended
     * with exit 1. (One configuration: without the check, the run starts.)
     */
    @Test
    void shouldRefuseServerJvmOptionsTheJvmDoesNotStartWithBeforeAnythingRuns() throws Exception {
        Path bogus = Files.writeString(dir.resolve("bogus.properties"), """
                configurations = none@default
                serverJvmOptions = -XX:+UseSerialGC -Xbogus
                """);
        Path one = Files.writeString(dir.resolve("one.properties"), "configurations = none@default\n");
        Path out = dir.resolve("out");
        String java = "the servers' JVM (" + StudyServerProcess.javaExecutable() + ")";

        assertThat(refused("--config", bogus.toString(), "--out", out.toString())).isEqualTo("fairslice study:"
                + " serverJvmOptions = -XX:+UseSerialGC -Xbogus: " + java + " does not start with them: Unrecognized"
                + " option: -Xbogus\n");
        assertThat(out).as("nothing made").doesNotExist();

        assertThat(refused("--config", one.toString(), "--server-jvm-option", "-Xmx512m", "--server-jvm-option",
                "-XX:Bogus=1", "--out", out.toString())).isEqualTo("fairslice study: --server-jvm-option -Xmx512m"
                + " --server-jvm-option -XX:Bogus=1: " + java + " does not start with them after serverJvmOptions = "
                + String.join(" ", StudyConfig.DEFAULT_SERVER_JVM_OPTIONS) + ": Unrecognized VM option 'Bogus=1'\n");
        assertThat(out).as("nothing made").doesNotExist();
    }

    /**
     * The load generator's JVM options, gatlingJvmOptions, are tried before anything runs too, with the java and the
     * options of its own that Gatling's JVM starts with: one it did not start with failed every configuration's
     * Gatling, one after the other, and the run ended with exit 1.
     */
    @Test
    void shouldRefuseGatlingJvmOptionsTheJvmDoesNotStartWithBeforeAnythingRuns() throws Exception {
        Path bogus = Files.writeString(dir.resolve("bogus.properties"), """
                configurations = none@default
                gatlingJvmOptions = -Xmx512m -Xbogus
                """);
        Path one = Files.writeString(dir.resolve("one.properties"), """
                configurations = none@default
                gatlingJvmOptions = -XX:Bogus=1
                """);
        Path out = dir.resolve("out");
        String java = "the load generator's JVM (" + StudyServerProcess.javaExecutable() + ")";
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        assertThat(refused("--config", bogus.toString(), "--out", out.toString())).isEqualTo("fairslice study:"
                + " gatlingJvmOptions = -Xmx512m -Xbogus: " + java + " does not start with them: Unrecognized option:"
                + " -Xbogus\n");
        assertThat(out).as("nothing made").doesNotExist();

        assertThat(refused("--config", one.toString(), "--server-jvm-option", "-Dx=y", "--out", out.toString()))
                .isEqualTo("fairslice study: gatlingJvmOptions = -XX:Bogus=1: " + java + " does not start with it:"
                        + " Unrecognized VM option 'Bogus=1'\n");
        assertThat(out).as("nothing made").doesNotExist();
        // --plan does not try them
        assertThat(execute(err, "--config", bogus.toString(), "--plan")).isZero();
    }

    /**
     * The JVM's complaint is on its standard output for some options; the lines around it say nothing. The study's
     * own options pass, quickly.
     */
    @Test
    void shouldSayWhatTheJvmSaysOnEitherOutputAndStartItWithTheStudysOptions() throws Exception {
        Duration timeout = StudyServerProcess.OPTIONS_CHECK_TIMEOUT;
        assertThat(StudyServerProcess.jvmRefusal(List.of("-Xms1g", "-Xmx512m"), timeout))
                .isEqualTo("Initial heap size set to a larger value than the maximum heap size");
        assertThat(StudyServerProcess.jvmRefusal(List.of("-XX:+UseSerialGC", "-XX:+UseParallelGC"), timeout))
                .isEqualTo("Multiple garbage collectors selected");

        // the presets' and the documented options of both JVMs start, the heap not touched
        List<String> doc = Files.readAllLines(Path.of("../../docs/study.md"));
        Map<StudyMain.StudyJvm, List<List<String>>> valid = Map.of(
                StudyMain.StudyJvm.SERVERS, List.of(StudyConfig.quick().serverJvmOptions(),
                        StudyConfig.full().serverJvmOptions(), documented(doc, "serverJvmOptions"),
                        List.of("-Xmx512m", "-XX:+UseSerialGC", "-Dx=y", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "-javaagent:/not/started.jar")),
                StudyMain.StudyJvm.LOAD_GENERATOR, List.of(StudyConfig.quick().gatlingJvmOptions(),
                        StudyConfig.full().gatlingJvmOptions(), documented(doc, "gatlingJvmOptions"),
                        List.of("-Xmx512m", "-XX:TieredStopAtLevel=1")));
        for (Map.Entry<StudyMain.StudyJvm, List<List<String>>> jvm : valid.entrySet()) {
            for (List<String> options : jvm.getValue()) {
                long start = System.nanoTime();
                StudyMain.checkJvmOptions(jvm.getKey(), options, List.of());
                // (not touching the study's 4 GB heap, which took 2 s)
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as(jvm.getKey().key() + " " + options)
                        .isLessThan(Duration.ofSeconds(10));
            }
        }
    }

    /** The options of {@code key}'s line in study.md's --config example. */
    private static List<String> documented(List<String> doc, String key) {
        return List.of(doc.stream().filter(line -> line.startsWith(key + " = ")).findFirst().orElseThrow()
                .substring(key.length() + 3).split(" "));
    }

    /** What StudyMain says on standard error when it refuses {@code args}, which must be with exit status 2. */
    private static String refused(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(execute(err, args)).as("exit status").isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }

    private static int execute(OutputStream err, String... args) {
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(OutputStream.nullOutputStream()));
            return StudyMain.execute(args, new PrintStream(err, true, StandardCharsets.UTF_8));
        } finally {
            System.setOut(saved);
        }
    }

    @Test
    void shouldGiveAZeroDurationAsZeroSeconds() {
        StudyConfig config = StudyConfig.quick().with(Map.of("jitWarmUp", "0s", "drainTimeout", "0ms"));

        assertThat(config.describe()).containsEntry("jitWarmUp", "0s").containsEntry("drainTimeout", "0s")
                .containsEntry("measure", StudyConfig.format(config.measure()));
        assertThat(StudyConfig.format(Duration.ofMillis(2500))).isEqualTo("2500ms");
    }

    @Test
    void shouldBoundTheDrainTimeout() {
        assertThat(StudyConfig.quick().with(Map.of("drainTimeout", "10m")).drainTimeout())
                .isEqualTo(Duration.ofMinutes(10));
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("drainTimeout", "99999h")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("drainTimeout must be 0s..10m, got 99999h");
        assertThat(StudyConfig.quick().with(Map.of("jitSettle", "1h")).jitSettle()).isEqualTo(Duration.ofHours(1));
        // a typo: the check of every 10 s step's load ran out of memory before the run started
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(
                () -> StudyConfig.quick().with(Map.of("jitSettle", "1000000h"))).hasMessage(
                "jitSettle must be 0s..1h, got 1000000h"));
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("drainTimeout", "601s")))
                .hasMessage("drainTimeout must be 0s..10m, got 601s");
    }

    @Test
    void shouldReadDurationsInTheMiddlewaresGrammar() {
        StudyConfig config = StudyConfig.quick().with(Map.of("warmUp", "1.5s", "measure", "2m", "jitWarmUp", "0s",
                "jitSettle", "25s", "drainTimeout", "2500ms"));

        assertThat(config.warmUp()).isEqualTo(Duration.ofMillis(1500));
        assertThat(config.measure()).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.jitWarmUp()).isZero();
        assertThat(config.jitSettle()).isEqualTo(Duration.ofSeconds(25));
        assertThat(config.drainTimeout()).isEqualTo(Duration.ofMillis(2500));
        // what describe() writes, --report reads back through the same parser
        assertThat(StudyConfig.quick().with(config.describe().entrySet().stream()
                .filter(e -> StudyConfig.KEYS.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))))
                .isEqualTo(config);
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("warmUp", "-5s")))
                .hasMessage("warmUp must be a duration such as 500ms, 20s or 2m, got '-5s'");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("warmUp", "5 fortnights")))
                .hasMessageStartingWith("warmUp must be a duration");
        // what the load generator was sent in whole ms: 500us passed, recorded as 500us, and ran as 0ms
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("retryAfterMax", "500us")))
                .hasMessage("retryAfterMax must be whole milliseconds, got '500us'");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("warmUp", "1.0005s")))
                .hasMessage("warmUp must be whole milliseconds, got '1.0005s'");
    }

    @Test
    void shouldRefuseBeforeAnythingStartsWhatTheLoadGeneratorWouldRefuseNamingTheKey() {
        // each was accepted, and failed every configuration once its server had started, naming Gatling's parameter
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("lightPaths", "/light, light2")))
                .hasMessage("lightPaths: the load generator refuses the JIT warm-up with it (lightPaths must be paths "
                        + "starting with '/', separated by commas, got '/light, light2')");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("lightPaths", "/light,,/light2")))
                .hasMessageStartingWith("lightPaths: the load generator refuses");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("jitWarmUp", "500ms")))
                .hasMessage("jitWarmUp: the load generator refuses the JIT warm-up with it (duration must be between "
                        + "1s and 86400s, got 500ms)");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("warmUp", "2h")))
                .hasMessage("warmUp: the load generator refuses the point H=0 with it (warmUp must be between 0s and "
                        + "3600s, got 7200000ms)");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("measure", "25h")))
                .hasMessageStartingWith("measure: the load generator refuses the point H=0 with it (duration must be");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("jitSettle", "500ms")))
                .hasMessage("jitSettle: the load generator refuses a JIT settling step at H=0 with it (duration must "
                        + "be between 1s and 86400s, got 500ms)");
        assertThat(StudyConfig.quick().with(Map.of("lightPaths", "/light, /light2", "jitWarmUp", "1s",
                "warmUp", "1h", "jitSettle", "10500ms")).lightPaths()).isEqualTo("/light, /light2");
    }

    @Test
    void shouldPassTheRetryAfterBoundsToEveryLoadAndRecordThem() {
        StudyConfig quick = StudyConfig.quick();
        assertThat(quick.loadParameters("http://127.0.0.1:8080", 40, Duration.ofSeconds(5), Duration.ofSeconds(12)))
                .containsEntry("retryAfterDefault", "1000ms").containsEntry("retryAfterMax", "60000ms");
        assertThat(quick.describe()).containsEntry("retryAfterDefault", "1s").containsEntry("retryAfterMax", "1m");

        StudyConfig hotLoop = quick.with(Map.of("retryAfterMax", "0s", "retryAfterDefault", "250ms"));
        assertThat(hotLoop.loadParameters("http://127.0.0.1:8080", 0, Duration.ZERO, Duration.ofSeconds(5)))
                .containsEntry("retryAfterDefault", "250ms").containsEntry("retryAfterMax", "0ms");
        assertThat(StudyMain.resumedConfig(new StudyResult("r", hotLoop.describe(), Map.of(), List.of(), List.of(),
                0, 0, 40)).retryAfterMax()).as("read back from run.properties").isZero();
    }

    @Test
    void shouldRefuseARetryAfterBoundTheLoadGeneratorRefusesNamingTheKey() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("retryAfterMax", "2h")))
                .hasMessage("retryAfterMax: the load generator refuses the JIT warm-up with it (retryAfterMax must be "
                        + "between 0s and 3600s, got 7200000ms)");
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("retryAfterDefault", "soon")))
                .hasMessage("retryAfterDefault must be a duration such as 500ms, 20s or 2m, got 'soon'");
    }

    @Test
    void shouldFoldASettlingRemainderUnderOneSecondIntoTheStepBeforeIt() {
        // 10 s then 0.5 s was the last step Gatling refused
        assertThat(StudyRunner.settleSteps(Duration.ofMillis(10_500))).containsExactly(Duration.ofMillis(10_500));
        assertThat(StudyRunner.settleSteps(Duration.ofMillis(20_999)))
                .containsExactly(Duration.ofSeconds(10), Duration.ofMillis(10_999));
        assertThat(StudyRunner.settleSteps(Duration.ofSeconds(25)))
                .containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(5));
        assertThat(StudyRunner.settleSteps(Duration.ofSeconds(30))).hasSize(3).containsOnly(Duration.ofSeconds(10));
        assertThat(StudyRunner.settleSteps(Duration.ofMillis(1_000))).containsExactly(Duration.ofSeconds(1));
        assertThat(StudyRunner.settleSteps(Duration.ZERO)).isEmpty();
        assertThat(StudyConfig.quick().with(Map.of("jitSettle", "60s"))
                .loadParameters("http://127.0.0.1:8081", 40, Duration.ZERO, Duration.ofSeconds(10)))
                .containsEntry("baseUrl", "http://127.0.0.1:8081").containsEntry("heavyUsers", "40")
                .containsEntry("warmUp", "0ms").containsEntry("duration", "10000ms");
    }

    @Test
    void shouldRejectTooFewWorkerThreadsForTheClients() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("maxThreads", "50")))
                .hasMessage("maxThreads must be above the largest client population (light + heavy users), got 50");
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldServeOnVirtualThreadsWhenAsked() {
        StudyConfig config = StudyConfig.quick().with(Map.of("virtualThreads", "true"));
        assertThat(config.virtualThreads()).isTrue();
        assertThat(config.describe()).containsEntry("virtualThreads", "true");
        assertThat(StudyConfig.quick().virtualThreads()).isFalse();
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("virtualThreads", "yes")))
                .hasMessage("virtualThreads must be true or false, got 'yes'");
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void shouldRefuseVirtualThreadsBeforeJava21() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("virtualThreads", "true")))
                .hasMessageStartingWith("virtualThreads needs Java 21 or later (this is Java "
                        + Runtime.version().feature());
    }

    @Test
    void shouldRejectARepeatedPoint() {
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("heavyUsers", "0,10,10")))
                .hasMessage("heavyUsers must not repeat a point, got [0, 10, 10]");
    }

    @Test
    void shouldGiveRealtimeWindowsALowerCpuBarBecauseOfRtThrottling() {
        assertThat(Scheduler.DEFAULT.minimumCpuShare()).isEqualTo(0.97);
        assertThat(Scheduler.RR_100MS.minimumCpuShare()).isEqualTo(0.94);
        assertThat(Scheduler.RR_8MS.timesliceMillis()).isEqualTo(8);
    }

    @Test
    void shouldLiftTheRealtimeThrottleUnlessToldToLeaveTheKernelAlone() {
        assertThat(StudyConfig.quick().liftRealtimeThrottle()).isTrue();
        assertThat(StudyConfig.full().describe()).containsEntry("realtimeThrottle", "off");
        assertThat(StudyConfig.full().with(Map.of("realtimeThrottle", "kernel")).liftRealtimeThrottle()).isFalse();
        assertThatThrownBy(() -> StudyConfig.quick().with(Map.of("realtimeThrottle", "no")))
                .hasMessage("realtimeThrottle must be one of [off, kernel], got 'no'");
    }

    @Test
    void shouldLiftTheRealtimeThrottleOnlyWhereTheFairServerKeepsKernelThreadsRunning() {
        assertThat(Host.realtimeThrottleLiftRefusal("Linux", "6.18.44-fc-v669")).isNull();
        assertThat(Host.realtimeThrottleLiftRefusal("Linux", "6.12.0")).isNull();
        assertThat(Host.realtimeThrottleLiftRefusal("Linux", "7.0.1")).isNull();
        assertThat(Host.realtimeThrottleLiftRefusal("Linux", "6.11.9-generic"))
                .isEqualTo("realtimeThrottle=off needs Linux 6.12 or later (its fair server keeps the core's other "
                        + "tasks running while the throttle is lifted); this is Linux '6.11.9-generic': set "
                        + "realtimeThrottle=kernel");
        assertThat(Host.realtimeThrottleLiftRefusal("Linux", "5.15.0")).isNotNull();
        assertThat(Host.realtimeThrottleLiftRefusal("Mac OS X", "15.1")).isNotNull();
    }

    @Test
    void shouldStartOneServerPerConfigurationOrOnePerRepetition() {
        StudyConfig full = StudyConfig.full();
        assertThat(full.serversPerConfiguration()).isEqualTo(1);
        assertThat(full.describe()).containsEntry("freshServer", "configuration");
        StudyConfig fresh = full.with(Map.of("freshServer", "repetition"));
        assertThat(fresh.serversPerConfiguration()).isEqualTo(3);
        // two more server starts and JIT warm-ups per configuration, each at least the 30 s warm-up
        assertThat(Progress.plannedSeconds(fresh) - Progress.plannedSeconds(full))
                .isGreaterThanOrEqualTo(full.configurations().size() * 2 * 30.0);
        assertThatThrownBy(() -> full.with(Map.of("freshServer", "point")))
                .hasMessage("freshServer must be one of [configuration, repetition], got 'point'");
    }
}
