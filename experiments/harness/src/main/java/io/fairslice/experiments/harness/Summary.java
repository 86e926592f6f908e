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
 * clients over light throughput with none, in the same configuration.
 */
public final class Summary {

    /**
     * @param windows   windows the means are over
     * @param flagged   true when no accepted window existed and the means are over disturbed ones
     * @param retention light throughput here over light throughput at H = 0 (NaN when H = 0 was not measured)
     */
    public record Row(String configuration, int heavyUsers, int lightUsers, int windows, boolean flagged,
                      double light, double lightSpread, double heavy, double lightP50, double lightP99,
                      double heavyP50, double heavyP99, long lightRejected, long heavyRejected,
                      long lightOldestOpenMillis, double serverCpu, double retention) {

        /** Light retention under ideal processor sharing among all clients (GUIDE section 2: 43 % at 30 + 40). */
        public double fairShareBound() {
            return (double) lightUsers / (lightUsers + heavyUsers);
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
        List<Row> rows = new ArrayList<>();
        for (String configuration : configurations) {
            Map<Integer, List<PointResult>> byHeavy = grouped.get(configuration);
            double baseline = Double.NaN;
            for (int h : new TreeSet<>(byHeavy.keySet())) {
                Row row = reduce(configuration, h, byHeavy.get(h));
                if (h == 0) {
                    baseline = row.light();
                }
                rows.add(withRetention(row, baseline));
            }
        }
        return new Summary(rows, new ArrayList<>(configurations));
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
                used.stream().mapToLong(p -> p.light().oldestOpenMillis()).max().orElse(0),
                mean(used, PointResult::serverCpu), Double.NaN);
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

    private static Row withRetention(Row r, double baseline) {
        double retention = baseline > 0 ? r.light() / baseline : Double.NaN;
        return new Row(r.configuration(), r.heavyUsers(), r.lightUsers(), r.windows(), r.flagged(), r.light(),
                r.lightSpread(), r.heavy(), r.lightP50(), r.lightP99(), r.heavyP50(), r.heavyP99(),
                r.lightRejected(), r.heavyRejected(), r.lightOldestOpenMillis(), r.serverCpu(), retention);
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
