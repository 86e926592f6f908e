package io.fairslice.experiments.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * report.md and report.html of a run: the headline (light retention per configuration at the heaviest point),
 * the run beside the 2005 study's published numbers and the fair-sharing bound, what was and was not measured,
 * every point, the figures, the settings and the machine. Both files come from one list of blocks, so they say
 * the same thing.
 */
public final class Report {

    /** The study's published light retention at 40 heavy clients (shared/GUIDE.md section 1). */
    static final String STUDY_SOLARIS = "22 %";
    static final String STUDY_OTHERS = "1-3 %";

    /**
     * A point whose failed requests (another status such as 404 or 500, a timeout, a connection error; not shedding)
     * are more than this share of its requests is called out: a broken page must not pass for good retention (a
     * heavy page that fails fast leaves the light pages the whole server).
     */
    static final double FAILED_NOTE = 0.01;
    /**
     * A point whose windows' JIT compiler threads took this part of the server or more is called out beside the
     * headline. After {@code jitSettle} a window's compiler takes 0-3 %; a quick run on a slow, disturbed host
     * (2026-12-05) measured share@default at 40 heavy clients with the compiler at 17.5 % after the 30 s settle ran
     * out: 60 % retention, the heavy page at 2.4x its CPU per request; again with 120 s of settling, 90 %.
     */
    static final double COMPILER_NOTE = 0.05;

    private sealed interface Block permits Heading, Paragraph, Table, Image {
    }

    private record Heading(int level, String text) implements Block {
    }

    private record Paragraph(String text) implements Block {
    }

    private record Table(List<String> header, List<List<String>> rows) implements Block {
    }

    private record Image(String alt, String pngPath, String svgPath) implements Block {
    }

    private Report() {
    }

    static final String REPORT_MD = "report.md";
    static final String REPORT_HTML = "report.html";

    /**
     * Writes figures/, report.md and report.html into {@code dir}, each file whole or not at all
     * ({@link ResultsFiles#replace}), as the data files are; returns the headline.
     */
    public static String write(StudyResult result, Path dir) throws IOException {
        Summary summary = Summary.of(result.points());
        List<String> figures = Figures.write(summary, result.outcomes(), dir.resolve("figures"));
        List<Block> blocks = blocks(result, summary, figures);
        String md = markdown(blocks);
        String html = html(blocks, "fairslice study " + result.runId());
        ResultsFiles.replace(dir.resolve(REPORT_MD), w -> w.write(md));
        ResultsFiles.replace(dir.resolve(REPORT_HTML), w -> w.write(html));
        return headline(result, summary);
    }

    /**
     * Removes the report and figures an earlier end of the run or {@code --report} wrote into {@code dir}; returns
     * whether there were any. A resumed run adds configurations to the data files, and until it ends an old
     * report.md would read as the run's report; without one, {@code --report DIR} makes a current one at any time.
     */
    static boolean removeEarlier(Path dir) throws IOException {
        List<Path> files = new ArrayList<>(List.of(dir.resolve(REPORT_MD), dir.resolve(REPORT_HTML)));
        for (String figure : Figures.NAMES) {
            files.add(dir.resolve("figures").resolve(figure + ".png"));
            files.add(dir.resolve("figures").resolve(figure + ".svg"));
        }
        boolean any = false;
        for (Path f : files) {
            any |= Files.deleteIfExists(f);
        }
        return any;
    }

    /**
     * One line: light retention per configuration at the heaviest point. A configuration whose data stop at a lighter
     * point (a hand-merged points.csv, or a run from before the heaviest point was measured first that failed part
     * way) says at which: its retention there was printed under "at 40 heavy clients" as if it were 40's.
     */
    public static String headline(StudyResult result, Summary summary) {
        List<String> parts = new ArrayList<>();
        int heaviest = summary.configurations().stream().mapToInt(c -> summary.heaviestRow(c).heavyUsers()).max()
                .orElse(0);
        for (String c : summary.configurations()) {
            Summary.Row row = summary.heaviestRow(c);
            String failed = failedNote(summary, c);
            parts.add(c + outcomeMark(result, c) + (row.heavyUsers() == heaviest ? "" : " at H=" + row.heavyUsers())
                    + " " + percent(row.retention()) + (withoutReference(summary).contains(c) ? " (no H=0)" : "")
                    + (row.retentionDisturbed() ? " (disturbed)" : "")
                    + (failed.isEmpty() ? "" : " (" + failed + ")"));
        }
        List<String> withoutPoints = result.failedConfigurations().stream()
                .filter(c -> !summary.configurations().contains(c)).toList();
        String failures = withoutPoints.isEmpty() ? ""
                : "; failed before any point: " + String.join(", ", withoutPoints);
        if (parts.isEmpty()) {
            return "no configuration was measured" + failures;
        }
        return "light retention at " + heaviest + " heavy clients: " + String.join(", ", parts) + failures;
    }

    private static List<Block> blocks(StudyResult result, Summary summary, List<String> figures) {
        List<Block> b = new ArrayList<>();
        b.add(new Heading(1, "fairslice overload study: run " + result.runId()));
        b.add(new Paragraph(String.format(Locale.ROOT, "Preset %s, %s to %s (%s). %s.",
                result.settings().getOrDefault("preset", "?"),
                Instant.ofEpochMilli(result.startEpochMillis()), Instant.ofEpochMilli(result.endEpochMillis()),
                Progress.clock(Duration.ofMillis(result.endEpochMillis() - result.startEpochMillis())),
                capitalize(headline(result, summary)))));
        String unsteady = hostSpeedNote(result.machine());
        if (unsteady != null) {
            b.add(new Paragraph(unsteady));
        }
        String noReference = noReferenceNote(summary, result.settings());
        if (noReference != null) {
            b.add(new Paragraph(noReference));
        }
        String compiling = compilerNote(summary, result.settings());
        if (compiling != null) {
            b.add(new Paragraph(compiling));
        }

        b.add(new Heading(2, "Beside the 2005 study"));
        b.add(new Paragraph("Light retention is light throughput with H heavy clients over light throughput with "
                + "none, in the same configuration (over several repetitions, each one's own ratio, averaged). The "
                + "study (Hibino, Kourai, Chiba, Tomcat 5.0.25) measured it at "
                + "40 heavy clients and 30 light ones; the fair-sharing bound is what ideal processor sharing among "
                + "all clients would give: light / (light + heavy) clients. \"vs none at H=0\" divides by the "
                + "baseline's unloaded light throughput under the same scheduler instead (no middleware, 0 heavy "
                + "clients): one denominator per scheduler, so it compares configurations without their own "
                + "unloaded windows' noise, and it charges a middleware's cost without overload to it."));
        List<List<String>> beside = new ArrayList<>();
        beside.add(List.of("2005 study: Solaris 9", "40", STUDY_SOLARIS, "-", "-", "published"));
        beside.add(List.of("2005 study: Linux 2.6.7, FreeBSD 5.2.1, Windows 2003", "40", STUDY_OTHERS, "-", "-",
                "published"));
        Summary.Row any = summary.rows().isEmpty() ? null : summary.rows().get(0);
        int heaviest = result.heaviest();
        if (any != null) {
            double fair = (double) any.lightUsers() / (any.lightUsers() + heaviest);
            beside.add(List.of("fair-sharing bound (" + any.lightUsers() + " light + " + heaviest + " heavy)",
                    Integer.toString(heaviest), percent(fair), "-", "-", "theory"));
        }
        for (String c : summary.configurations()) {
            Summary.Row row = summary.heaviestRow(c);
            beside.add(List.of("this run: " + c + outcomeMark(result, c), Integer.toString(row.heavyUsers()),
                    percent(row.retention()),
                    percent(row.retentionVsNone()) + (row.vsNoneDisturbed() ? " (disturbed)" : ""),
                    fixed(row.light(), 1) + " / " + fixed(row.heavy(), 1),
                    windows(row) + (row.retentionDisturbed() && !row.disturbed() ? "; its H=0 reference disturbed" : "")
                            + (failedNote(summary, c).isEmpty() ? "" : "; " + failedNote(summary, c))));
        }
        b.add(new Table(List.of("system", "heavy clients", "light retention", "vs none at H=0", "light / heavy req/s",
                "source"), beside));

        b.add(new Heading(2, "Configurations"));
        List<List<String>> outcomes = new ArrayList<>();
        for (ConfigurationOutcome o : result.outcomes()) {
            outcomes.add(List.of(o.configuration(), o.status().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                    o.message().isEmpty() ? "-" : o.message()));
        }
        b.add(new Table(List.of("configuration", "outcome", "detail"), outcomes));

        b.add(new Heading(2, "Every point"));
        b.add(new Paragraph("Means over repetitions; throughput in successful requests per second of the measured "
                + "window, latency in ms (Gatling's resolution). \"oldest open\" is the age of the oldest light and "
                + "heavy request still unanswered at a window's end (the worst over the repetitions). "
                + "\"failed\" counts requests "
                + "neither answered nor shed (another status such as 404 or 500, a timeout, a connection error), "
                + "summed over the windows. Server CPU is the "
                + "server's share of its core; a window where other processes took the core is re-run; a point whose "
                + "repetitions stayed disturbed says so under \"windows\" (left out of the means when other "
                + "repetitions have accepted windows, the means otherwise), and a retention whose own or H=0 row holds "
                + "such windows is marked \"(disturbed)\" in the headline. \"light / heavy CPU\" is the light and "
                + "the heavy pages' part of the "
                + "server's CPU time (their requests' threads inside fairslice's filter, as fairslice's own meter "
                + "measures them; \"-\" without fairslice, or where its meter could not be read: the console said "
                + "why; over several repetitions the mean of the windows that have it), \"JIT\" the compiler "
                + "threads', both in the window: the "
                + "rest went to the container around the requests, the collector and the JVM."));
        List<List<String>> rows = new ArrayList<>();
        for (Summary.Row r : summary.rows()) {
            rows.add(List.of(r.configuration(), Integer.toString(r.heavyUsers()), fixed(r.light(), 1),
                    percent(r.retention()), percent(r.retentionVsNone()), fixed(r.heavy(), 2), fixed(r.lightP50(), 0),
                    fixed(r.lightP99(), 0),
                    fixed(r.heavyP50(), 0), r.lightOldestOpenMillis() + " / " + r.heavyOldestOpenMillis(),
                    r.lightRejected() + " / " + r.heavyRejected(), r.lightFailed() + " / " + r.heavyFailed(),
                    fixed(r.serverCpu(), 3),
                    Double.isNaN(r.lightCpu()) ? "-" : percent(r.lightCpu()) + " / " + percent(r.heavyCpu()),
                    Double.isNaN(r.jitCpu()) ? "-" : percent(r.jitCpu()),
                    windows(r) + (r.retentionDisturbed() && !r.disturbed() ? "; H=0 disturbed" : "")));
        }
        b.add(new Table(List.of("configuration", "H", "light req/s", "retention", "vs none at H=0", "heavy req/s",
                "light p50",
                "light p99", "heavy p50", "oldest open light / heavy", "rejected light / heavy", "failed light / heavy",
                "server CPU", "light / heavy CPU", "JIT", "windows"), rows));
        List<String> failing = summary.rows().stream().filter(r -> r.failedShare() > FAILED_NOTE)
                .map(r -> String.format(Locale.ROOT, "%s at H=%d (%d of %d light and %d of %d heavy requests)",
                        r.configuration(), r.heavyUsers(), r.lightFailed(), r.requests() - r.heavyRequests(),
                        r.heavyFailed(), r.heavyRequests()))
                .toList();
        List<String> hanging = summary.rows().stream().filter(Summary.Row::unansweredThroughAWindow)
                .map(r -> String.format(Locale.ROOT, "%s at H=%d (light %d ms, heavy %d ms, the window %d ms)",
                        r.configuration(), r.heavyUsers(), r.lightOldestOpenMillis(), r.heavyOldestOpenMillis(),
                        r.windowMillis()))
                .toList();
        if (!hanging.isEmpty()) {
            b.add(new Paragraph("Unanswered requests: a request was still open at a window's end after a whole "
                    + "window's length or more, and over twice its class's p99, in " + String.join("; ", hanging)
                    + ". It ended in no window, so "
                    + "neither throughput nor \"failed\" counts it: a page there may hang; see the server's and "
                    + "Gatling's logs under logs/."));
        }
        if (!failing.isEmpty()) {
            b.add(new Paragraph("Failed requests: more than " + percent(FAILED_NOTE) + " of a class's requests "
                    + "failed (neither answered nor shed: another status such as 404 or 500, a timeout, "
                    + "a connection error) "
                    + "in " + String.join("; ", failing) + ". Throughput and retention there do not measure working "
                    + "pages; see the server's and Gatling's logs under logs/."));
        }

        if (!figures.isEmpty()) {
            b.add(new Heading(2, "Figures"));
            for (String f : figures) {
                b.add(new Image(f, "figures/" + f + ".png", "figures/" + f + ".svg"));
            }
        }

        b.add(new Heading(2, "Settings"));
        b.add(keyValues(result.settings()));
        b.add(new Heading(2, "Machine"));
        b.add(keyValues(result.machine()));
        b.add(new Paragraph("Data: points.csv and points.json (every window), summary.csv (these means), "
                + "outcomes.csv, run.properties; Gatling's simulation.log of every point under gatling/, "
                + "process logs under logs/."));
        return b;
    }

    /**
     * What the run's outcomes say of a configuration that has points: nothing when it was measured; " (failed)" or
     * " (not available)" when it ended so part way (its points are what it measured before); " (incomplete)" when
     * it has no outcome yet (a run interrupted while it was being measured): its numbers are not a whole measurement.
     */
    private static String outcomeMark(StudyResult result, String configuration) {
        return result.outcomes().stream().filter(o -> o.configuration().equals(configuration)).findFirst()
                .map(o -> o.status() == ConfigurationOutcome.Status.MEASURED ? ""
                        : " (" + o.status().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")")
                .orElse(" (incomplete)");
    }

    /**
     * "up to N % of a class's requests at a point failed" when a point of the configuration had more than
     * {@link #FAILED_NOTE} of a class's requests fail ({@link Summary.Row#failedShare}), and "requests unanswered
     * through a window" when a request was open a window's length or more at a window's end
     * ({@link Summary.Row#unansweredThroughAWindow}); else empty.
     */
    private static String failedNote(Summary summary, String configuration) {
        double worst = summary.rowsOf(configuration).stream().mapToDouble(Summary.Row::failedShare)
                .filter(v -> !Double.isNaN(v)).max().orElse(0);
        String failed = worst > FAILED_NOTE ? "up to " + percent(worst) + " of a class's requests at a point failed"
                : "";
        boolean hanging = summary.rowsOf(configuration).stream().anyMatch(Summary.Row::unansweredThroughAWindow);
        return hanging ? (failed.isEmpty() ? "" : failed + "; ") + "requests unanswered through a window" : failed;
    }

    /**
     * A warning when the run's core speed samples say the host did not run the server's core steadily (within a set
     * of samples, or between the run's start and end): the report's reader sees it beside the headline, not only in
     * the machine table.
     */
    static String hostSpeedNote(Map<String, String> machine) {
        List<String> found = new ArrayList<>();
        for (String key : List.of(StudyRunner.CORE_SPEED_AT_START, StudyRunner.CORE_SPEED_AT_RESUME,
                StudyRunner.CORE_SPEED_AT_END)) {
            String v = machine.get(key);
            if (v != null && v.contains("not steady")) {
                found.add(key + " " + v);
            }
        }
        String change = machine.get(StudyRunner.CORE_SPEED_CHANGE);
        if (change != null) {
            found.add(StudyRunner.CORE_SPEED_CHANGE + " " + change);
        }
        return found.isEmpty() ? null : "Warning: the host did not run the server's core at a steady speed ("
                + String.join("; ", found) + "): windows measured at different speeds are not alike, and retention "
                + "spreads with the speed (docs/study.md, \"A host that changes speed\").";
    }

    /** The configurations measured without a light-only point (H=0), which their retention divides by. */
    private static List<String> withoutReference(Summary summary) {
        return summary.configurations().stream().filter(c -> summary.rows().stream()
                .noneMatch(r -> r.configuration().equals(c) && r.heavyUsers() == 0)).toList();
    }

    /**
     * Why light retention reads n/a for the configurations measured without a light-only point (H=0), or null when
     * every one has it. heavyUsers may leave 0 out on purpose, in a run that looks at one load only (the CPU split at
     * H=40 in docs/measurements/cpu-sample-bias-20261206): the report said "n/a" without saying why.
     */
    static String noReferenceNote(Summary summary, Map<String, String> settings) {
        List<String> without = withoutReference(summary);
        if (without.isEmpty()) {
            return null;
        }
        String heavyUsers = settings.getOrDefault("heavyUsers", "?");
        boolean leftOut = !List.of(heavyUsers.split(",")).contains("0");
        return "Light retention reads n/a for " + String.join(", ", without) + ": there is no light-only point (H=0) "
                + "to divide by, " + (leftOut ? "since this run's heavyUsers (" + heavyUsers + ") leaves 0 out; "
                + "add 0 to heavyUsers to measure retention." : "which was not measured (the Configurations table "
                + "says why).");
    }

    /**
     * A warning naming the points whose windows' JIT compiler took {@link #COMPILER_NOTE} of the server or more: they
     * measured code still being compiled (slower, with the compiler's CPU taken from the requests), not the steady
     * state the retention compares.
     */
    static String compilerNote(Summary summary, Map<String, String> settings) {
        List<String> found = new ArrayList<>();
        for (Summary.Row r : summary.rows()) {
            if (r.jitCpu() >= COMPILER_NOTE) {
                found.add(r.configuration() + " H=" + r.heavyUsers() + " " + percent(r.jitCpu()));
            }
        }
        return found.isEmpty() ? null : "Warning: the JIT compiler still took " + percent(COMPILER_NOTE)
                + " of the server or more in the windows of " + String.join(", ", found) + ": they measured code "
                + "being compiled, not the steady state. Raise jitSettle (" + settings.getOrDefault("jitSettle", "?")
                + " in this run) or measure on a quieter host (docs/study.md, \"How a point is measured\").";
    }

    private static Table keyValues(Map<String, String> map) {
        List<List<String>> rows = new ArrayList<>();
        map.forEach((k, v) -> rows.add(List.of(k, v)));
        return new Table(List.of("key", "value"), rows);
    }

    /** {@code fraction} in percent to a tenth: whole percents showed 79.6 % as "80 %" against the 80 % target. */
    static String percent(double fraction) {
        if (Double.isNaN(fraction)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.1f %%", 100 * fraction);
    }

    /** The windows a row's means are over, and the disturbed ones it holds or left out. */
    private static String windows(Summary.Row row) {
        if (row.flagged()) {
            return row.windows() + " window(s), disturbed only";
        }
        return row.windows() + " window(s)" + (row.disturbedRepetitions() == 0 ? ""
                : ", " + row.disturbedRepetitions() + " disturbed repetition(s) left out");
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    static String markdown(List<Block> blocks) {
        StringBuilder md = new StringBuilder();
        for (Block block : blocks) {
            if (block instanceof Heading h) {
                md.append("#".repeat(h.level())).append(' ').append(h.text()).append("\n\n");
            } else if (block instanceof Paragraph p) {
                md.append(p.text()).append("\n\n");
            } else if (block instanceof Table t) {
                md.append("| ").append(String.join(" | ", t.header().stream().map(Report::mdCell).toList()))
                        .append(" |\n|");
                t.header().forEach(x -> md.append("---|"));
                md.append('\n');
                for (List<String> row : t.rows()) {
                    md.append("| ").append(String.join(" | ", row.stream().map(Report::mdCell).toList()))
                            .append(" |\n");
                }
                md.append('\n');
            } else if (block instanceof Image i) {
                md.append("![").append(i.alt()).append("](").append(i.pngPath()).append(")\n\n");
            }
        }
        return md.toString();
    }

    static String html(List<Block> blocks, String title) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title))
                .append("</title>\n<style>body{font-family:sans-serif;max-width:80em;margin:1em auto;padding:0 1em}"
                        + "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
                        + "text-align:left}th{background:#f3f3f3}img{max-width:100%}</style></head><body>\n");
        for (Block block : blocks) {
            if (block instanceof Heading x) {
                h.append("<h").append(x.level()).append('>').append(esc(x.text())).append("</h").append(x.level())
                        .append(">\n");
            } else if (block instanceof Paragraph p) {
                h.append("<p>").append(esc(p.text())).append("</p>\n");
            } else if (block instanceof Table t) {
                h.append("<table><thead><tr>");
                t.header().forEach(c -> h.append("<th>").append(esc(c)).append("</th>"));
                h.append("</tr></thead><tbody>\n");
                for (List<String> row : t.rows()) {
                    h.append("<tr>");
                    row.forEach(c -> h.append("<td>").append(esc(c)).append("</td>"));
                    h.append("</tr>\n");
                }
                h.append("</tbody></table>\n");
            } else if (block instanceof Image i) {
                h.append("<figure><img src=\"").append(esc(i.svgPath())).append("\" alt=\"").append(esc(i.alt()))
                        .append("\"><figcaption>").append(esc(i.alt())).append(" (<a href=\"")
                        .append(esc(i.pngPath())).append("\">PNG</a>)</figcaption></figure>\n");
            }
        }
        return h.append("</body></html>\n").toString();
    }

    private static String mdCell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
