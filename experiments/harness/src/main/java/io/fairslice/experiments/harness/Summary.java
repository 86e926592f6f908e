package io.fairslice.experiments.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The run reduced to one row per configuration and point: means over the repetitions' accepted windows (if a
 * point has none, over its disturbed ones, and the row says so; a repetition whose every attempt was disturbed is left
 * out of a point that has accepted windows, and counted), and light retention: light throughput at H heavy
 * clients over light throughput with none, in the same configuration (repetition by repetition, then averaged), and
 * over the baseline's (no middleware under
 * the same scheduler, {@code none@<scheduler>}) light throughput with none. The second divides every configuration
 * by one number per scheduler, so the configurations' own unloaded windows and their noise drop out of comparisons.
 */
public final class Summary {

    /**
     * @param windows   windows the means are over
     * @param flagged   true when no accepted window existed and the means are over disturbed ones
     * @param disturbedRepetitions repetitions with no accepted window (left out of the means when others have one)
     * @param lightFailed light requests that failed in those windows (neither answered nor shed: another status
     *                  such as 404 or 500, a timeout, a connection error)
     * @param heavyFailed the same for heavy requests
     * @param requests  requests of both classes that ended in those windows
     * @param heavyRequests heavy requests that ended in those windows
     * @param lightOldestOpenMillis age, at a window's end, of the oldest light request still unanswered then (the
     *                  worst over the windows; 0 if none)
     * @param heavyOldestOpenMillis the same for heavy requests
     * @param windowMillis the shortest of those windows
     * @param lightCpu  the light pages' part of the server's CPU ({@link PointResult#lightCpu}), NaN when unknown
     * @param heavyCpu  the heavy page's part
     * @param jitCpu    the JIT compiler's part in the windows
     * @param retention light throughput here over light throughput at H = 0: the mean over the repetitions of each
     *                  one's own ratio (one server each with {@code freshServer = repetition}), the means' ratio when
     *                  the two rows share no repetition; NaN when H = 0 was not measured
     * @param retentionVsNone light throughput here over the baseline's at H = 0 under the same scheduler (NaN when
     *                  the run has no {@code none@<scheduler>} point at H = 0)
     * @param retentionDisturbed whether this row or the H = 0 row {@code retention} divides by is {@link #disturbed}
     *                  (a reference measured with less of the core reads low, and retention high)
     * @param vsNoneDisturbed the same for {@code retentionVsNone}: this row's, or the baseline's H = 0 row's
     */
    public record Row(String configuration, int heavyUsers, int lightUsers, int windows, boolean flagged,
                      int disturbedRepetitions, double light, double lightSpread, double heavy, double lightP50,
                      double lightP99, double heavyP50, double heavyP99, long lightRejected, long heavyRejected,
                      long lightFailed, long heavyFailed, long requests, long heavyRequests,
                      long lightOldestOpenMillis, long heavyOldestOpenMillis, long windowMillis, double serverCpu,
                      double lightCpu, double heavyCpu, double jitCpu,
                      double retention, double retentionVsNone, boolean retentionDisturbed,
                      boolean vsNoneDisturbed) {

        /** Light retention under ideal processor sharing among all clients (GUIDE section 2: 43 % at 30 + 40). */
        public double fairShareBound() {
            return (double) lightUsers / (lightUsers + heavyUsers);
        }

        /**
         * Whether this row is touched by disturbance: its means are over disturbed windows only ({@code flagged}), or
         * a repetition that stayed disturbed was left out of them (they are then over other servers than a row of
         * the same configuration that kept all its repetitions).
         */
        public boolean disturbed() {
            return flagged || disturbedRepetitions > 0;
        }

        /**
         * Whether a request was still unanswered at a window's end after a whole window's length or more, and more than
         * twice its class's p99 (or its class had no answered request): it ended in no window, so neither its class's
         * throughput nor its failures count it (a page that hangs until the load generator's timeout, longer than the
         * run, would show only as a class with no requests). The p99 keeps out heavy requests that wait most of a
         * window under overload, as they do (11.6 s open at the end of a 12 s window, p99 10.8 s, in a healthy run).
         */
        public boolean unansweredThroughAWindow() {
            return hung(lightOldestOpenMillis, lightP99) || hung(heavyOldestOpenMillis, heavyP99);
        }

        private boolean hung(long openMillis, double p99Millis) {
            return windowMillis > 0 && openMillis >= windowMillis && !(openMillis <= 2 * p99Millis);
        }

        /**
         * The larger of the two classes' failed requests over their requests in the windows; NaN when none ended
         * there. Per class: light requests outnumber heavy ones a hundredfold, so a heavy page whose every request
         * failed would be a fraction of a percent of both together.
         */
        public double failedShare() {
            long lightRequests = requests - heavyRequests;
            double light = lightRequests > 0 ? (double) lightFailed / lightRequests : Double.NaN;
            double heavy = heavyRequests > 0 ? (double) heavyFailed / heavyRequests : Double.NaN;
            return Double.isNaN(light) ? heavy : Double.isNaN(heavy) ? light : Math.max(light, heavy);
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
        Map<String, Row> unloaded = new LinkedHashMap<>();
        Map<String, Map<Integer, Map<Integer, Double>>> lightByRepetition = new LinkedHashMap<>();
        for (String configuration : configurations) {
            Map<Integer, List<PointResult>> byHeavy = grouped.get(configuration);
            for (int h : new TreeSet<>(byHeavy.keySet())) {
                List<PointResult> used = used(byHeavy.get(h));
                Row row = reduce(configuration, h, byHeavy.get(h), used);
                if (h == 0) {
                    unloaded.put(configuration, row);
                }
                reduced.add(row);
                lightByRepetition.computeIfAbsent(configuration, k -> new LinkedHashMap<>())
                        .put(h, lightByRepetition(used));
            }
        }
        List<Row> rows = new ArrayList<>();
        for (Row row : reduced) {
            Map<Integer, Map<Integer, Double>> byHeavy = lightByRepetition.get(row.configuration());
            Map<Integer, Double> loaded = byHeavy.get(row.heavyUsers());
            Map<Integer, Double> alone = byHeavy.get(0);
            boolean shared = alone != null && !Collections.disjoint(loaded.keySet(), alone.keySet());
            rows.add(withRetention(row, unloaded.get(row.configuration()),
                    unloaded.get(baselineOf(row.configuration())), pairedRetention(loaded, alone), shared));
        }
        return new Summary(rows, new ArrayList<>(configurations));
    }

    /** The windows a point's means are over: its accepted ones, or with none each repetition's least disturbed. */
    private static List<PointResult> used(List<PointResult> all) {
        List<PointResult> accepted = all.stream().filter(PointResult::accepted).toList();
        return accepted.isEmpty() ? leastDisturbed(all) : accepted;
    }

    /** Each repetition's mean light throughput over {@code used}, by repetition. */
    private static Map<Integer, Double> lightByRepetition(List<PointResult> used) {
        return used.stream().collect(Collectors.groupingBy(PointResult::repetition, TreeMap::new,
                Collectors.averagingDouble(p -> p.light().throughput())));
    }

    /**
     * Retention as the mean of each repetition's own ratio, loaded over unloaded, over the repetitions both points
     * have: with {@code freshServer = repetition} each is one server's, whose speed (fresh JVMs compile the pages
     * differently, up to 10 % apart) divides out, as docs/results.md pools servers. The mean over the mean (what the
     * report printed until 2026-12-06) weighed faster servers more and, when a repetition was left out of one point,
     * divided one set of servers by another: 83.9 against 84.9 % for the same three servers of
     * results/provisional-20261127. NaN when the points share no repetition (the caller then divides the means), or
     * when no shared one served a light request alone (nothing to divide by: the report says so).
     */
    static double pairedRetention(Map<Integer, Double> loaded, Map<Integer, Double> unloaded) {
        if (loaded == null || unloaded == null) {
            return Double.NaN;
        }
        return loaded.entrySet().stream().filter(e -> unloaded.getOrDefault(e.getKey(), 0.0) > 0)
                .mapToDouble(e -> e.getValue() / unloaded.get(e.getKey())).average().orElse(Double.NaN);
    }

    /** The baseline a configuration's retention-vs-none divides by: {@code none} under the same scheduler. */
    static String baselineOf(String configuration) {
        int at = configuration.indexOf('@');
        return "none@" + configuration.substring(at + 1);
    }

    /** The row of a point from all its windows and the ones its means are over ({@link #used}). */
    private static Row reduce(String configuration, int heavy, List<PointResult> all, List<PointResult> used) {
        List<PointResult> accepted = all.stream().filter(PointResult::accepted).toList();
        // with no accepted window, used holds each repetition's least disturbed attempt
        boolean flagged = accepted.isEmpty();
        int disturbedRepetitions = (int) (all.stream().mapToInt(PointResult::repetition).distinct().count()
                - accepted.stream().mapToInt(PointResult::repetition).distinct().count());
        int n = used.size();
        double light = used.stream().mapToDouble(p -> p.light().throughput()).average().orElse(Double.NaN);
        double spread = used.stream().mapToDouble(p -> p.light().throughput()).max().orElse(Double.NaN)
                - used.stream().mapToDouble(p -> p.light().throughput()).min().orElse(Double.NaN);
        return new Row(configuration, heavy, used.get(0).lightUsers(), n, flagged, disturbedRepetitions, light, spread,
                mean(used, p -> p.heavy().throughput()),
                mean(used, p -> p.light().p50Millis()), mean(used, p -> p.light().p99Millis()),
                mean(used, p -> p.heavy().p50Millis()), mean(used, p -> p.heavy().p99Millis()),
                used.stream().mapToLong(p -> p.light().rejected()).sum(),
                used.stream().mapToLong(p -> p.heavy().rejected()).sum(),
                used.stream().mapToLong(p -> p.light().failed()).sum(),
                used.stream().mapToLong(p -> p.heavy().failed()).sum(),
                used.stream().mapToLong(p -> p.light().requests() + p.heavy().requests()).sum(),
                used.stream().mapToLong(p -> p.heavy().requests()).sum(),
                used.stream().mapToLong(p -> p.light().oldestOpenMillis()).max().orElse(0),
                used.stream().mapToLong(p -> p.heavy().oldestOpenMillis()).max().orElse(0),
                used.stream().mapToLong(p -> Math.round(p.windowSeconds() * 1000)).min().orElse(0),
                mean(used, PointResult::serverCpu), mean(used, PointResult::lightCpu),
                mean(used, PointResult::heavyCpu), mean(used, PointResult::jitCpu), Double.NaN, Double.NaN, false,
                false);
    }

    /**
     * Each repetition's attempt whose server had most of its core (the later one of equals; one whose share is unknown,
     * NaN, last): every attempt of it was disturbed. The last attempt was taken before, though an earlier one could
     * have had more of the core (0.948 against 0.891 in a saved run).
     */
    private static List<PointResult> leastDisturbed(List<PointResult> all) {
        Map<Integer, PointResult> best = new LinkedHashMap<>();
        for (PointResult p : all) {
            best.merge(p.repetition(), p, (a, b) -> knownCpu(b) >= knownCpu(a) ? b : a);
        }
        return new ArrayList<>(best.values());
    }

    /** The server's share of its core in the window, -1 when unknown (NaN compared false with every share). */
    private static double knownCpu(PointResult p) {
        return Double.isNaN(p.serverCpu()) ? -1 : p.serverCpu();
    }

    /** Mean of a per-window number, ignoring windows where it is undefined (-1: no successful request). */
    private static double mean(List<PointResult> used, ToDoubleFunction<PointResult> f) {
        return used.stream().mapToDouble(f).filter(v -> v >= 0 && !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    /**
     * {@code r} with its retentions: over its own H = 0 row {@code own}, {@code paired} (the repetitions' own ratios)
     * where the two rows share a repetition ({@code shared}; NaN when no shared repetition served light pages alone),
     * else the means' ratio; and over the baseline's {@code none} (null: none), the means' ratio (its servers are
     * others). The means' ratio only where no repetition is shared: where the shared ones' light-only windows served
     * nothing, it divided by a mean of other servers' windows and that 0, and read high.
     */
    private static Row withRetention(Row r, Row own, Row none, double paired, boolean shared) {
        return new Row(r.configuration(), r.heavyUsers(), r.lightUsers(), r.windows(), r.flagged(),
                r.disturbedRepetitions(), r.light(), r.lightSpread(), r.heavy(), r.lightP50(), r.lightP99(),
                r.heavyP50(), r.heavyP99(), r.lightRejected(), r.heavyRejected(), r.lightFailed(), r.heavyFailed(),
                r.requests(), r.heavyRequests(), r.lightOldestOpenMillis(), r.heavyOldestOpenMillis(),
                r.windowMillis(), r.serverCpu(), r.lightCpu(),
                r.heavyCpu(), r.jitCpu(), shared ? paired : ratio(r.light(), own),
                ratio(r.light(), none),
                r.disturbed() || own != null && own.disturbed(), r.disturbed() || none != null && none.disturbed());
    }

    private static double ratio(double light, Row unloaded) {
        return unloaded != null && unloaded.light() > 0 ? light / unloaded.light() : Double.NaN;
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
