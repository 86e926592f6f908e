package io.fairslice.experiments.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The run reduced to one row per configuration and point: means over the repetitions' accepted windows (if a
 * point has none, over its disturbed ones, and the row says so), and light retention: light throughput at H heavy
 * clients over light throughput with none, in the same configuration, and over the baseline's (no middleware under
 * the same scheduler, {@code none@<scheduler>}) light throughput with none. The second divides every configuration
 * by one number per scheduler, so the configurations' own unloaded windows and their noise drop out of comparisons.
 */
public final class Summary {

    /**
     * @param windows   windows the means are over
     * @param flagged   true when no accepted window existed and the means are over disturbed ones
     * @param lightFailed light requests that failed in those windows (neither answered nor shed: another status
     *                  such as 404 or 500, a timeout, a connection error)
     * @param heavyFailed the same for heavy requests
     * @param requests  requests of both classes that ended in those windows
     * @param lightCpu  the light pages' part of the server's CPU ({@link PointResult#lightCpu}), NaN when unknown
     * @param heavyCpu  the heavy page's part
     * @param jitCpu    the JIT compiler's part in the windows
     * @param retention light throughput here over light throughput at H = 0 (NaN when H = 0 was not measured)
     * @param retentionVsNone light throughput here over the baseline's at H = 0 under the same scheduler (NaN when
     *                  the run has no {@code none@<scheduler>} point at H = 0)
     */
    public record Row(String configuration, int heavyUsers, int lightUsers, int windows, boolean flagged,
                      double light, double lightSpread, double heavy, double lightP50, double lightP99,
                      double heavyP50, double heavyP99, long lightRejected, long heavyRejected,
                      long lightFailed, long heavyFailed, long requests, long lightOldestOpenMillis, double serverCpu, double lightCpu, double heavyCpu, double jitCpu,
                      double retention, double retentionVsNone) {

        /** Light retention under ideal processor sharing among all clients (GUIDE section 2: 43 % at 30 + 40). */
        public double fairShareBound() {
            return (double) lightUsers / (lightUsers + heavyUsers);
        }

        /** Failed requests of both classes over all requests in the windows; NaN when none ended there. */
        public double failedShare() {
            return requests > 0 ? (double) (lightFailed + heavyFailed) / requests : Double.NaN;
        }
    }

    private final List<Row> rows;
    private final List<String> configurations;

    private Summary(List<Row> rows, List<String> configurations) {
        this.rows = List.copyOf(rows);
        this.configurations = List.copyOf(configurations);
    }

    public static Summary of(List<PointResult> points) {
        Set<String> configurations = new LinkedHashSet<>();
        Map<String, Map<Integer, List<PointResult>>> grouped = new LinkedHashMap<>();
        for (PointResult p : points) {
            configurations.add(p.configuration());
            grouped.computeIfAbsent(p.configuration(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(p.heavyUsers(), k -> new ArrayList<>()).add(p);
        }
        List<Row> reduced = new ArrayList<>();
        Map<String, Double> unloaded = new LinkedHashMap<>();
        for (String configuration : configurations) {
            Map<Integer, List<PointResult>> byHeavy = grouped.get(configuration);
            for (int h : new TreeSet<>(byHeavy.keySet())) {
                Row row = reduce(configuration, h, byHeavy.get(h));
                if (h == 0) {
                    unloaded.put(configuration, row.light());
                }
                reduced.add(row);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Row row : reduced) {
            rows.add(withRetention(row, unloaded.getOrDefault(row.configuration(), Double.NaN),
                    unloaded.getOrDefault(baselineOf(row.configuration()), Double.NaN)));
        }
        return new Summary(rows, new ArrayList<>(configurations));
    }

    /** The baseline a configuration's retention-vs-none divides by: {@code none} under the same scheduler. */
    static String baselineOf(String configuration) {
        int at = configuration.indexOf('@');
        return "none@" + configuration.substring(at + 1);
    }

    private static Row reduce(String configuration, int heavy, List<PointResult> all) {
        List<PointResult> accepted = all.stream().filter(PointResult::accepted).toList();
        // the last attempt of each repetition: earlier attempts were disturbed and re-run
        boolean flagged = accepted.isEmpty();
        List<PointResult> used = flagged ? lastAttempts(all) : accepted;
        int n = used.size();
        double light = used.stream().mapToDouble(p -> p.light().throughput()).average().orElse(Double.NaN);
        double spread = used.stream().mapToDouble(p -> p.light().throughput()).max().orElse(Double.NaN)
                - used.stream().mapToDouble(p -> p.light().throughput()).min().orElse(Double.NaN);
        return new Row(configuration, heavy, used.get(0).lightUsers(), n, flagged, light, spread,
                mean(used, p -> p.heavy().throughput()),
                mean(used, p -> p.light().p50Millis()), mean(used, p -> p.light().p99Millis()),
                mean(used, p -> p.heavy().p50Millis()), mean(used, p -> p.heavy().p99Millis()),
                used.stream().mapToLong(p -> p.light().rejected()).sum(),
                used.stream().mapToLong(p -> p.heavy().rejected()).sum(),
                used.stream().mapToLong(p -> p.light().failed()).sum(),
                used.stream().mapToLong(p -> p.heavy().failed()).sum(),
                used.stream().mapToLong(p -> p.light().requests() + p.heavy().requests()).sum(),
                used.stream().mapToLong(p -> p.light().oldestOpenMillis()).max().orElse(0),
                mean(used, PointResult::serverCpu), mean(used, PointResult::lightCpu),
                mean(used, PointResult::heavyCpu), mean(used, PointResult::jitCpu), Double.NaN, Double.NaN);
    }

    private static List<PointResult> lastAttempts(List<PointResult> all) {
        Map<Integer, PointResult> last = new LinkedHashMap<>();
        for (PointResult p : all) {
            last.merge(p.repetition(), p, (a, b) -> b.attempt() > a.attempt() ? b : a);
        }
        return new ArrayList<>(last.values());
    }

    /** Mean of a per-window number, ignoring windows where it is undefined (-1: no successful request). */
    private static double mean(List<PointResult> used, java.util.function.ToDoubleFunction<PointResult> f) {
        return used.stream().mapToDouble(f).filter(v -> v >= 0 && !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    private static Row withRetention(Row r, double own, double none) {
        return new Row(r.configuration(), r.heavyUsers(), r.lightUsers(), r.windows(), r.flagged(), r.light(),
                r.lightSpread(), r.heavy(), r.lightP50(), r.lightP99(), r.heavyP50(), r.heavyP99(),
                r.lightRejected(), r.heavyRejected(), r.lightFailed(), r.heavyFailed(), r.requests(),
                r.lightOldestOpenMillis(), r.serverCpu(), r.lightCpu(),
                r.heavyCpu(), r.jitCpu(), ratio(r.light(), own), ratio(r.light(), none));
    }

    private static double ratio(double light, double unloaded) {
        return unloaded > 0 ? light / unloaded : Double.NaN;
    }

    public List<Row> rows() {
        return rows;
    }

    public List<String> configurations() {
        return configurations;
    }

    public List<Row> rowsOf(String configuration) {
        return rows.stream().filter(r -> r.configuration().equals(configuration)).toList();
    }

    /** The row of a configuration at its heaviest measured point, if any. */
    public Row heaviestRow(String configuration) {
        List<Row> of = rowsOf(configuration);
        return of.isEmpty() ? null : of.get(of.size() - 1);
    }
}
