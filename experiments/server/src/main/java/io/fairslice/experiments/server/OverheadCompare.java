package io.fairslice.experiments.server;

import static io.fairslice.experiments.server.CommandLine.number;
import static io.fairslice.experiments.server.CommandLine.parseOrExit;
import static io.fairslice.experiments.server.CommandLine.policyName;
import static io.fairslice.experiments.server.CommandLine.value;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The middleware's cost without overload, side by side: the light page's capacity (closed loop, light clients only,
 * no heavy page) of the study server without middleware and with a fairslice policy. Both servers run at once,
 * pinned to CPU 1 (the load on CPU 0), warmed up, then measured in alternating windows, pair after pair, with the
 * order swapped every pair, so that drift of the shared machine falls on both alike. Each window gives light req/s
 * and requests per CPU-second of the loaded server (the latter does not count time the server did not get: steal,
 * other processes). Each round starts both servers afresh: two JVMs of the same program do not compile it the same
 * way (the light page's fib(25) ran 4 % slower in one JVM than in another under a profiler), so the pairs of one
 * round share that difference. The result is the mean of the rounds' mean ratios policy/none, with a 95 % confidence
 * interval over the rounds, which counts that variation.
 *
 * <p>The windows measure compiled code, not the JIT compiler at work: each server is warmed up (alone, the other
 * idle) for at least {@code --warmup-ms}, then in 5 s steps until its compiler threads used less than 1 % of its CPU in
 * the last step, for at most {@code --warmup-max-ms}. With 30 clients on one core the compiler gets little CPU and
 * the server's code compiles slowly (C2 threads at 6-7 % of the server's CPU 30-40 s into the load, under 0.5 % from
 * 60 s: docs/benchmarks/README.md); the middleware's own code is more to compile, and a window inside the warm-up
 * would count that one-off work as its per-request cost. The compiler's share of every window is printed beside it.
 *
 * <pre>
 * java -cp 'experiments/server/target/fairslice-study-server-0.1.0-SNAPSHOT.jar:experiments/server/target/lib/*' \
 *     io.fairslice.experiments.server.OverheadCompare [--policy share] [--rounds 3] [--pairs 4] [--warmup-ms 20000]
 *     [--warmup-max-ms 120000] [--settle-ms 2000] [--window-ms 10000] [--light 30] [--rr] [--fairslice k=v ...]
 *     [--jvm OPTION ...] [--policy-jvm OPTION ...]
 * </pre>
 * {@code --jvm} options go to both servers (e.g. the weaving agent, so that both pay for it and the difference is
 * fairslice's); {@code --policy-jvm} options to the policy's server only (the weaving agent there: what a deployment
 * with fairslice and its agent costs against one with neither); {@code --rr} runs both under {@code chrt -r 1}.
 */
public final class OverheadCompare {

    /** Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom. */
    private static final double[] T95 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042};

    private OverheadCompare() {
    }

    /** A warm-up step. */
    private static final long WARMUP_STEP_MS = 5_000;

    /**
     * One measured window of one server: light req/s, light requests per CPU-second of the server, failures, and the
     * share of the server's CPU its JIT compiler threads used (NaN where that cannot be read).
     */
    record Window(double perSecond, double perCpuSecond, long failed, double jit) {
    }

    static final String USAGE = "usage: OverheadCompare [--policy share] [--rounds 3] [--pairs 4] [--warmup-ms 20000]"
            + " [--warmup-max-ms 120000] [--settle-ms 2000] [--window-ms 10000] [--light 30] [--rr]"
            + " [--fairslice k=v ...] [--jvm OPTION ...] [--policy-jvm OPTION ...]";

    /** The command line, checked: {@link #parse} names the option that is wrong. */
    record Options(String policy, int rounds, int pairs, long warmup, long warmupMax, long settle, long window,
                   int light, boolean rr, List<String> fairslice, List<String> jvm, List<String> policyJvm) {

        static Options parse(String... args) {
            String policy = "share";
            int rounds = 3;
            int pairs = 4;
            long warmup = 20_000;
            long warmupMax = 120_000;
            long settle = 2_000;
            long window = 10_000;
            int light = 30;
            boolean rr = false;
            List<String> fairslice = new ArrayList<>();
            List<String> jvm = new ArrayList<>();
            List<String> policyJvm = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                switch (option) {
                    case "--rr" -> rr = true;
                    case "--policy" -> policy = policyName(option, value(args, ++i, option));
                    case "--rounds" -> rounds = (int) number(option, value(args, ++i, option), 2, 30);
                    case "--pairs" -> pairs = (int) number(option, value(args, ++i, option), 1, 30);
                    case "--warmup-ms" -> warmup = number(option, value(args, ++i, option), 0, Long.MAX_VALUE);
                    case "--warmup-max-ms" -> warmupMax = number(option, value(args, ++i, option), 0, Long.MAX_VALUE);
                    case "--settle-ms" -> settle = number(option, value(args, ++i, option), 0, Long.MAX_VALUE);
                    case "--window-ms" -> window = number(option, value(args, ++i, option), 1, Long.MAX_VALUE);
                    case "--light" -> light = (int) number(option, value(args, ++i, option), 1, 10_000);
                    case "--fairslice" -> fairslice.addAll(List.of("--fairslice", value(args, ++i, option)));
                    case "--jvm" -> jvm.add(value(args, ++i, option));
                    case "--policy-jvm" -> policyJvm.add(value(args, ++i, option));
                    default -> throw new IllegalArgumentException("unknown option '" + option + "'");
                }
            }
            if (warmupMax < warmup) {
                throw new IllegalArgumentException("--warmup-max-ms must be at least --warmup-ms (" + warmup + "), got "
                        + warmupMax);
            }
            return new Options(policy, rounds, pairs, warmup, warmupMax, settle, window, light, rr,
                    List.copyOf(fairslice), List.copyOf(jvm), List.copyOf(policyJvm));
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = parseOrExit("OverheadCompare", USAGE, Options::parse, args);
        String policy = o.policy();
        boolean pinned = ForkedServer.canPin() && ForkedServer.pinThisJvm("0");
        List<String> prefix = o.rr() ? List.of("chrt", "-r", "1") : List.of();
        List<String> jvm = new ArrayList<>(ServerOptions.JVM_OPTIONS);
        jvm.addAll(o.jvm());
        List<String> policyJvm = new ArrayList<>(jvm);
        policyJvm.addAll(o.policyJvm());
        List<String> withPolicy = new ArrayList<>(List.of("--port", "0", "--policy", policy));
        withPolicy.addAll(o.fairslice());
        System.out.printf(Locale.ROOT, "# overhead of %s without overload: %d light clients, no heavy, %d rounds (fresh"
                        + " JVMs) of %d pairs of %d ms windows (%d ms settle), warm-up %d ms and until the JIT uses"
                        + " < %.0f %% of the server's CPU (at most %d ms), %s, %s, server JVM %s%n", policy, o.light(),
                o.rounds(), o.pairs(), o.window(), o.settle(), o.warmup(), ProcCpu.JIT_SETTLED * 100, o.warmupMax(),
                pinned ? "servers pinned to CPU 1, load to CPU 0" : "unpinned", o.rr() ? "SCHED_RR" : "SCHED_OTHER",
                String.join(" ", jvm));
        if (!o.policyJvm().isEmpty()) {
            System.out.printf(Locale.ROOT, "# %s's server also: %s%n", policy, String.join(" ", o.policyJvm()));
        }
        System.out.printf(Locale.ROOT, "%5s %4s %10s %10s %7s %12s %12s %7s %8s %8s%n", "round", "pair", "none/s",
                policy + "/s", "ratio", "none/cpu-s", policy + "/cpu-s", "ratio", "none-jit", policy + "-jit");
        double[] rate = new double[o.rounds()];
        double[] perCpu = new double[o.rounds()];
        long failed = 0;
        for (int r = 0; r < o.rounds(); r++) {
            double[][] round = round(r, o, prefix, pinned, jvm, policyJvm, withPolicy);
            rate[r] = mean(round[0]);
            perCpu[r] = mean(round[1]);
            failed += (long) round[2][0];
        }
        System.out.println(summary(policy + "/none light req/s", rate));
        System.out.println(summary(policy + "/none light requests per CPU-second", perCpu));
        System.out.printf(Locale.ROOT, "failed requests: %d%n", failed);
    }

    /**
     * One round: both servers started afresh and warmed up one at a time, then {@code pairs} alternating windows.
     * Returns the pairs' ratios of req/s and of requests per CPU-second, and the failed requests (one value).
     */
    private static double[][] round(int r, Options o, List<String> prefix, boolean pinned, List<String> jvm,
                                    List<String> policyJvm, List<String> withPolicy) throws Exception {
        String policy = o.policy();
        int light = o.light();
        int pairs = o.pairs();
        long settle = o.settle();
        long window = o.window();
        try (ForkedServer none = ForkedServer.start(prefix, pinned ? "1" : null, jvm,
                List.of("--port", "0", "--policy", "none"));
             ForkedServer with = ForkedServer.start(prefix, pinned ? "1" : null, policyJvm, withPolicy)) {
            // JIT warm-up of each, one at a time (the other idles)
            String noneWarm = warmUp(none, light, o.warmup(), o.warmupMax());
            String withWarm = warmUp(with, light, o.warmup(), o.warmupMax());
            System.out.printf(Locale.ROOT, "%5d warm-up: none %s, %s %s%n", r + 1, noneWarm, policy, withWarm);
            double[] rate = new double[pairs];
            double[] perCpu = new double[pairs];
            long failed = 0;
            for (int p = 0; p < pairs; p++) {
                Window a;
                Window b;
                if (p % 2 == 0) {
                    a = measure(none, light, settle, window);
                    b = measure(with, light, settle, window);
                } else {
                    b = measure(with, light, settle, window);
                    a = measure(none, light, settle, window);
                }
                failed += a.failed() + b.failed();
                rate[p] = b.perSecond() / a.perSecond();
                perCpu[p] = b.perCpuSecond() / a.perCpuSecond();
                System.out.printf(Locale.ROOT, "%5d %4d %10.1f %10.1f %7.4f %12.1f %12.1f %7.4f %7.1f%% %7.1f%%%n",
                        r + 1, p + 1, a.perSecond(), b.perSecond(), rate[p], a.perCpuSecond(), b.perCpuSecond(),
                        perCpu[p], a.jit() * 100, b.jit() * 100);
            }
            System.out.printf(Locale.ROOT, "%5d mean %29.4f %33.4f%n", r + 1, mean(rate), mean(perCpu));
            return new double[][] {rate, perCpu, {failed}};
        }
    }

    private static double mean(double[] xs) {
        double sum = 0;
        for (double x : xs) {
            sum += x;
        }
        return sum / xs.length;
    }

    /**
     * Loads the server for {@code min} ms, then in {@link #WARMUP_STEP_MS} steps until the JIT has settled
     * ({@link #settled}) or {@code max} ms have passed; says how long that took and the compiler's share at the end.
     */
    private static String warmUp(ForkedServer server, int light, long min, long max) throws Exception {
        Window w = measure(server, light, 1_000, Math.max(min, WARMUP_STEP_MS));
        long spent = Math.max(min, WARMUP_STEP_MS);
        while (!settled(w.jit()) && spent + WARMUP_STEP_MS <= max) {
            w = measure(server, light, 0, WARMUP_STEP_MS);
            spent += WARMUP_STEP_MS;
        }
        return String.format(Locale.ROOT, "%d s (JIT %.1f %% of its CPU%s)", spent / 1000, w.jit() * 100,
                settled(w.jit()) ? "" : Double.isNaN(w.jit()) ? ": unknown here" : ": not settled");
    }

    /** Whether the compiler threads' share of a step is below {@link ProcCpu#JIT_SETTLED}; false when not known. */
    static boolean settled(double jit) {
        return jit < ProcCpu.JIT_SETTLED;
    }

    /** Closed-loop light load on {@code server}: settles, then counts a window; the server's CPU in the window. */
    private static Window measure(ForkedServer server, int light, long settle, long window) throws Exception {
        long[] atStart = new long[2];
        try (ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            load.clients("/light", light);
            ClosedLoopLoad.Count c = load.measure(settle, window, () -> {
                atStart[0] = server.cpuTicks();
                atStart[1] = server.compilerTicks();
            }).get(0);
            long cpuTicks = server.cpuTicks() - atStart[0];
            long compilerTicks = server.compilerTicks() - atStart[1];
            double cpu = cpuTicks / ForkedServer.CLOCK_TICKS;
            double jit = atStart[1] < 0 || cpuTicks <= 0 ? Double.NaN : compilerTicks / (double) cpuTicks;
            return new Window(c.ok() * 1000.0 / window, cpu > 0 ? c.ok() / cpu : Double.NaN, c.failed(), jit);
        }
    }

    /** "name: mean 0.9912 (95 % CI 0.9850..0.9974), min .., max .., n rounds". */
    static String summary(String name, double[] ratios) {
        int n = ratios.length;
        double mean = 0;
        for (double r : ratios) {
            mean += r / n;
        }
        double var = 0;
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (double r : ratios) {
            var += (r - mean) * (r - mean) / (n - 1);
            min = Math.min(min, r);
            max = Math.max(max, r);
        }
        double half = T95[Math.min(n - 1, T95.length) - 1] * Math.sqrt(var / n);
        return String.format(Locale.ROOT, "%s: mean %.4f (95 %% CI %.4f..%.4f), min %.4f, max %.4f, %d rounds", name,
                mean, mean - half, mean + half, min, max, n);
    }
}
