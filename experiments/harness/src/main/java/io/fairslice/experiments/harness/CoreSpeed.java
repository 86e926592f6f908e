package io.fairslice.experiments.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How steadily the host runs the server's core: a fixed unit of work, timed by the thread's own CPU clock, sampled a
 * few times in a JVM pinned to that core before the run and after it. On a steady machine the samples agree within a
 * few percent; some virtual machines switch a core between speeds within seconds (this project's did on 2026-11-27:
 * 300-670 ms for the same work, docs/measurements/host-speed-20261127), and then a server's windows, minutes apart,
 * run at different speeds and retention spreads with them. The run records the samples and says so; it does not
 * correct for them.
 */
final class CoreSpeed {

    /** Samples whose slowest is more than this many times the fastest: the host is not steady. */
    static final double STEADY_SPREAD = 1.2;

    /**
     * The unit: a fixed number of steps along a random cycle through 1 MB of ints, which lives in the core's caches
     * the way a request's working set does. A loop on registers alone read steady (803-845 ms) on the host whose 1 MB
     * walk took 299-897 ms and whose 16 MB walk (main memory) 859-956 ms (2026-11-27): what varied there was how fast
     * the caches served the core, which is what slowed the server.
     */
    private static final int CYCLE = 1 << 18;
    private static final long STEPS = 5_000_000L;

    private CoreSpeed() {
    }

    /** The samples in ms of CPU time, in the order taken. */
    record Samples(List<Double> millis) {

        Samples {
            millis = List.copyOf(millis);
            if (millis.isEmpty()) {
                throw new IllegalArgumentException("no samples");
            }
        }

        double fastest() {
            return millis.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        }

        double slowest() {
            return millis.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        }

        double median() {
            List<Double> sorted = millis.stream().sorted().toList();
            int n = sorted.size();
            return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        }

        boolean steady() {
            return slowest() <= STEADY_SPREAD * fastest();
        }

        /** One line for run.properties and the console. */
        String describe() {
            return String.format(Locale.ROOT, "%.0f-%.0f ms (median %.0f) over %d samples of a fixed unit of work%s",
                    fastest(), slowest(), median(), millis.size(), steady() ? ""
                            : String.format(Locale.ROOT, ": not steady (slowest %.2fx the fastest)",
                            slowest() / fastest()));
        }

        /** Reads what {@link #main} printed: one number of ms per line. */
        static Samples parse(String output) {
            List<Double> millis = new ArrayList<>();
            for (String line : output.split("\\R")) {
                if (!line.isBlank()) {
                    try {
                        millis.add(Double.parseDouble(line.trim()));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("core speed: not a number of ms: '" + line.trim() + "'", e);
                    }
                }
            }
            return new Samples(millis);
        }
    }

    /**
     * How the core's speed after the run differs from its speed before it, when by more than {@link #STEADY_SPREAD}
     * either way ("median 45 ms after the run against 30 ms before it: 1.50x"), else null; null too when either was not
     * sampled. Each set of samples is checked for steadiness on its own; a host that changed speed between them ran
     * the first configurations and the last ones at different speeds.
     */
    static String change(Samples before, Samples after) {
        return change(before, after, "after the run", "before it");
    }

    /** As {@link #change(Samples, Samples)}, the samples' times named ("as the run goes on", "at its start"). */
    static String change(Samples before, Samples after, String afterWhen, String beforeWhen) {
        if (before == null || after == null) {
            return null;
        }
        double ratio = after.median() / before.median();
        if (ratio <= STEADY_SPREAD && ratio >= 1 / STEADY_SPREAD) {
            return null;
        }
        return String.format(Locale.ROOT, "median %.0f ms %s against %.0f ms %s: %.2fx",
                after.median(), afterWhen, before.median(), beforeWhen, ratio);
    }

    /** A random cycle through {@link #CYCLE} ints: {@code next[i]} is the step after {@code i}. */
    static int[] cycle() {
        int[] order = new int[CYCLE];
        for (int i = 0; i < CYCLE; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(2026);
        for (int i = CYCLE - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] next = new int[CYCLE];
        for (int i = 0; i < CYCLE; i++) {
            next[order[i]] = order[(i + 1) % CYCLE];
        }
        return next;
    }

    /** One unit of work; returns where it ended so that the compiler cannot drop it. */
    static int unit(int[] next) {
        int p = 0;
        for (long i = 0; i < STEPS; i++) {
            p = next[p];
        }
        return p;
    }

    /**
     * {@code CoreSpeed N GAP_MS}: N samples, GAP_MS apart, each printed as ms of this thread's CPU time on its own
     * line, after two units that let the JIT compile the loop. Run pinned to the core to gauge.
     */
    public static void main(String[] args) throws InterruptedException {
        int n = Integer.parseInt(args[0]);
        long gap = Long.parseLong(args[1]);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int[] next = cycle();
        long sink = unit(next) + unit(next);
        for (int i = 0; i < n; i++) {
            long t0 = threads.getCurrentThreadCpuTime();
            sink += unit(next);
            long t1 = threads.getCurrentThreadCpuTime();
            System.out.println(String.format(Locale.ROOT, "%.1f", (t1 - t0) / 1e6));
            Thread.sleep(gap);
        }
        if (sink == -1) {
            System.err.println(sink); // never, but the compiler cannot know
        }
    }
}
