package io.fairslice.experiments.harness;

import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A run's data files: points.csv and points.json (every window, with the run's settings and machine facts in the
 * JSON), summary.csv (one row per configuration and point), outcomes.csv, and run.properties; and the reverse, so
 * a report can be made again from a results folder ({@code ./fairslice study --report DIR}).
 */
public final class ResultsFiles {

    static final String POINTS_CSV = "points.csv";
    static final String OUTCOMES_CSV = "outcomes.csv";
    static final String RUN_PROPERTIES = "run.properties";

    private static final List<String> POINT_COLUMNS = List.of("configuration", "middleware", "scheduler",
            "heavy_users", "light_users", "repetition", "attempt", "window_start", "window_s",
            "light_requests", "light_ok", "light_rejected", "light_failed", "light_rps", "light_p50_ms",
            "light_p90_ms", "light_p99_ms", "light_max_ms", "light_mean_ms", "light_oldest_open_ms",
            "heavy_requests", "heavy_ok", "heavy_rejected", "heavy_failed", "heavy_rps", "heavy_p50_ms",
            "heavy_p90_ms", "heavy_p99_ms", "heavy_max_ms", "heavy_mean_ms", "heavy_oldest_open_ms",
            "server_cpu", "other_cpu", "irq_cpu", "idle_cpu", "light_cpu", "heavy_cpu", "jit_cpu", "accepted", "note");
    private static final List<String> OUTCOME_COLUMNS = List.of("configuration", "status", "message");
    /** Columns a points.csv written before 2026-11-26 lacks: read back as unknown (NaN). */
    private static final List<String> ADDED_COLUMNS = List.of("light_cpu", "heavy_cpu", "jit_cpu");

    private ResultsFiles() {
    }

    public static void write(StudyResult result, Path dir) throws IOException {
        Files.createDirectories(dir);
        writePointsCsv(result.points(), dir.resolve(POINTS_CSV));
        replace(dir.resolve(OUTCOMES_CSV), w -> {
            w.write(String.join(",", OUTCOME_COLUMNS) + "\n");
            for (ConfigurationOutcome o : result.outcomes()) {
                w.write(csv(o.configuration()) + "," + o.status() + "," + csv(o.message()) + "\n");
            }
        });
        Map<String, String> flat = new TreeMap<>();
        flat.put("run.id", result.runId());
        flat.put("run.start", Long.toString(result.startEpochMillis()));
        flat.put("run.end", Long.toString(result.endEpochMillis()));
        flat.put("run.heaviest", Integer.toString(result.heaviest()));
        result.settings().forEach((k, v) -> flat.put("settings." + k, v));
        result.machine().forEach((k, v) -> flat.put("machine." + k, v));
        replace(dir.resolve(RUN_PROPERTIES), w -> {
            w.write("# fairslice study run: settings and machine facts (read back by ./fairslice study --report)\n");
            for (Map.Entry<String, String> e : flat.entrySet()) {
                w.write(escape(e.getKey(), true) + "=" + escape(e.getValue(), false) + "\n");
            }
        });
        writeDerived(result, dir);
    }

    /**
     * Only the files made from the others: summary.csv and points.json. {@code --report}, which may run beside the
     * study writing that folder, rewrites these (to match hand-merged or edited data files) and never the files a
     * {@code --resume} reads: written from a read the study had since overtaken, they lost its newest configuration.
     */
    static void writeDerived(StudyResult result, Path dir) throws IOException {
        writeSummaryCsv(Summary.of(result.points()), dir.resolve("summary.csv"));
        writeJson(result, dir.resolve("points.json"));
    }

    /** Writes a data file's content. */
    interface Content {
        void writeTo(Writer w) throws IOException;
    }

    /** Writes a file's bytes (a figure). */
    interface Bytes {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Numbers this process's temporary files ({@link #replaceBytes}). */
    private static final AtomicLong TEMPORARY_FILES = new AtomicLong();

    /**
     * Writes {@code file} whole or not at all: into a temporary file of its own beside it
     * ({@code <file>.<pid>.<n>.tmp}, so that a {@code --report} beside the study never writes or deletes the study's),
     * forced to disk, then renamed over it. The data files are rewritten after every configuration; written in place,
     * a run stopped mid-write (Ctrl-C, a crash) left a truncated points.csv that --resume and --report refused, where
     * now the previous one remains.
     */
    static void replace(Path file, Content content) throws IOException {
        replaceBytes(file, out -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            content.writeTo(w);
            w.flush();
        });
    }

    /**
     * {@link #replace} for bytes: the report and its figures are written so too, so that a stop part way, or a reader
     * while the report is made again, never finds half a report.md or a cut PNG.
     */
    static void replaceBytes(Path file, Bytes content) throws IOException {
        // this process's own (not createTempFile's, whose owner-only permissions the renamed file would keep)
        Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + TEMPORARY_FILES.incrementAndGet() + ".tmp");
        try {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE))) {
                content.writeTo(out);
            }
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Reads back what {@link #write} wrote. A missing file or a bad value is an IOException naming the file (and the
     * line or key) and what is wrong.
     */
    public static StudyResult read(Path dir) throws IOException {
        Path properties = existing(dir.resolve(RUN_PROPERTIES));
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(properties, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IllegalArgumentException e) { // a malformed Unicode escape
            throw new IOException(properties + ": " + e.getMessage(), e);
        }
        Map<String, String> settings = new LinkedHashMap<>();
        Map<String, String> machine = new LinkedHashMap<>();
        for (String key : new TreeSet<>(p.stringPropertyNames())) {
            if (key.startsWith("settings.")) {
                settings.put(key.substring(9), p.getProperty(key));
            } else if (key.startsWith("machine.")) {
                machine.put(key.substring(8), p.getProperty(key));
            }
        }
        List<ConfigurationOutcome> outcomes = readOutcomesCsv(existing(dir.resolve(OUTCOMES_CSV)));
        List<PointResult> points = readPointsCsv(existing(dir.resolve(POINTS_CSV)));
        // without run.heaviest (an edited or older file) the heaviest point measured: 0 made the report's fair-sharing
        // bound "30 light + 0 heavy", 100 %
        int heaviest = p.getProperty("run.heaviest") == null
                ? points.stream().mapToInt(PointResult::heavyUsers).max().orElse(0)
                : (int) number(p, properties, "run.heaviest", Integer.MAX_VALUE);
        return new StudyResult(p.getProperty("run.id", dir.getFileName().toString()), settings, machine, points,
                outcomes, number(p, properties, "run.start", Long.MAX_VALUE),
                number(p, properties, "run.end", Long.MAX_VALUE), heaviest);
    }

    /** The file, if it exists; a bare NoSuchFileException would say only its path. */
    private static Path existing(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file (a study run's folder has " + RUN_PROPERTIES + ", "
                    + OUTCOMES_CSV + " and " + POINTS_CSV + ", written after its first configuration)");
        }
        return file;
    }

    /** A whole-number property of run.properties, 0..max; 0 when it is missing. */
    private static long number(Properties p, Path file, String key, long max) throws IOException {
        String value = p.getProperty(key, "0");
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            parsed = -1;
        }
        if (parsed < 0 || parsed > max) {
            throw new IOException(file + ": " + key + " must be a whole number 0.." + max + ", got '" + value + "'");
        }
        return parsed;
    }

    static List<ConfigurationOutcome> readOutcomesCsv(Path file) throws IOException {
        List<List<String>> rows = readCsv(file);
        if (rows.isEmpty() || !rows.get(0).equals(OUTCOME_COLUMNS)) {
            throw new IOException(file + " does not start with the expected header "
                    + String.join(",", OUTCOME_COLUMNS));
        }
        List<ConfigurationOutcome> outcomes = new ArrayList<>();
        for (int i = 1; i < rows.size(); i++) {
            List<String> r = rows.get(i);
            if (r.size() != OUTCOME_COLUMNS.size()) {
                throw new IOException(file + " line " + (i + 1) + " has " + r.size() + " fields, expected "
                        + OUTCOME_COLUMNS.size() + " (" + String.join(",", OUTCOME_COLUMNS) + ")");
            }
            ConfigurationOutcome.Status status = null;
            for (ConfigurationOutcome.Status s : ConfigurationOutcome.Status.values()) {
                if (s.name().equals(r.get(1))) {
                    status = s;
                }
            }
            if (status == null) {
                throw new IOException(file + " line " + (i + 1) + ": status must be one of "
                        + Arrays.toString(ConfigurationOutcome.Status.values()) + ", got '" + r.get(1) + "'");
            }
            outcomes.add(new ConfigurationOutcome(r.get(0), status, r.get(2)));
        }
        return outcomes;
    }

    static void writePointsCsv(List<PointResult> points, Path file) throws IOException {
        replace(file, w -> {
            w.write(String.join(",", POINT_COLUMNS) + "\n");
            for (PointResult p : points) {
                List<String> v = new ArrayList<>();
                v.add(p.configuration());
                v.add(p.middleware());
                v.add(p.scheduler());
                v.add(Integer.toString(p.heavyUsers()));
                v.add(Integer.toString(p.lightUsers()));
                v.add(Integer.toString(p.repetition()));
                v.add(Integer.toString(p.attempt()));
                v.add(Instant.ofEpochMilli(p.startEpochMillis()).toString());
                v.add(num(p.windowSeconds()));
                addStats(v, p.light());
                addStats(v, p.heavy());
                v.add(num(p.serverCpu()));
                v.add(num(p.otherCpu()));
                v.add(num(p.irqCpu()));
                v.add(num(p.idleCpu()));
                v.add(num(p.lightCpu()));
                v.add(num(p.heavyCpu()));
                v.add(num(p.jitCpu()));
                v.add(Boolean.toString(p.accepted()));
                v.add(p.note());
                w.write(String.join(",", v.stream().map(ResultsFiles::csv).toList()) + "\n");
            }
        });
    }

    static List<PointResult> readPointsCsv(Path file) throws IOException {
        List<List<String>> rows = readCsv(file);
        List<String> older = POINT_COLUMNS.stream().filter(c -> !ADDED_COLUMNS.contains(c)).toList();
        if (rows.isEmpty() || !(rows.get(0).equals(POINT_COLUMNS) || rows.get(0).equals(older))) {
            throw new IOException(file + " does not start with the expected header " + String.join(",", POINT_COLUMNS));
        }
        List<String> header = rows.get(0);
        List<PointResult> points = new ArrayList<>();
        for (int i = 1; i < rows.size(); i++) {
            List<String> r = rows.get(i);
            if (r.size() != header.size()) {
                throw new IOException(file + " line " + (i + 1) + " has " + r.size() + " fields, expected "
                        + header.size());
            }
            Function<String, String> f = c -> header.contains(c) ? r.get(header.indexOf(c)) : "NaN";
            try {
                points.add(new PointResult(f.apply("configuration"), Integer.parseInt(f.apply("heavy_users")),
                        Integer.parseInt(f.apply("light_users")), Integer.parseInt(f.apply("repetition")),
                        Integer.parseInt(f.apply("attempt")), Instant.parse(f.apply("window_start")).toEpochMilli(),
                        Double.parseDouble(f.apply("window_s")), stats(r, header.indexOf("light_requests")),
                        stats(r, header.indexOf("heavy_requests")), Double.parseDouble(f.apply("server_cpu")),
                        Double.parseDouble(f.apply("other_cpu")), Double.parseDouble(f.apply("irq_cpu")),
                        Double.parseDouble(f.apply("idle_cpu")), Double.parseDouble(f.apply("light_cpu")),
                        Double.parseDouble(f.apply("heavy_cpu")), Double.parseDouble(f.apply("jit_cpu")),
                        Boolean.parseBoolean(f.apply("accepted")), f.apply("note")));
            } catch (RuntimeException e) {
                throw new IOException(file + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return points;
    }

    private static void addStats(List<String> v, ClassStats s) {
        v.add(Long.toString(s.requests()));
        v.add(Long.toString(s.ok()));
        v.add(Long.toString(s.rejected()));
        v.add(Long.toString(s.failed()));
        v.add(num(s.throughput()));
        v.add(Long.toString(s.p50Millis()));
        v.add(Long.toString(s.p90Millis()));
        v.add(Long.toString(s.p99Millis()));
        v.add(Long.toString(s.maxMillis()));
        v.add(num(s.meanMillis()));
        v.add(Long.toString(s.oldestOpenMillis()));
    }

    private static ClassStats stats(List<String> r, int i) {
        return new ClassStats(Long.parseLong(r.get(i)), Long.parseLong(r.get(i + 1)), Long.parseLong(r.get(i + 2)),
                Long.parseLong(r.get(i + 3)), Double.parseDouble(r.get(i + 4)), Long.parseLong(r.get(i + 5)),
                Long.parseLong(r.get(i + 6)), Long.parseLong(r.get(i + 7)), Long.parseLong(r.get(i + 8)),
                Double.parseDouble(r.get(i + 9)), Long.parseLong(r.get(i + 10)));
    }

    static void writeSummaryCsv(Summary summary, Path file) throws IOException {
        replace(file, w -> {
            w.write("configuration,heavy_users,light_users,windows,flagged,light_rps,light_rps_spread,heavy_rps,"
                    + "light_p50_ms,light_p99_ms,heavy_p50_ms,heavy_p99_ms,light_rejected,heavy_rejected,"
                    + "light_failed,heavy_failed,failed_share,light_oldest_open_ms,server_cpu,light_cpu,heavy_cpu,"
                    + "jit_cpu,light_retention,light_retention_vs_none,fair_share_bound,disturbed_repetitions,"
                    + "heavy_requests,retention_disturbed,vs_none_disturbed,heavy_oldest_open_ms,window_ms\n");
            for (Summary.Row r : summary.rows()) {
                w.write(String.join(",", List.of(csv(r.configuration()), Integer.toString(r.heavyUsers()),
                        Integer.toString(r.lightUsers()), Integer.toString(r.windows()), Boolean.toString(r.flagged()),
                        num(r.light()), num(r.lightSpread()), num(r.heavy()), num(r.lightP50()), num(r.lightP99()),
                        num(r.heavyP50()), num(r.heavyP99()), Long.toString(r.lightRejected()),
                        Long.toString(r.heavyRejected()), Long.toString(r.lightFailed()),
                        Long.toString(r.heavyFailed()), num(r.failedShare()), Long.toString(r.lightOldestOpenMillis()),
                        num(r.serverCpu()), num(r.lightCpu()), num(r.heavyCpu()), num(r.jitCpu()),
                        num(r.retention()), num(r.retentionVsNone()), num(r.fairShareBound()),
                        Integer.toString(r.disturbedRepetitions()), Long.toString(r.heavyRequests()),
                        Boolean.toString(r.retentionDisturbed()), Boolean.toString(r.vsNoneDisturbed()),
                        Long.toString(r.heavyOldestOpenMillis()), Long.toString(r.windowMillis()))) + "\n");
            }
        });
    }

    private static void writeJson(StudyResult result, Path file) throws IOException {
        StringBuilder j = new StringBuilder();
        j.append("{\n  \"run\": ").append(json(result.runId())).append(",\n");
        j.append("  \"start\": ").append(json(Instant.ofEpochMilli(result.startEpochMillis()).toString()))
                .append(",\n");
        j.append("  \"end\": ").append(json(Instant.ofEpochMilli(result.endEpochMillis()).toString())).append(",\n");
        j.append("  \"settings\": ").append(json(result.settings())).append(",\n");
        j.append("  \"machine\": ").append(json(result.machine())).append(",\n");
        j.append("  \"outcomes\": [");
        for (int i = 0; i < result.outcomes().size(); i++) {
            ConfigurationOutcome o = result.outcomes().get(i);
            j.append(i == 0 ? "\n" : ",\n").append("    {\"configuration\": ").append(json(o.configuration()))
                    .append(", \"status\": ").append(json(o.status().name())).append(", \"message\": ")
                    .append(json(o.message())).append("}");
        }
        j.append("\n  ],\n  \"points\": [");
        for (int i = 0; i < result.points().size(); i++) {
            PointResult p = result.points().get(i);
            j.append(i == 0 ? "\n" : ",\n").append("    {\"configuration\": ").append(json(p.configuration()))
                    .append(", \"middleware\": ").append(json(p.middleware()))
                    .append(", \"scheduler\": ").append(json(p.scheduler()))
                    .append(", \"heavyUsers\": ").append(p.heavyUsers())
                    .append(", \"lightUsers\": ").append(p.lightUsers())
                    .append(", \"repetition\": ").append(p.repetition())
                    .append(", \"attempt\": ").append(p.attempt())
                    .append(", \"windowStart\": ").append(json(Instant.ofEpochMilli(p.startEpochMillis()).toString()))
                    .append(", \"windowSeconds\": ").append(jsonNum(p.windowSeconds()))
                    .append(",\n      \"light\": ").append(json(p.light()))
                    .append(",\n      \"heavy\": ").append(json(p.heavy()))
                    .append(",\n      \"cpu\": {\"server\": ").append(jsonNum(p.serverCpu()))
                    .append(", \"others\": ").append(jsonNum(p.otherCpu()))
                    .append(", \"interrupts\": ").append(jsonNum(p.irqCpu()))
                    .append(", \"idle\": ").append(jsonNum(p.idleCpu()))
                    .append(", \"light\": ").append(jsonNum(p.lightCpu()))
                    .append(", \"heavy\": ").append(jsonNum(p.heavyCpu()))
                    .append(", \"jit\": ").append(jsonNum(p.jitCpu())).append("}")
                    .append(", \"accepted\": ").append(p.accepted())
                    .append(", \"note\": ").append(json(p.note())).append("}");
        }
        j.append("\n  ]\n}\n");
        replace(file, w -> w.write(j.toString()));
    }

    private static String json(ClassStats s) {
        return "{\"requests\": " + s.requests() + ", \"ok\": " + s.ok() + ", \"rejected\": " + s.rejected()
                + ", \"failed\": " + s.failed() + ", \"throughput\": " + jsonNum(s.throughput())
                + ", \"p50Ms\": " + s.p50Millis() + ", \"p90Ms\": " + s.p90Millis() + ", \"p99Ms\": " + s.p99Millis()
                + ", \"maxMs\": " + s.maxMillis() + ", \"meanMs\": " + jsonNum(s.meanMillis())
                + ", \"oldestOpenMs\": " + s.oldestOpenMillis() + "}";
    }

    private static String json(Map<String, String> map) {
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            sb.append(first ? "" : ", ").append(json(e.getKey())).append(": ").append(json(e.getValue()));
            first = false;
        }
        return sb.append("}").toString();
    }

    static String json(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static String jsonNum(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : num(v);
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        String s = String.format(Locale.ROOT, "%.4f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * A CSV field: quoted when it holds a comma, a quote, a line feed or a carriage return (RFC 4180), its line breaks
     * (LF, CRLF or a lone CR) each turned into a space, since the files are read a line at a time. A lone CR, as in a
     * log's progress line, went out unquoted, and readAllLines ends a line there too: the row was read as two.
     */
    private static String csv(String s) {
        if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
            return "\"" + s.replace("\"", "\"\"").replace("\r\n", " ").replace('\r', ' ').replace('\n', ' ')
                    + "\"";
        }
        return s;
    }

    static List<List<String>> readCsv(Path file) throws IOException {
        List<List<String>> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            List<String> fields = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            boolean quoted = false;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quoted) {
                    if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                        field.append('"');
                        i++;
                    } else if (c == '"') {
                        quoted = false;
                    } else {
                        field.append(c);
                    }
                } else if (c == '"') {
                    quoted = true;
                } else if (c == ',') {
                    fields.add(field.toString());
                    field.setLength(0);
                } else {
                    field.append(c);
                }
            }
            fields.add(field.toString());
            rows.add(fields);
        }
        return rows;
    }

    /**
     * A key or value of run.properties, escaped by the rules {@link Properties#store} follows, so that {@link #read}
     * (Properties.load) gets back exactly what was written: a backslash, tab, line feed, carriage return and form feed
     * as {@code \\ \t \n \r \f}; {@code = : # !} and the blanks of a key, or a value's leading blank, after a
     * backslash; any other character below a space or beyond {@code ~} as a Unicode escape. A value's leading blank
     * went out as it was, and load drops the blanks that start a value (a setting of " x" read back as "x"); a key's
     * backslash, tab or {@code #} went out as they were too.
     */
    private static String escape(String s, boolean key) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '\t' -> sb.append("\\t");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r"); // a line's end in the properties format too
                case '\f' -> sb.append("\\f");
                case '=', ':', '#', '!' -> sb.append('\\').append(c);
                case ' ' -> sb.append(key || i == 0 ? "\\ " : " ");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
