package io.fairslice.experiments.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts one measurement window out of a simulation.log and summarises it per request class. A request belongs to
 * the window when it ends inside it (so the warm-up's requests and the stragglers after the run do not count);
 * the class is the part of the request name before the colon ({@code light:/light}), as the loadgen names them.
 */
public final class WindowAnalyzer {

    /** The two classes of the study; anything else in the log is counted under OTHER and not reported. */
    public enum RequestClass {
        LIGHT, HEAVY, OTHER;

        static RequestClass of(String requestName) {
            int colon = requestName.indexOf(':');
            String prefix = colon < 0 ? requestName : requestName.substring(0, colon);
            return switch (prefix) {
                case "light" -> LIGHT;
                case "heavy" -> HEAVY;
                default -> OTHER;
            };
        }
    }

    /**
     * A window's result and where it came from. {@code firstHeavyEndMillis}: when, in ms since the run's start, the
     * load's first heavy requests had all ended (-1 without served heavy requests): those that began before any was
     * served, each heavy client's first, started together as the load began. At or after the window's start, the
     * window holds the load's start.
     */
    public record Window(SimulationLog.Header header, long fromEpochMillis, long toEpochMillis,
                         Map<RequestClass, ClassStats> stats, boolean logTruncated, long firstHeavyEndMillis) {
        public ClassStats light() {
            return stats.getOrDefault(RequestClass.LIGHT, ClassStats.EMPTY);
        }

        public ClassStats heavy() {
            return stats.getOrDefault(RequestClass.HEAVY, ClassStats.EMPTY);
        }
    }

    private WindowAnalyzer() {
    }

    /**
     * Summarises the window [{@code fromMillis}, {@code toMillis}) measured from the run's start.
     *
     * @throws IllegalArgumentException if the window is empty or reversed
     */
    public static Window analyze(Path simulationLog, long fromMillis, long toMillis) throws IOException {
        if (fromMillis < 0 || toMillis <= fromMillis) {
            throw new IllegalArgumentException("the window must satisfy 0 <= from < to, got [" + fromMillis + ", "
                    + toMillis + ") ms");
        }
        Map<RequestClass, Accumulator> accumulators = new EnumMap<>(RequestClass.class);
        for (RequestClass c : RequestClass.values()) {
            accumulators.put(c, new Accumulator());
        }
        SimulationLog.Summary summary = SimulationLog.read(simulationLog, new SimulationLog.Visitor() {
            @Override
            public void request(SimulationLog.Request request) {
                accumulators.get(RequestClass.of(request.name())).add(request, fromMillis, toMillis);
            }
        });
        double seconds = (toMillis - fromMillis) / 1000.0;
        Map<RequestClass, ClassStats> stats = new EnumMap<>(RequestClass.class);
        stats.put(RequestClass.LIGHT, accumulators.get(RequestClass.LIGHT).stats(seconds));
        stats.put(RequestClass.HEAVY, accumulators.get(RequestClass.HEAVY).stats(seconds));
        long start = summary.header().startEpochMillis();
        return new Window(summary.header(), start + fromMillis, start + toMillis, Map.copyOf(stats),
                summary.truncated(), accumulators.get(RequestClass.HEAVY).firstEnd());
    }

    /** Is this failure the server shedding load (503/429) rather than something broken? */
    static boolean isRejection(String message) {
        // Gatling's default status check fails with "status.find.in(...), but actually found 503"
        return message.endsWith("found 503") || message.endsWith("found 429");
    }

    private static final class Accumulator {
        private int[] latencies = new int[1024];
        private int size;
        private long requests;
        private long rejected;
        private long failed;
        private long oldestOpen;
        /**
         * The earliest end of a served request seen, and the requests that began before it: the load's first ones. Not
         * of any request: one shed at once (a 503 in milliseconds) ends before every client's first has started.
         */
        private int earliestEnd = Integer.MAX_VALUE;
        private final List<SimulationLog.Request> first = new ArrayList<>();

        void add(SimulationLog.Request r, long from, long to) {
            if (r.ok() && r.endMillis() < earliestEnd) {
                earliestEnd = r.endMillis();
                first.removeIf(f -> f.startMillis() >= earliestEnd);
                first.add(r);
            } else if (r.startMillis() < earliestEnd) {
                first.add(r);
            }
            if (r.startMillis() < to && r.endMillis() >= to) {
                oldestOpen = Math.max(oldestOpen, to - r.startMillis());
            }
            if (r.endMillis() < from || r.endMillis() >= to) {
                return;
            }
            requests++;
            if (r.ok()) {
                if (size == latencies.length) {
                    latencies = Arrays.copyOf(latencies, size * 2);
                }
                latencies[size++] = r.latencyMillis();
            } else if (isRejection(r.message())) {
                rejected++;
            } else {
                failed++;
            }
        }

        /** When the class's first requests had all ended, ms since the run's start; -1 without a served one. */
        long firstEnd() {
            return earliestEnd == Integer.MAX_VALUE ? -1
                    : first.stream().mapToLong(SimulationLog.Request::endMillis).max().orElse(-1);
        }

        ClassStats stats(double seconds) {
            if (size == 0) {
                return new ClassStats(requests, 0, rejected, failed, 0, -1, -1, -1, -1, -1, oldestOpen);
            }
            int[] sorted = Arrays.copyOf(latencies, size);
            Arrays.sort(sorted);
            long sum = 0;
            for (int v : sorted) {
                sum += v;
            }
            return new ClassStats(requests, size, rejected, failed, size / seconds, percentile(sorted, 50),
                    percentile(sorted, 90), percentile(sorted, 99), sorted[size - 1], (double) sum / size, oldestOpen);
        }

        /** Nearest-rank percentile: the smallest value with at least p % of the samples at or below it. */
        private static long percentile(int[] sorted, double p) {
            int rank = (int) Math.ceil(p / 100.0 * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }
}
