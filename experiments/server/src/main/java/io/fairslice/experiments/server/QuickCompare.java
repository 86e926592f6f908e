package io.fairslice.experiments.server;

import static io.fairslice.experiments.server.CommandLine.number;
import static io.fairslice.experiments.server.CommandLine.parseOrExit;
import static io.fairslice.experiments.server.CommandLine.policyName;
import static io.fairslice.experiments.server.CommandLine.value;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A quick side-by-side of policies at one overloaded point, for the middleware's own check (the study harness does
 * the full runs): light-only first (the retention baseline), then 30 light + 40 heavy clients for each policy, each
 * in a fresh server JVM pinned to CPU 1 with the load on CPU 0 where taskset works.
 *
 * <pre>
 * java -cp 'experiments/server/target/fairslice-study-server-0.1.0-SNAPSHOT.jar:experiments/server/target/lib/*' \
 *     io.fairslice.experiments.server.QuickCompare [--policies none,sleep,share] [--warmup-ms 20000]
 *     [--window-ms 15000] [--light 30] [--heavy 40] [--rr] [--fairslice k=v ...] [--jvm OPTION ...]
 * </pre>
 * {@code --rr} runs the server under {@code chrt -r 1} (SCHED_RR; the slice is /proc/sys/kernel/sched_rr_timeslice_ms,
 * which the caller sets and restores). {@code --jvm} adds a server JVM option, e.g. the weaving agent's. Prints each
 * policy's throughput, light retention and the server's CPU busy share (of the one CPU it is pinned to) in the window.
 */
public final class QuickCompare {

    private QuickCompare() {
    }

    static final String USAGE = "usage: QuickCompare [--policies none,sleep,share] [--warmup-ms 20000]"
            + " [--window-ms 15000] [--light 30] [--heavy 40] [--rr] [--fairslice k=v ...] [--jvm OPTION ...]";

    /** The command line, checked: {@link #parse} names the option that is wrong. */
    record Options(List<String> policies, long warmup, long window, int light, int heavy, boolean rr,
                   List<String> fairslice, List<String> jvm) {

        static Options parse(String... args) {
            List<String> policies = List.of("none", "sleep", "share");
            // the JIT still compiles the woven heavy page after 8 s (C2 took a quarter of the core)
            long warmup = 20_000;
            long window = 15_000;
            int light = 30;
            int heavy = 40;
            boolean rr = false;
            List<String> fairslice = new ArrayList<>();
            List<String> jvm = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                switch (option) {
                    case "--rr" -> rr = true;
                    case "--policies" -> {
                        List<String> named = new ArrayList<>();
                        for (String p : value(args, ++i, option).split(",", -1)) {
                            named.add(policyName(option, p.trim()));
                        }
                        policies = List.copyOf(named);
                    }
                    case "--warmup-ms" -> warmup = number(option, value(args, ++i, option), 0, Long.MAX_VALUE);
                    case "--window-ms" -> window = number(option, value(args, ++i, option), 1, Long.MAX_VALUE);
                    case "--light" -> light = (int) number(option, value(args, ++i, option), 1, 10_000);
                    case "--heavy" -> heavy = (int) number(option, value(args, ++i, option), 0, 10_000);
                    case "--fairslice" -> fairslice.addAll(List.of("--fairslice", value(args, ++i, option)));
                    case "--jvm" -> jvm.add(value(args, ++i, option));
                    default -> throw new IllegalArgumentException("unknown option '" + option + "'");
                }
            }
            return new Options(policies, warmup, window, light, heavy, rr, List.copyOf(fairslice), List.copyOf(jvm));
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = parseOrExit("QuickCompare", USAGE, Options::parse, args);
        boolean pinned = ForkedServer.canPin() && ForkedServer.pinThisJvm("0");
        System.out.printf(Locale.ROOT, "# %d light + %d heavy clients, warm-up %d ms, window %d ms, %s, server %s%n",
                o.light(), o.heavy(), o.warmup(), o.window(), pinned ? "server pinned to CPU 1, load to CPU 0"
                        : "unpinned", o.rr() ? "SCHED_RR (chrt -r 1)" : "SCHED_OTHER");
        double[] base = run(o, pinned, "none", 0);
        System.out.printf(Locale.ROOT, "%-10s %10s %10s %10s %8s %8s%n", "policy", "light/s", "heavy/s", "retention",
                "failed", "busy");
        System.out.printf(Locale.ROOT, "%-10s %10.1f %10s %10s %8s %7.1f%%%n", "light-only", base[0], "-", "100.0%",
                "0", 100 * base[3]);
        for (String policy : o.policies()) {
            double[] r = run(o, pinned, policy, o.heavy());
            System.out.printf(Locale.ROOT, "%-10s %10.1f %10.1f %9.1f%% %8d %7.1f%%%n", policy, r[0], r[1],
                    100 * r[0] / base[0], (long) r[2], 100 * r[3]);
        }
    }

    /**
     * Light req/s, heavy req/s, failed requests, and the server's CPU busy share of one CPU in the window, with
     * {@code heavy} heavy clients beside the light ones.
     */
    private static double[] run(Options o, boolean pinned, String policy, int heavy) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--policy", policy));
        if (!"none".equals(policy)) {
            args.addAll(o.fairslice());
        }
        List<String> jvm = new ArrayList<>(ServerOptions.JVM_OPTIONS);
        jvm.addAll(o.jvm());
        try (ForkedServer server = ForkedServer.start(o.rr() ? List.of("chrt", "-r", "1") : List.of(),
                pinned ? "1" : null, jvm, args);
             ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            load.clients("/light", o.light());
            if (heavy > 0) {
                load.clients("/heavy", heavy);
            }
            long[] cpuBefore = new long[2];
            Map<String, Double> metricsBefore = new TreeMap<>();
            List<ClosedLoopLoad.Count> counts = load.measure(o.warmup(), o.window(), () -> {
                cpuBefore[0] = server.cpuTicks();
                cpuBefore[1] = System.nanoTime();
                metricsBefore.putAll(scrape(server.port()));
            });
            long cpuTicks = server.cpuTicks() - cpuBefore[0];
            double busy = cpuTicks / (ForkedServer.CLOCK_TICKS * (System.nanoTime() - cpuBefore[1]) / 1e9);
            Map<String, Double> metricsAfter = scrape(server.port());
            StringBuilder where = new StringBuilder();
            for (var e : metricsAfter.entrySet()) {
                double used = e.getValue() - metricsBefore.getOrDefault(e.getKey(), 0.0);
                where.append(String.format(Locale.ROOT, " %s %.1f%%", e.getKey(),
                        100 * used * ForkedServer.CLOCK_TICKS / cpuTicks));
            }
            if (!metricsAfter.isEmpty()) {
                System.out.printf(Locale.ROOT, "  %s: of the server's CPU:%s%n", policy, where);
            }
            ClosedLoopLoad.Count l = counts.get(0);
            ClosedLoopLoad.Count h = heavy > 0 ? counts.get(1) : new ClosedLoopLoad.Count(0, 0);
            return new double[] {l.ok() * 1000.0 / o.window(), h.ok() * 1000.0 / o.window(), l.failed() + h.failed(),
                busy};
        }
    }

    /**
     * CPU seconds by kind from the server's /metrics: fairslice's request CPU per class ("cpu:CLASS", request
     * threads inside the filter) and the JVM's GC pause time ("gc"). Empty when the server exports neither.
     */
    private static Map<String, Double> scrape(int port) {
        Map<String, Double> sums = new TreeMap<>();
        try {
            var client = HttpClient.newHttpClient();
            String body = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            RequestCpu.byClass(body).forEach((cls, seconds) -> sums.put("cpu:" + cls, seconds));
            for (String line : body.split("\n")) {
                if (line.startsWith("jvm_gc_pause_seconds_sum{")) {
                    sums.merge("gc", Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
                }
            }
        } catch (IOException | RuntimeException e) {
            return sums;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sums;
    }
}
