package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.DoubleStream;
import javax.imageio.ImageIO;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    @TempDir
    Path dir;

    /**
     * A fixture result set: two configurations, H = 0 and 40, two repetitions; share@default's first repetition at
     * H = 40 was disturbed and re-run; netflix@rr-8ms was not available.
     */
    static StudyResult fixture() {
        List<PointResult> points = new ArrayList<>();
        points.add(point("none@default", 0, 1, 1, 2000, 0, true));
        points.add(point("none@default", 40, 1, 1, 220, 30, true));
        points.add(point("none@default", 0, 2, 1, 2200, 0, true));
        points.add(point("none@default", 40, 2, 1, 200, 32, true));
        points.add(point("share@default", 0, 1, 1, 1800, 0, true));
        points.add(point("share@default", 40, 1, 1, 100, 20, false));
        points.add(point("share@default", 40, 1, 2, 900, 25, true));
        points.add(point("share@default", 0, 2, 1, 2000, 0, true));
        points.add(point("share@default", 40, 2, 1, 780, 26, true));
        Map<String, String> settings = new LinkedHashMap<>(StudyConfig.quick().describe());
        Map<String, String> machine = Map.of("cores", "2", "cpu", "fixture");
        return new StudyResult("fixture", settings, machine, points, List.of(
                new ConfigurationOutcome("none@default", ConfigurationOutcome.Status.MEASURED, ""),
                new ConfigurationOutcome("share@default", ConfigurationOutcome.Status.MEASURED, ""),
                new ConfigurationOutcome("netflix@rr-8ms", ConfigurationOutcome.Status.NOT_AVAILABLE,
                        "SCHED_RR not available: chrt is not installed")),
                1_700_000_000_000L, 1_700_000_300_000L, 40);
    }

    private static PointResult point(String configuration, int heavy, int rep, int attempt, double light,
                                     double heavyRate, boolean accepted) {
        ClassStats l = new ClassStats((long) (light * 15), (long) (light * 15), 0, 0, light, 3, 9, 40 + heavy,
                80 + heavy, 4.0, 12);
        ClassStats h = heavy == 0 ? ClassStats.EMPTY
                : new ClassStats((long) (heavyRate * 15), (long) (heavyRate * 15), 0, 0, heavyRate, 900, 1500, 2000,
                        2500, 1000.0, 800);
        return new PointResult(configuration, heavy, 30, rep, attempt, 1_700_000_000_000L + rep * 60_000L, 15.0, l, h,
                accepted ? 0.99 : 0.80, accepted ? 0.0 : 0.19, 0.01, 0.0, configuration.startsWith("none") ? Double.NaN
                        : heavy == 0 ? 0.97 : 0.78,
                configuration.startsWith("none") ? Double.NaN : heavy == 0 ? 0 : 0.2,
                0.004, accepted,
                accepted ? "" : "disturbed: server had 0.800 of its core (< 0.97), other processes 0.190");
    }

    /**
     * The one server both points have served no light request alone (a page broken in its light-only window): its
     * retention has nothing to divide by. It read the loaded light req/s over the mean of that 0 and another server's
     * light-only window (100 over (0 + 200) / 2: 100 %).
     */
    @Test
    void shouldNotDivideByOtherServersWhenTheSharedOneServedNoLightRequestAlone() {
        List<PointResult> points = List.of(point("share@default", 40, 1, 1, 100, 10, true),
                point("share@default", 0, 1, 1, 0, 0, true), point("share@default", 0, 2, 1, 200, 0, true));
        assertThat(Summary.of(points).heaviestRow("share@default").retention()).isNaN();
    }

    @Test
    void shouldComputeRetentionFromAcceptedWindowsOnly() {
        Summary summary = Summary.of(fixture().points());

        // each repetition (a server of its own) over its own unloaded window, then averaged
        assertThat(summary.heaviestRow("none@default").retention())
                .isCloseTo((220.0 / 2000.0 + 200.0 / 2200.0) / 2, within(1e-9));
        Summary.Row share = summary.heaviestRow("share@default");
        assertThat(share.light()).isCloseTo(840.0, within(1e-9));
        assertThat(share.retention()).as("not the means' ratio, 840 / 1900")
                .isCloseTo((900.0 / 1800.0 + 780.0 / 2000.0) / 2, within(1e-9));
        // against the baseline's unloaded light throughput under the same scheduler (none@default at H = 0: 2100)
        assertThat(share.retentionVsNone()).isCloseTo(840.0 / 2100.0, within(1e-9));
        assertThat(summary.heaviestRow("none@default").retentionVsNone()).isCloseTo(210.0 / 2100.0, within(1e-9));
        assertThat(share.windows()).isEqualTo(2);
        assertThat(share.flagged()).isFalse();
        assertThat(share.fairShareBound()).isCloseTo(30.0 / 70.0, within(1e-9));
    }

    @Test
    void shouldPutTheHeadlineTheStudyAndEveryConfigurationInTheReport() throws Exception {
        String headline = Report.write(fixture(), dir);

        assertThat(headline)
                .isEqualTo("light retention at 40 heavy clients: none@default 10.0 %, share@default 44.5 %");
        String md = Files.readString(dir.resolve("report.md"));
        assertThat(md).contains("| 2005 study: Solaris 9 | 40 | 22 % | - | - | published |")
                .contains("| 2005 study: Linux 2.6.7, FreeBSD 5.2.1, Windows 2003 | 40 | 1-3 % | - | - | published |")
                .contains("| fair-sharing bound (30 light + 40 heavy) | 40 | 42.9 % | - | - | theory |")
                .contains("| this run: share@default | 40 | 44.5 % | 40.0 % | 840.0 / 25.5 | 2 window(s) |")
                .contains("| netflix@rr-8ms | not available | SCHED_RR not available: chrt is not installed |")
                .contains("![throughput](figures/throughput.png)")
                .contains("| light / heavy CPU | JIT |")
                .contains("| 78.0 % / 20.0 % | 0.4 % | 2 window(s) |")
                .contains("| 97.0 % / 0.0 % | 0.4 % | 2 window(s) |");
        assertThat(md.lines().filter(l -> l.startsWith("| none@default | 40 |")).findFirst().orElseThrow())
                .as("no fairslice meters: no class split").endsWith("| - | 0.4 % | 2 window(s) |");
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<img src=\"figures/retention.svg\"")
                .contains("<td>this run: none@default</td>").endsWith("</body></html>\n");
    }

    /**
     * share@default's heavy page hangs at H = 40 until each request times out: 40 failed requests a window beside
     * 12 600 light ones, a fraction of a percent of both together, but every heavy request; the light pages get the
     * whole server. Counted per class, the headline says so.
     */
    @Test
    void shouldCallOutFailedRequestsSoABrokenPageDoesNotPassForGoodRetention() throws Exception {
        StudyResult fixture = fixture();
        List<PointResult> points = replacing("share@default", 40,
                p -> withHeavy(p, new ClassStats(40, 0, 0, 40, 0, -1, -1, -1, -1, -1, 0)));
        StudyResult broken = withPoints(points);

        String headline = Report.write(broken, dir);
        ResultsFiles.write(broken, dir);

        Summary.Row share = Summary.of(points).heaviestRow("share@default");
        assertThat(share.heavyFailed()).isEqualTo(80);
        assertThat((double) (share.lightFailed() + share.heavyFailed()) / share.requests())
                .as("both classes together: under the 1 % note").isLessThan(0.01);
        assertThat(share.failedShare()).as("the heavy class's").isEqualTo(1.0);
        assertThat(headline).isEqualTo("light retention at 40 heavy clients: none@default 10.0 %, share@default "
                + "44.5 % (up to 100.0 % of a class's requests at a point failed)");
        String md = Files.readString(dir.resolve("report.md"));
        assertThat(md).contains("| this run: share@default | 40 | 44.5 % | 40.0 % | 840.0 / 0.0 | 2 window(s); up to "
                        + "100.0 % of a class's requests at a point failed |")
                .contains("| rejected light / heavy | failed light / heavy |")
                .contains("| 0 / 0 | 0 / 80 |")
                .contains("Failed requests: more than 1.0 % of a class's requests failed")
                .contains("in share@default at H=40 (0 of 25200 light and 80 of 80 heavy requests)");
        assertThat(Files.readAllLines(dir.resolve("summary.csv")).get(0))
                .contains(",light_rejected,heavy_rejected,light_failed,heavy_failed,failed_share,");
        assertThat(Files.readAllLines(dir.resolve("summary.csv"))).anyMatch(l -> l.startsWith("share@default,40,")
                && l.contains(",0,0,0,80,1,"));
        // the unbroken fixture has no such note
        Report.write(fixture, dir);
        assertThat(Files.readString(dir.resolve("report.md"))).doesNotContain("Failed requests:")
                .contains("| 0 / 0 | 0 / 0 |");
    }

    /**
     * share@default's heavy page hangs at H = 40 longer than the load generator's timeout: no heavy request ends in a
     * window, so none counts as failed, and the light pages get the whole server. The requests open at the windows'
     * ends say so, in the headline too.
     */
    @Test
    void shouldCallOutRequestsUnansweredThroughAWindow() throws Exception {
        StudyResult fixture = fixture();
        List<PointResult> points = replacing("share@default", 40,
                p -> withHeavy(p, new ClassStats(0, 0, 0, 0, 0, -1, -1, -1, -1, -1, 20_000)));
        StudyResult hanging = withPoints(points);

        String headline = Report.write(hanging, dir);
        ResultsFiles.write(hanging, dir);

        Summary.Row share = Summary.of(points).heaviestRow("share@default");
        assertThat(share.heavyFailed()).as("no heavy request ended").isZero();
        assertThat(share.unansweredThroughAWindow()).isTrue();
        assertThat(headline).endsWith("share@default 44.5 % (requests unanswered through a window)");
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| oldest open light / heavy |")
                .contains("Unanswered requests: a request was still open at a window's end after a whole window's"
                        + " length or more, and over twice its class's p99, in share@default at H=40 (light 12 ms,"
                        + " heavy 20000 ms, the window 15000 ms)");
        assertThat(Files.readAllLines(dir.resolve("summary.csv")).get(0)).endsWith(",heavy_oldest_open_ms,window_ms");
        assertThat(Files.readAllLines(dir.resolve("summary.csv"))).anyMatch(l -> l.startsWith("share@default,40,")
                && l.endsWith(",20000,15000"));
        // heavy requests open for less than a window, as under overload, are no such note
        Report.write(fixture, dir);
        assertThat(Files.readString(dir.resolve("report.md"))).doesNotContain("Unanswered requests:");
        // nor is one open past the window whose class's p99 is over half its age: a slow page, answered
        List<PointResult> slow = replacing("share@default", 40,
                p -> withHeavy(p, new ClassStats(30, 30, 0, 0, 2, 5000, 8000, 9000, 9500, 5000.0, 16_000)));
        assertThat(Summary.of(slow).heaviestRow("share@default").unansweredThroughAWindow()).isFalse();
    }

    /**
     * A retention is only as good as the light-only reference it divides by: a reference window that stayed disturbed
     * (less of the core: it reads low, and retention high) marks the retention, though its own H = 40 row is clean.
     */
    @Test
    void shouldMarkARetentionWhoseReferenceStayedDisturbed() throws Exception {
        List<PointResult> points = replacing("share@default", 0,
                p -> point(p.configuration(), 0, p.repetition(), 1, 1500, 0, false));
        StudyResult result = withPoints(points);

        String headline = Report.write(result, dir);

        Summary.Row share = Summary.of(points).heaviestRow("share@default");
        assertThat(share.disturbed()).as("its own windows").isFalse();
        assertThat(share.retentionDisturbed()).isTrue();
        assertThat(share.vsNoneDisturbed()).as("none@default's reference is clean").isFalse();
        assertThat(headline).isEqualTo("light retention at 40 heavy clients: none@default 10.0 %, share@default "
                + "56.0 % (disturbed)");
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| this run: share@default | 40 | 56.0 % | 40.0 % | 840.0 / 25.5 | 2 window(s); its H=0 "
                        + "reference disturbed |");
    }

    /**
     * A repetition whose every attempt stayed disturbed is left out of a point whose other repetitions have accepted
     * windows: the point's mean then covers other servers than its reference's, and the row says so. Retention pairs
     * the servers both points have: repetition 1's 900 over its own 1800, 50 %, where the means' ratio divided it by
     * both repetitions' 1900 (47.4 %).
     */
    @Test
    void shouldSayWhenARepetitionThatStayedDisturbedWasLeftOut() throws Exception {
        List<PointResult> points = replacing("share@default", 40,
                p -> p.repetition() != 2 ? p : point(p.configuration(), 40, 2, 1, 780, 26, false));
        StudyResult result = withPoints(points);

        String headline = Report.write(result, dir);

        Summary.Row share = Summary.of(points).heaviestRow("share@default");
        assertThat(share.windows()).isEqualTo(1);
        assertThat(share.light()).as("repetition 1's accepted window only").isEqualTo(900.0);
        assertThat(share.disturbedRepetitions()).isEqualTo(1);
        assertThat(share.retentionDisturbed()).isTrue();
        assertThat(headline).endsWith("share@default 50.0 % (disturbed)");
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| this run: share@default | 40 | 50.0 % | 42.9 % (disturbed) | 900.0 / 25.0 | "
                        + "1 window(s), 1 disturbed "
                        + "repetition(s) left out |");
    }

    /** The baseline's reference stayed disturbed: every "vs none at H=0" divided by it is marked. */
    @Test
    void shouldMarkARetentionVsNoneWhoseBaselineStayedDisturbed() throws Exception {
        List<PointResult> points = replacing("none@default", 0,
                p -> point(p.configuration(), 0, p.repetition(), 1, 2100, 0, false));

        Report.write(withPoints(points), dir);

        Summary.Row share = Summary.of(points).heaviestRow("share@default");
        assertThat(share.vsNoneDisturbed()).isTrue();
        assertThat(share.retentionDisturbed()).as("its own reference is clean").isFalse();
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| this run: share@default | 40 | 44.5 % | 40.0 % (disturbed) | 840.0 / 25.5 | "
                        + "2 window(s) |");
    }

    /** A point whose every attempt stayed disturbed: its means are over the attempt that had most of the core. */
    @Test
    void shouldTakeTheLeastDisturbedAttemptOfAPointThatStayedDisturbed() {
        List<PointResult> points = new ArrayList<>(fixture().points().stream()
                .filter(p -> !p.configuration().equals("share@default") || p.heavyUsers() != 40).toList());
        PointResult first = point("share@default", 40, 1, 1, 900, 25, false);
        points.add(new PointResult(first.configuration(), 40, 30, 1, 1, first.startEpochMillis(), 15.0, first.light(),
                first.heavy(), 0.95, 0.04, 0.01, 0.0, 0.78, 0.2, 0.004, false, "disturbed: 0.950 of its core"));
        points.add(point("share@default", 40, 1, 2, 700, 25, false)); // 0.80 of its core

        Summary.Row share = Summary.of(points).heaviestRow("share@default");

        assertThat(share.flagged()).isTrue();
        assertThat(share.light()).as("attempt 1's, with 0.95 of the core, not the last one's").isEqualTo(900.0);
    }

    /** An attempt whose server's share of its core is unknown (no /proc samples) comes after one measured at 0.80. */
    @Test
    void shouldTakeAMeasuredAttemptOverOneWhoseCoreShareIsUnknown() {
        List<PointResult> points = new ArrayList<>(fixture().points().stream()
                .filter(p -> !p.configuration().equals("share@default") || p.heavyUsers() != 40).toList());
        PointResult first = point("share@default", 40, 1, 1, 900, 25, false);
        points.add(new PointResult(first.configuration(), 40, 30, 1, 1, first.startEpochMillis(), 15.0, first.light(),
                first.heavy(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0.78, 0.2, 0.004, false,
                "disturbed: no CPU samples"));
        points.add(point("share@default", 40, 1, 2, 700, 25, false)); // 0.80 of its core

        Summary.Row share = Summary.of(points).heaviestRow("share@default");

        assertThat(share.light()).as("attempt 2's, with 0.80 of the core known").isEqualTo(700.0);
    }

    /** A host whose core ran slower after the run than before it: the report says so under its headline. */
    @Test
    void shouldWarnOfAHostThatChangedSpeedBesideTheHeadline() throws Exception {
        StudyResult f = fixture();
        Map<String, String> machine = new LinkedHashMap<>(f.machine());
        machine.put(StudyRunner.CORE_SPEED_CHANGE, "median 45 ms after the run against 30 ms before it: 1.50x");
        StudyResult changed = new StudyResult(f.runId(), f.settings(), machine, f.points(), f.outcomes(),
                f.startEpochMillis(), f.endEpochMillis(), f.heaviest());

        Report.write(changed, dir);

        assertThat(Files.readString(dir.resolve("report.md"))).contains("Warning: the host did not run the server's "
                + "core at a steady speed (core_speed_change median 45 ms after the run against 30 ms before it: "
                + "1.50x)");
        Report.write(f, dir);
        assertThat(Files.readString(dir.resolve("report.md"))).doesNotContain("Warning: the host");
    }

    /**
     * A point measured while the JIT compiler still took 5 % of the server or more (a slow host, the settle ran out)
     * is named beside the headline: its retention measured code being compiled. The column alone went unread.
     */
    @Test
    void shouldWarnOfPointsMeasuredWhileTheCompilerStillWorked() throws Exception {
        StudyResult f = fixture();
        List<PointResult> points = new ArrayList<>();
        for (PointResult p : f.points()) {
            boolean compiling = p.configuration().equals("share@default") && p.heavyUsers() == 40;
            points.add(new PointResult(p.configuration(), p.heavyUsers(), p.lightUsers(), p.repetition(), p.attempt(),
                    p.startEpochMillis(), p.windowSeconds(), p.light(), p.heavy(), p.serverCpu(), p.otherCpu(),
                    p.irqCpu(), p.idleCpu(), p.lightCpu(), p.heavyCpu(), compiling ? 0.175 : p.jitCpu(),
                    p.accepted(), p.note()));
        }
        StudyResult compiling = new StudyResult(f.runId(), f.settings(), f.machine(), points, f.outcomes(),
                f.startEpochMillis(), f.endEpochMillis(), f.heaviest());

        Report.write(compiling, dir);

        assertThat(Files.readString(dir.resolve("report.md"))).contains("Warning: the JIT compiler still took 5.0 % "
                + "of the server or more in the windows of share@default H=40 17.5 %: they measured code being "
                + "compiled, not the steady state. Raise jitSettle (" + f.settings().get("jitSettle")
                + " in this run)");
        Report.write(f, dir);
        assertThat(Files.readString(dir.resolve("report.md"))).doesNotContain("Warning: the JIT compiler");
    }

    /** A tenth of a percent: 79.6 % is not 80 % against an 80 % target. */
    @Test
    void shouldPrintPercentsToATenth() {
        assertThat(Report.percent(0.7959)).isEqualTo("79.6 %");
        assertThat(Report.percent(0.79951)).isEqualTo("80.0 %");
        assertThat(Report.percent(0.064)).isEqualTo("6.4 %");
        assertThat(Report.percent(Double.NaN)).isEqualTo("n/a");
    }

    /** The fixture's points, those of {@code configuration} at {@code heavy} clients replaced {@code by}. */
    /** {@code p} with the heavy class's statistics replaced. */
    private static PointResult withHeavy(PointResult p, ClassStats heavy) {
        return new PointResult(p.configuration(), p.heavyUsers(), p.lightUsers(), p.repetition(), p.attempt(),
                p.startEpochMillis(), p.windowSeconds(), p.light(), heavy, p.serverCpu(), p.otherCpu(), p.irqCpu(),
                p.idleCpu(), p.lightCpu(), p.heavyCpu(), p.jitCpu(), p.accepted(), p.note());
    }

    private static List<PointResult> replacing(String configuration, int heavy,
                                               UnaryOperator<PointResult> by) {
        return fixture().points().stream().map(p -> p.configuration().equals(configuration)
                && p.heavyUsers() == heavy ? by.apply(p) : p).toList();
    }

    private static StudyResult withPoints(List<PointResult> points) {
        StudyResult f = fixture();
        return new StudyResult(f.runId(), f.settings(), f.machine(), points, f.outcomes(), f.startEpochMillis(),
                f.endEpochMillis(), f.heaviest());
    }

    /**
     * A run whose heavyUsers leaves 0 out (allowed: runs that look at one load only) has no retention; the report
     * said "n/a" without saying why.
     */
    @Test
    void shouldSayWhyRetentionIsMissingWhenHeavyUsersLeavesTheLightOnlyPointOut() throws Exception {
        StudyResult f = fixture();
        Map<String, String> settings = new LinkedHashMap<>(f.settings());
        settings.put("heavyUsers", "40");
        StudyResult loadedOnly = new StudyResult(f.runId(), settings, f.machine(),
                f.points().stream().filter(p -> p.heavyUsers() == 40).toList(), f.outcomes(), f.startEpochMillis(),
                f.endEpochMillis(), f.heaviest());

        assertThat(Report.write(loadedOnly, dir)).isEqualTo("light retention at 40 heavy clients: none@default n/a "
                + "(no H=0), share@default n/a (no H=0)");
        assertThat(Files.readString(dir.resolve("report.md"))).contains("Light retention reads n/a for none@default, "
                + "share@default: there is no light-only point (H=0) to divide by, since this run's heavyUsers (40) "
                + "leaves 0 out; add 0 to heavyUsers to measure retention.");
        assertThat(Report.noReferenceNote(Summary.of(f.points()), f.settings())).as("with H=0 measured").isNull();
        assertThat(Report.noReferenceNote(Summary.of(f.points().stream().filter(p -> p.heavyUsers() == 40
                || !p.configuration().equals("share@default")).toList()), f.settings()))
                .endsWith("share@default: there is no light-only point (H=0) to divide by, which was not measured "
                        + "(the Configurations table says why).");
    }

    /**
     * A configuration whose data stop at a lighter point than the run's heaviest (a hand-merged points.csv, an old run
     * that measured H=0 first and failed part way) had its retention there printed as the heaviest point's.
     */
    @Test
    void shouldSayAtWhichPointTheHeadlineReadsAConfigurationWithoutTheHeaviestPoint() throws Exception {
        StudyResult f = fixture();
        List<PointResult> points = new ArrayList<>(f.points());
        points.add(point("sleep@default", 0, 1, 1, 2000, 0, true));
        points.add(point("sleep@default", 20, 1, 1, 1000, 10, true));
        StudyResult merged = new StudyResult(f.runId(), f.settings(), f.machine(), points, f.outcomes(),
                f.startEpochMillis(), f.endEpochMillis(), f.heaviest());

        assertThat(Report.write(merged, dir)).isEqualTo("light retention at 40 heavy clients: none@default 10.0 %, "
                + "share@default 44.5 %, sleep@default (incomplete) at H=20 50.0 %");
    }

    @Test
    void shouldMarkAConfigurationThatFailedOrDidNotFinishInTheHeadlineAndItsRow() throws Exception {
        // share@default's server died in its last point; none@default has points but no outcome (run interrupted)
        StudyResult fixture = fixture();
        StudyResult cut = new StudyResult(fixture.runId(), fixture.settings(), fixture.machine(), fixture.points(),
                List.of(new ConfigurationOutcome("share@default", ConfigurationOutcome.Status.FAILED,
                        "the study server died during share-default-h00-r2-a1")),
                fixture.startEpochMillis(), fixture.endEpochMillis(), fixture.heaviest());

        String headline = Report.write(cut, dir);

        assertThat(headline).isEqualTo("light retention at 40 heavy clients: none@default (incomplete) 10.0 %, "
                + "share@default (failed) 44.5 %");
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| this run: none@default (incomplete) | 40 | 10.0 % |")
                .contains("| this run: share@default (failed) | 40 | 44.5 % |");
    }

    /**
     * A configuration that failed before its first point (its server never started, Gatling failed at once) has no row:
     * the headline named only the others, and the run ended with status 0 as if whole.
     */
    @Test
    void shouldNameAConfigurationThatFailedBeforeAnyPointAndEndWithStatusOne() throws Exception {
        StudyResult fixture = fixture();
        List<ConfigurationOutcome> outcomes = new ArrayList<>(fixture.outcomes());
        outcomes.add(new ConfigurationOutcome("share@rr-100ms", ConfigurationOutcome.Status.FAILED,
                "Gatling exited with status 2"));
        StudyResult failed = new StudyResult(fixture.runId(), fixture.settings(), fixture.machine(),
                fixture.points(), outcomes, fixture.startEpochMillis(), fixture.endEpochMillis(), fixture.heaviest());

        assertThat(Report.write(failed, dir)).isEqualTo("light retention at 40 heavy clients: none@default 10.0 %, "
                + "share@default 44.5 %; failed before any point: share@rr-100ms");
        assertThat(StudyMain.status(failed)).isEqualTo(1);
        assertThat(StudyMain.status(fixture)).as("measured, one not available on the host").isZero();
        StudyResult nothing = new StudyResult(fixture.runId(), fixture.settings(), fixture.machine(), List.of(),
                List.of(outcomes.get(2)), fixture.startEpochMillis(), fixture.endEpochMillis(), fixture.heaviest());
        assertThat(StudyMain.status(nothing)).as("nothing measured").isEqualTo(1);
    }

    @Test
    void shouldDrawEveryFigureAsPngAndSvg() throws Exception {
        Report.write(fixture(), dir);

        for (String figure : List.of("throughput", "retention", "latency")) {
            BufferedImage png = ImageIO.read(dir.resolve("figures").resolve(figure + ".png").toFile());
            assertThat(png).as(figure + ".png").isNotNull();
            assertThat(png.getWidth()).isGreaterThanOrEqualTo(Figures.PANEL_WIDTH);
            String svg = Files.readString(dir.resolve("figures").resolve(figure + ".svg"));
            assertThat(svg).as(figure + ".svg").contains("<svg").contains("</svg>");
        }
        // one panel per configuration, side by side
        BufferedImage throughput = ImageIO.read(dir.resolve("figures/throughput.png").toFile());
        assertThat(throughput.getWidth()).isEqualTo(2 * Figures.PANEL_WIDTH);
    }

    /**
     * report.md, report.html and the figures are replaced whole, as the data files are: a reader that opened them
     * before the report was made again reads the whole earlier files, not files cut and rewritten under it (and a
     * stop part way leaves the earlier ones).
     */
    @Test
    void shouldReplaceTheReportAndItsFiguresWholeAsTheDataFiles() throws Exception {
        StudyResult before = fixture();
        Report.write(before, dir);
        List<Path> files = List.of(dir.resolve("report.md"), dir.resolve("report.html"),
                dir.resolve("figures/retention.png"), dir.resolve("figures/retention.svg"));
        Map<Path, byte[]> earlier = new LinkedHashMap<>();
        Map<Path, InputStream> readers = new LinkedHashMap<>();
        for (Path f : files) {
            earlier.put(f, Files.readAllBytes(f));
            readers.put(f, Files.newInputStream(f));
        }
        // another run: other numbers, so every file changes
        StudyResult after = new StudyResult("another", before.settings(), before.machine(),
                before.points().subList(0, 4), before.outcomes(), before.startEpochMillis(), before.endEpochMillis(),
                before.heaviest());
        try {
            Report.write(after, dir);

            for (Path f : files) {
                assertThat(Arrays.equals(Files.readAllBytes(f), earlier.get(f))).as(f + " made again")
                        .isFalse();
                assertThat(Arrays.equals(readers.get(f).readAllBytes(), earlier.get(f)))
                        .as(f + " as its reader sees it: the whole earlier file").isTrue();
            }
        } finally {
            for (InputStream r : readers.values()) {
                r.close();
            }
        }
        try (var listed = Files.walk(dir)) {
            assertThat(listed.map(f -> f.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
        }
    }

    /** The figure's fair share is the table's bound, to a tenth: it said 43 % beside the table's 42.9 %. */
    @Test
    void shouldLabelTheFairShareInTheRetentionFigureAsTheTableGivesIt() throws Exception {
        Report.write(fixture(), dir);

        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| fair-sharing bound (30 light + 40 heavy) | 40 | 42.9 % |");
        assertThat(Figures.fairShareLabel(30, 40)).isEqualTo("fair share 42.9 %");
    }

    @Test
    void shouldDrawEveryThroughputPanelOnTheSameTwoScales() {
        // share@default's heavy rate tops out at 26 req/s, none@default's at 32: both panels must reach 40
        List<org.knowm.xchart.internal.chartpart.Chart<?, ?>> panels =
                Figures.throughputPanels(Summary.of(fixture().points()));

        assertThat(panels).hasSize(2);
        for (var panel : panels) {
            var styler = ((XYChart) panel).getStyler();
            assertThat(styler.getYAxisMax(0)).as(panel.getTitle() + " light axis").isEqualTo(2500.0);
            assertThat(styler.getYAxisMax(1)).as(panel.getTitle() + " heavy axis").isEqualTo(40.0);
        }
    }

    @Test
    void shouldRoundAnAxisTopUpToARoundNumber() {
        assertThat(Figures.niceCeiling(DoubleStream.of(2100, 2200))).isEqualTo(2500.0);
        assertThat(Figures.niceCeiling(DoubleStream.of(2570))).isEqualTo(3000.0);
        assertThat(Figures.niceCeiling(DoubleStream.of(5.8, Double.NaN))).isEqualTo(6.0);
        assertThat(Figures.niceCeiling(DoubleStream.of(50.1))).isEqualTo(60.0);
        assertThat(Figures.niceCeiling(DoubleStream.of(40))).isEqualTo(40.0);
        assertThat(Figures.niceCeiling(DoubleStream.of(0.3))).isCloseTo(0.3, within(1e-12));
        assertThat(Figures.niceCeiling(DoubleStream.of(Double.NaN))).isEqualTo(1.0);
    }

    @Test
    void shouldLeaveAConfigurationWithoutANumberEmptyAndLabelledInTheRetentionFigure() throws Exception {
        StudyResult result = fixture();
        Summary summary = Summary.of(result.points());

        CategoryChart chart = Figures.retention(summary, result.outcomes());

        // middlewares none, share, netflix under schedulers default and rr-8ms: only two cells were measured
        assertThat(new ArrayList<Object>(chart.getSeriesMap().get("scheduler default").getYData())).containsExactly(
                100 * (220.0 / 2000.0 + 200.0 / 2200.0) / 2, 100 * (900.0 / 1800.0 + 780.0 / 2000.0) / 2, null);
        assertThat(new ArrayList<Object>(chart.getSeriesMap().get("scheduler rr-8ms").getYData()))
                .containsExactly(null, null, null);
        assertThat(Figures.missingLabel(summary, result.outcomes(), "netflix@rr-8ms", 40)).isEqualTo("n/a");
        assertThat(Figures.missingLabel(summary, result.outcomes(), "share@rr-8ms", 40)).isEqualTo("not run");
        // a configuration measured without H = 0 has no retention either
        List<PointResult> noBaseline = result.points().stream()
                .filter(p -> !(p.configuration().equals("share@default") && p.heavyUsers() == 0)).toList();
        assertThat(Figures.retentionPercent(Summary.of(noBaseline), "share@default", 40)).isNull();
        assertThat(Figures.missingLabel(Summary.of(noBaseline), List.of(), "share@default", 40)).isEqualTo("no H=0");
        // nor one whose light-only point served no light request: that point is there, its light throughput is 0
        List<PointResult> noLight = replacing("share@default", 0, p -> new PointResult(p.configuration(),
                p.heavyUsers(), p.lightUsers(), p.repetition(), p.attempt(), p.startEpochMillis(), p.windowSeconds(),
                new ClassStats(300, 0, 0, 300, 0, -1, -1, -1, -1, -1, 0), p.heavy(), p.serverCpu(), p.otherCpu(),
                p.irqCpu(), p.idleCpu(), p.lightCpu(), p.heavyCpu(), p.jitCpu(), p.accepted(), p.note()));
        assertThat(Figures.retentionPercent(Summary.of(noLight), "share@default", 40)).isNull();
        assertThat(Figures.missingLabel(Summary.of(noLight), List.of(), "share@default", 40))
                .isEqualTo("no light at H=0");
        // and without the baseline configuration under its scheduler, no retention against it
        List<PointResult> noNone = result.points().stream()
                .filter(p -> !p.configuration().equals("none@default")).toList();
        assertThat(Summary.of(noNone).heaviestRow("share@default").retentionVsNone()).isNaN();
        assertThat(Summary.of(noNone).heaviestRow("share@default").retention())
                .isCloseTo((900.0 / 1800.0 + 780.0 / 2000.0) / 2, within(1e-9));
    }

    @Test
    void shouldRaiseTheRetentionAxisOverABarAbove100Percent() {
        StudyResult result = fixture();
        assertThat(Figures.retention(Summary.of(result.points()), result.outcomes()).getStyler().getYAxisMax())
                .isEqualTo(100.0);
        // share@default keeps 115 % of its light throughput at H = 40: a 0-100 % axis cut its bar off at 100
        List<PointResult> above = new ArrayList<>(result.points().stream()
                .filter(p -> !p.configuration().equals("share@default")).toList());
        above.add(point("share@default", 0, 1, 1, 1000, 0, true));
        above.add(point("share@default", 40, 1, 1, 1150, 25, true));

        CategoryChart chart = Figures.retention(Summary.of(above), result.outcomes());

        assertThat(new ArrayList<Object>(chart.getSeriesMap().get("scheduler default").getYData()).get(1))
                .satisfies(v -> assertThat((Double) v).isCloseTo(115.0, within(1e-9)));
        assertThat(chart.getStyler().getYAxisMax()).isEqualTo(120.0);
    }

    /**
     * `./fairslice study --report DIR` as the launcher runs it: with the weaving agent's JVM options it passes to every
     * study command, which a report does not use (refused, --report failed whatever the user gave).
     */
    @Test
    void shouldMakeTheReportAgainWithTheLaunchersJvmOptions() throws Exception {
        ResultsFiles.write(fixture(), dir);
        assertThat(StudyConfigTest.runQuietly("--report", dir.toString(), "--weaving-jvm-option",
                "-javaagent:/x/aspectjweaver.jar", "--weaving-jvm-option",
                "-Dorg.aspectj.weaver.loadtime.configuration=META-INF/aop.xml")).isZero();
        assertThat(dir.resolve("report.md")).exists();
    }

    /**
     * --report beside the study that writes the folder: it rewrote every data file from what it had read, and a
     * configuration the study finished meanwhile was lost to --resume. Now it leaves the files --resume reads alone
     * (here, lines it would not write itself stay) and remakes only those made from them.
     */
    @Test
    void shouldRewriteOnlyTheDerivedFilesOnReport() throws Exception {
        ResultsFiles.write(fixture(), dir);
        Files.writeString(dir.resolve(ResultsFiles.RUN_PROPERTIES), "# a comment of mine\n",
                StandardOpenOption.APPEND);
        var written = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        Map<String, String> before = new HashMap<>();
        for (String file : List.of(ResultsFiles.POINTS_CSV, ResultsFiles.OUTCOMES_CSV, ResultsFiles.RUN_PROPERTIES)) {
            Files.setLastModifiedTime(dir.resolve(file), written);
            before.put(file, Files.readString(dir.resolve(file)));
        }
        Files.delete(dir.resolve("summary.csv"));

        assertThat(StudyConfigTest.runQuietly("--report", dir.toString())).isZero();

        for (var file : before.entrySet()) {
            assertThat(dir.resolve(file.getKey())).as(file.getKey()).hasContent(file.getValue());
            assertThat(Files.getLastModifiedTime(dir.resolve(file.getKey()))).as(file.getKey()).isEqualTo(written);
        }
        assertThat(dir.resolve("summary.csv")).as("made again").exists();
        assertThat(dir.resolve("report.md")).exists();
    }

    /**
     * A value holding a lone CR (a log's progress line in a configuration's message) went into outcomes.csv unquoted,
     * and into run.properties as it was: both files end a line at a CR, and the row was read back as two.
     */
    @Test
    void shouldQuoteAndReadBackValuesHoldingCarriageReturns() throws Exception {
        StudyResult f = fixture();
        Map<String, String> machine = new LinkedHashMap<>(f.machine());
        machine.put("cpu", "one\rtwo");
        StudyResult withCr = new StudyResult(f.runId(), f.settings(), machine, f.points(), List.of(
                new ConfigurationOutcome("none@default", ConfigurationOutcome.Status.FAILED,
                        "exited; its log ends with:\r\nstep 1\rstep 2\nend")), f.startEpochMillis(),
                f.endEpochMillis(), f.heaviest());

        ResultsFiles.write(withCr, dir);

        assertThat(Files.readString(dir.resolve(ResultsFiles.OUTCOMES_CSV))).isEqualTo("configuration,status,message\n"
                + "none@default,FAILED,\"exited; its log ends with: step 1 step 2 end\"\n");
        StudyResult read = ResultsFiles.read(dir);
        assertThat(read.outcomes()).containsExactly(new ConfigurationOutcome("none@default",
                ConfigurationOutcome.Status.FAILED, "exited; its log ends with: step 1 step 2 end"));
        assertThat(read.machine()).containsEntry("cpu", "one\rtwo");
    }

    /**
     * run.properties is read with Properties.load: a value's leading blank went out as it was, and load drops the
     * blanks that start a value (a machine fact of " 2.4 GHz" read back as "2.4 GHz"); a key's backslash or tab too.
     * Every key and value now reads back exactly as it was written.
     */
    @Test
    void shouldReadBackAwkwardSettingsAndMachineFactsExactly() throws Exception {
        StudyResult f = fixture();
        Map<String, String> machine = new LinkedHashMap<>();
        List<String> values = List.of(" leading blank", "  two leading blanks", "\tleading tab", "\fleading form feed",
                "trailing blank ", "", " ", "back\\slash\\", "#hash", "!bang", "=equals", ":colon", "a = b : c",
                "controls \u0000\u0001\u001b\u007f", "line\nfeed\r\nand\rreturn", "é ü \u2713 \ud83d\ude00");
        for (int i = 0; i < values.size(); i++) {
            machine.put("fact" + i, values.get(i));
        }
        machine.put("a key with blanks = : # ! \\ \t end", "x");
        machine.put(" leading blank key", "y");
        Map<String, String> settings = new LinkedHashMap<>(f.settings());
        settings.put("note", " a setting with a leading blank");
        StudyResult awkward = new StudyResult(f.runId(), settings, machine, f.points(), f.outcomes(),
                f.startEpochMillis(), f.endEpochMillis(), f.heaviest());

        ResultsFiles.write(awkward, dir);
        StudyResult read = ResultsFiles.read(dir);

        assertThat(read.machine()).isEqualTo(machine);
        assertThat(read.settings()).isEqualTo(settings);
    }

    @Test
    void shouldReadBackWhatItWrote() throws Exception {
        StudyResult original = fixture();
        ResultsFiles.write(original, dir);

        StudyResult read = ResultsFiles.read(dir);

        assertThat(read.points()).isEqualTo(original.points());
        assertThat(read.outcomes()).isEqualTo(original.outcomes());
        assertThat(read.settings()).containsAllEntriesOf(original.settings());
        assertThat(read.heaviest()).isEqualTo(40);
        assertThat(Files.readString(dir.resolve("points.json"))).contains("\"configuration\": \"share@default\"")
                .contains("\"accepted\": false");
        assertThat(Files.readAllLines(dir.resolve("summary.csv"))).hasSize(1 + 4);
    }

    /** Without run.heaviest the fair-sharing bound was that of 0 heavy clients: "30 light + 0 heavy", 100 %. */
    @Test
    void shouldTakeTheHeaviestPointMeasuredWhenRunPropertiesDoesNotSayIt() throws Exception {
        ResultsFiles.write(fixture(), dir);
        Path properties = dir.resolve(ResultsFiles.RUN_PROPERTIES);
        Files.write(properties, Files.readAllLines(properties).stream().filter(l -> !l.startsWith("run.heaviest="))
                .toList());

        StudyResult read = ResultsFiles.read(dir);
        Report.write(read, dir);

        assertThat(read.heaviest()).isEqualTo(40);
        assertThat(Files.readString(dir.resolve("report.md")))
                .contains("| fair-sharing bound (30 light + 40 heavy) | 40 | 42.9 % |");
    }

    @Test
    void shouldNameTheFileTheLineAndWhatIsWrongWhenTheDataFilesAreMissingOrBroken() throws Exception {
        // --report on a folder without data said only the path (NoSuchFileException)
        assertThatThrownBy(() -> StudyMain.run(new String[] {"--report", dir.toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--report " + dir + ": no run.properties there (not a study run's folder, or it ended "
                        + "before its first configuration)");
        ResultsFiles.write(fixture(), dir);
        Path outcomes = dir.resolve(ResultsFiles.OUTCOMES_CSV);
        List<String> good = Files.readAllLines(outcomes);

        // a bad status said "No enum constant ..." (and the whole usage)
        Files.write(outcomes, List.of(good.get(0), good.get(1), "share@default,MEASURD,"));
        assertThatThrownBy(() -> ResultsFiles.read(dir)).isInstanceOf(IOException.class)
                .hasMessage(outcomes + " line 3: status must be one of [MEASURED, NOT_AVAILABLE, FAILED], got "
                        + "'MEASURD'");
        // a short row was an uncaught IndexOutOfBoundsException
        Files.write(outcomes, List.of(good.get(0), "none@default,MEASURED"));
        assertThatThrownBy(() -> ResultsFiles.read(dir)).isInstanceOf(IOException.class)
                .hasMessage(outcomes + " line 2 has 2 fields, expected 3 (configuration,status,message)");
        Files.write(outcomes, List.of());
        assertThatThrownBy(() -> ResultsFiles.read(dir)).isInstanceOf(IOException.class)
                .hasMessage(outcomes + " does not start with the expected header configuration,status,message");
        Files.write(outcomes, good);
        Files.delete(dir.resolve(ResultsFiles.POINTS_CSV));
        assertThatThrownBy(() -> ResultsFiles.read(dir)).isInstanceOf(IOException.class)
                .hasMessageStartingWith(dir.resolve(ResultsFiles.POINTS_CSV) + ": no such file");
        ResultsFiles.write(fixture(), dir);
        Files.writeString(dir.resolve(ResultsFiles.RUN_PROPERTIES), "run.heaviest=forty\n");
        assertThatThrownBy(() -> ResultsFiles.read(dir)).isInstanceOf(IOException.class)
                .hasMessage(dir.resolve(ResultsFiles.RUN_PROPERTIES) + ": run.heaviest must be a whole number "
                        + "0..2147483647, got 'forty'");
    }

    @Test
    void shouldKeepThePreviousCompleteDataFilesWhenAWriteStopsPartWay() throws Exception {
        StudyResult before = fixture();
        ResultsFiles.write(before, dir);
        // a point that cannot be written (no note) stops the write after the rows before it, as Ctrl-C would
        List<PointResult> points = new ArrayList<>(before.points());
        PointResult p = points.get(0);
        points.add(1, new PointResult(p.configuration(), 20, p.lightUsers(), 1, 1, p.startEpochMillis(),
                p.windowSeconds(), p.light(), p.heavy(), p.serverCpu(), p.otherCpu(), p.irqCpu(), p.idleCpu(),
                p.lightCpu(), p.heavyCpu(), p.jitCpu(), true, null));
        StudyResult after = new StudyResult(before.runId(), before.settings(), before.machine(), points,
                before.outcomes(), before.startEpochMillis(), before.endEpochMillis(), before.heaviest());

        assertThatThrownBy(() -> ResultsFiles.write(after, dir)).isInstanceOf(NullPointerException.class);

        // written in place, points.csv was cut after the rows before the bad one and read back short
        assertThat(ResultsFiles.read(dir).points()).isEqualTo(before.points());
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
        }
    }

    @Test
    void shouldReadAPointsCsvFromBeforeTheCpuSplitWithTheSplitUnknown() throws Exception {
        StudyResult original = fixture();
        ResultsFiles.write(original, dir);
        List<List<String>> rows = ResultsFiles.readCsv(dir.resolve(ResultsFiles.POINTS_CSV));
        List<Integer> added = List.of("light_cpu", "heavy_cpu", "jit_cpu").stream().map(rows.get(0)::indexOf).toList();
        List<String> older = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> kept = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) {
                if (!added.contains(i)) {
                    kept.add(row.get(i).contains(",") ? "\"" + row.get(i) + "\"" : row.get(i));
                }
            }
            older.add(String.join(",", kept));
        }
        Files.write(dir.resolve(ResultsFiles.POINTS_CSV), older);

        List<PointResult> read = ResultsFiles.read(dir).points();

        assertThat(read).hasSameSizeAs(original.points());
        for (int i = 0; i < read.size(); i++) {
            PointResult p = original.points().get(i);
            assertThat(read.get(i)).isEqualTo(new PointResult(p.configuration(), p.heavyUsers(), p.lightUsers(),
                    p.repetition(), p.attempt(), p.startEpochMillis(), p.windowSeconds(), p.light(), p.heavy(),
                    p.serverCpu(), p.otherCpu(), p.irqCpu(), p.idleCpu(), Double.NaN, Double.NaN, Double.NaN,
                    p.accepted(), p.note()));
        }
        Files.write(dir.resolve(ResultsFiles.POINTS_CSV), List.of("configuration,light_rps", "share@default,1"));
        assertThatThrownBy(() -> ResultsFiles.read(dir))
                .hasMessageContaining("does not start with the expected header");
    }
}
