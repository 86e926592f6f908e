package io.fairslice.probe.linux;

import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Runs in a forked JVM (pinned to one CPU, optionally under SCHED_RR) for {@link BusyBurstyTest}: two busy threads
 * that never block and two bursty ones that compute about 1 ms then sleep 4 ms. Prints, per group, the scheduler
 * counters the probe read over the measured window as {@code group.key=value} lines.
 *
 * <p>Usage: {@code BusyBurstyMain <window-ms>}
 */
public final class BusyBurstyMain {

    static volatile boolean stop;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long windowMs = Long.parseLong(args[0]);
        LinuxKernelProbe probe = LinuxKernelProbe.create();
        int perGroup = 2;
        AtomicLongArray tids = new AtomicLongArray(2 * perGroup);
        CountDownLatch started = new CountDownLatch(2 * perGroup);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2 * perGroup; i++) {
            boolean busy = i < perGroup;
            int slot = i;
            Thread t = new Thread(() -> {
                tids.set(slot, probe.currentThreadId());
                started.countDown();
                long x = 0;
                while (!stop) {
                    if (busy) {
                        x += spin(1_000_000L);
                    } else {
                        x += spin(1_000_000L);
                        try {
                            Thread.sleep(4);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
                sink = x;
            }, (busy ? "busy-" : "bursty-") + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        started.await();
        Thread.sleep(300); // past thread start-up
        List<ThreadHandle> handles = new ArrayList<>();
        ThreadStats[] before = new ThreadStats[2 * perGroup];
        for (int i = 0; i < 2 * perGroup; i++) {
            handles.add(probe.openThread(tids.get(i)));
            before[i] = new ThreadStats();
            handles.get(i).read(before[i], false);
        }
        Thread.sleep(windowMs);
        ThreadStats[] after = new ThreadStats[2 * perGroup];
        for (int i = 0; i < 2 * perGroup; i++) {
            after[i] = new ThreadStats();
            handles.get(i).read(after[i], true);
        }
        stop = true;
        for (int g = 0; g < 2; g++) {
            String group = g == 0 ? "busy" : "bursty";
            long run = 0;
            long wait = 0;
            long disp = 0;
            long vol = 0;
            long invol = 0;
            for (int i = g * perGroup; i < (g + 1) * perGroup; i++) {
                run += after[i].cpuTimeNanos() - before[i].cpuTimeNanos();
                wait += after[i].runQueueWaitNanos() - before[i].runQueueWaitNanos();
                disp += after[i].dispatches() - before[i].dispatches();
                vol += after[i].voluntarySwitches() - before[i].voluntarySwitches();
                invol += after[i].involuntarySwitches() - before[i].involuntarySwitches();
            }
            System.out.println(group + ".policy=" + after[g * perGroup].policy());
            System.out.println(group + ".sliceMs=" + fmt(after[g * perGroup].sliceNanos() / 1e6));
            System.out.println(group + ".runMs=" + fmt(run / 1e6));
            System.out.println(group + ".waitMs=" + fmt(wait / 1e6));
            System.out.println(group + ".dispatches=" + disp);
            System.out.println(group + ".voluntary=" + vol);
            System.out.println(group + ".involuntary=" + invol);
            System.out.println(group + ".effectiveSliceMs=" + fmt(disp > 0 ? run / 1e6 / disp : Double.NaN));
            System.out.println(group + ".waitPerDispatchMs=" + fmt(disp > 0 ? wait / 1e6 / disp : Double.NaN));
        }
        System.out.println("windowMs=" + windowMs);
        System.exit(0);
    }

    /** Computes until this thread has used {@code nanos} of CPU time (however long that takes on a busy machine). */
    public static long burnCpu(long nanos) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + nanos;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < end) {
            x += spin(100_000L);
        }
        return x;
    }

    public static long spin(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        return x;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
