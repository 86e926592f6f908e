package io.fairslice.probe;

import io.fairslice.probe.internal.Attribution;
import io.fairslice.probe.internal.Sampler;
import io.fairslice.probe.linux.LinuxKernelProbe;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures what the Linux probe costs, in CPU time of the measuring thread (not wall time: the machine is shared):
 * one reading per thread for each kind of read, the sampler's pass over N tracked threads, and the enter/exit pair
 * the middleware calls around every request, with and without the nice actuator. Usage:
 * {@code ProbeCostMain [threads=200] [rounds=50]}; prints {@code key=value} lines. Saved output:
 * docs/measurements/kernel-probe.txt.
 */
public final class ProbeCostMain {

    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    private static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        LinuxKernelProbe probe = LinuxKernelProbe.create();
        Attribution attribution = new Attribution(probe, List.of("light", "heavy"), "none", Map.of(), Map.of(),
                System.err::println);
        Sampler sampler = new Sampler(attribution, probe, 1_000_000_000L, 60_000_000_000L, System.err::println);

        // N idle worker threads, each tracked (entered and exited once), parked like an idle Tomcat pool
        CountDownLatch ready = new CountDownLatch(threads);
        List<Thread> pool = new ArrayList<>();
        List<ThreadHandle> handles = new ArrayList<>();
        long[] tids = new long[threads];
        for (int i = 0; i < threads; i++) {
            int slot = i;
            Thread t = new Thread(() -> {
                tids[slot] = probe.currentThreadId();
                attribution.enter("light");
                attribution.exit("light");
                ready.countDown();
                while (!stop) {
                    LockSupport.parkNanos(50_000_000L);
                }
            }, "idle-worker-" + i);
            t.setDaemon(true);
            t.start();
            pool.add(t);
        }
        ready.await();
        for (long tid : tids) {
            handles.add(probe.openThread(tid));
        }
        ThreadStats s = new ThreadStats();
        ThreadHandle own = probe.openCurrentThread();

        // warm up every path (JIT)
        for (int w = 0; w < 3; w++) {
            for (ThreadHandle h : handles) {
                h.read(s, false);
                h.read(s, true);
            }
            for (int i = 0; i < 20_000; i++) {
                probe.readCurrentThread(own, s);
                attribution.enter("heavy");
                attribution.exit("heavy");
            }
            sampler.tick();
        }

        out("threads", threads);
        out("rounds", rounds);
        out("kernel", System.getProperty("os.version"));
        out("java", System.getProperty("java.version"));

        long t0 = cpu();
        for (int r = 0; r < rounds; r++) {
            for (ThreadHandle h : handles) {
                h.read(s, false);
            }
        }
        out("us_per_thread_read_schedstat_and_sched", (cpu() - t0) / 1e3 / rounds / threads);

        t0 = cpu();
        for (int r = 0; r < rounds; r++) {
            for (ThreadHandle h : handles) {
                h.read(s, true);
            }
        }
        out("us_per_thread_read_with_policy_nice_slice", (cpu() - t0) / 1e3 / rounds / threads);

        int ownReads = 200_000;
        t0 = cpu();
        for (int i = 0; i < ownReads; i++) {
            probe.readCurrentThread(own, s);
        }
        out("us_per_own_read_schedstat_and_getrusage", (cpu() - t0) / 1e3 / ownReads);

        t0 = cpu();
        for (int r = 0; r < rounds; r++) {
            sampler.tick();
        }
        double tickUs = (cpu() - t0) / 1e3 / rounds;
        out("tracked_threads", attribution.trackedThreads());
        out("us_per_sampler_pass", tickUs);
        out("us_per_thread_per_sample", tickUs / attribution.trackedThreads());
        out("sampler_cpu_share_at_1s_interval", tickUs / 1e6);
        out("sampler_interval_chosen_s", sampler.intervalNanos() / 1e9);

        int pairs = 200_000;
        t0 = cpu();
        for (int i = 0; i < pairs; i++) {
            attribution.enter("heavy");
            attribution.exit("heavy");
        }
        out("us_per_enter_exit_pair", (cpu() - t0) / 1e3 / pairs);

        Attribution niced = new Attribution(probe, List.of("light", "heavy"), "none", Map.of("heavy", 5), Map.of(),
                System.err::println);
        for (int i = 0; i < 20_000; i++) {
            niced.enter("heavy");
            niced.exit("heavy");
        }
        t0 = cpu();
        for (int i = 0; i < pairs; i++) {
            niced.enter("heavy");
            niced.exit("heavy");
        }
        out("us_per_enter_exit_pair_with_nice_actuator", (cpu() - t0) / 1e3 / pairs);
        if (probe.actuator().supportsSlice()) {
            Attribution sliced = new Attribution(probe, List.of("light", "heavy"), "none", Map.of(),
                    Map.of("heavy", 1_000_000L), System.err::println);
            for (int i = 0; i < 20_000; i++) {
                sliced.enter("heavy");
                sliced.exit("heavy");
            }
            t0 = cpu();
            for (int i = 0; i < pairs; i++) {
                sliced.enter("heavy");
                sliced.exit("heavy");
            }
            out("us_per_enter_exit_pair_with_slice_actuator", (cpu() - t0) / 1e3 / pairs);
            sliced.close();
        }
        niced.close();
        stop = true;
        attribution.close();
    }

    private static long cpu() {
        return MX.getCurrentThreadCpuTime();
    }

    private static void out(String key, Object value) {
        if (value instanceof Double) {
            System.out.println(key + "=" + String.format(Locale.ROOT, "%.3f", (Double) value));
        } else {
            System.out.println(key + "=" + value);
        }
    }
}
