package io.fairslice.experiments.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A quick side-by-side of policies at one overloaded point, for the middleware's own check (the study harness does
 * the full runs): light-only first (the retention baseline), then 30 light + 40 heavy clients for each policy, each
 * in a fresh server JVM pinned to CPU 1 with the load on CPU 0 where taskset works.
 *
 * <pre>
 * java -cp 'experiments/server/target/fairslice-study-server-0.1.0-SNAPSHOT.jar:experiments/server/target/lib/*' \
 *     io.fairslice.experiments.server.QuickCompare [--policies none,sleep,share] [--warmup-ms 8000]
 *     [--window-ms 15000] [--light 30] [--heavy 40] [--rr] [--fairslice k=v ...]
 * </pre>
 * {@code --rr} runs the server under {@code chrt -r 1} (SCHED_RR; the slice is /proc/sys/kernel/sched_rr_timeslice_ms,
 * which the caller sets and restores).
 */
public final class QuickCompare {

    private QuickCompare() {
    }

    public static void main(String[] args) throws Exception {
        List<String> policies = List.of("none", "sleep", "share");
        long warmup = 8_000;
        long window = 15_000;
        int lightClients = 30;
        int heavyClients = 40;
        boolean rr = false;
        List<String> extra = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--policies" -> policies = List.of(args[++i].split(","));
                case "--warmup-ms" -> warmup = Long.parseLong(args[++i]);
                case "--window-ms" -> window = Long.parseLong(args[++i]);
                case "--light" -> lightClients = Integer.parseInt(args[++i]);
                case "--heavy" -> heavyClients = Integer.parseInt(args[++i]);
                case "--rr" -> rr = true;
                case "--fairslice" -> extra.addAll(List.of("--fairslice", args[++i]));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        boolean pinned = ForkedServer.canPin() && ForkedServer.pinThisJvm("0");
        System.out.printf(Locale.ROOT, "# %d light + %d heavy clients, warm-up %d ms, window %d ms, %s, server %s%n",
                lightClients, heavyClients, warmup, window,
                pinned ? "server pinned to CPU 1, load to CPU 0" : "unpinned", rr ? "SCHED_RR (chrt -r 1)" : "SCHED_OTHER");
        double base = run(rr, pinned, "none", List.of(), lightClients, 0, warmup, window)[0];
        System.out.printf(Locale.ROOT, "%-8s %10s %10s %10s %8s%n", "policy", "light/s", "heavy/s", "retention",
                "failed");
        System.out.printf(Locale.ROOT, "%-8s %10.1f %10s %10s %8s%n", "light-only", base, "-", "100.0%", "0");
        for (String policy : policies) {
            double[] r = run(rr, pinned, policy, "none".equals(policy) ? List.of() : extra, lightClients, heavyClients,
                    warmup, window);
            System.out.printf(Locale.ROOT, "%-8s %10.1f %10.1f %9.1f%% %8d%n", policy, r[0], r[1], 100 * r[0] / base,
                    (long) r[2]);
        }
    }

    /** Light req/s, heavy req/s, failed requests. */
    private static double[] run(boolean rr, boolean pinned, String policy, List<String> extra, int light, int heavy,
                                long warmup, long window) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--policy", policy));
        args.addAll(extra);
        List<String> jvm = List.of("-XX:+UseSerialGC", "-Xms4g", "-Xmx4g", "-Xmn3g");
        try (ForkedServer server = ForkedServer.start(rr ? List.of("chrt", "-r", "1") : List.of(),
                pinned ? "1" : null, jvm, args);
             ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            load.clients("/light", light);
            if (heavy > 0) {
                load.clients("/heavy", heavy);
            }
            List<ClosedLoopLoad.Count> counts = load.measure(warmup, window);
            ClosedLoopLoad.Count l = counts.get(0);
            ClosedLoopLoad.Count h = heavy > 0 ? counts.get(1) : new ClosedLoopLoad.Count(0, 0);
            return new double[] {l.ok() * 1000.0 / window, h.ok() * 1000.0 / window, l.failed() + h.failed()};
        }
    }
}
