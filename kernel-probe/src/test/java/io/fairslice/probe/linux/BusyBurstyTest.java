package io.fairslice.probe.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairslice.probe.ForkedJvm;
import io.fairslice.probe.ProcSys;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A busy group (never blocks) and a bursty group (computes ~1 ms, sleeps 4 ms) share one CPU in a forked JVM; the
 * probe must show what the scheduler did to each. Measured figures: docs/measurements/kernel-probe.txt.
 */
@EnabledOnOs(OS.LINUX)
class BusyBurstyTest {

    private static final String RR_TIMESLICE = "/proc/sys/kernel/sched_rr_timeslice_ms";
    private static final long WINDOW_MS = 1500;

    @Test
    void shouldShowBusyThreadsPreemptedAndBurstyThreadsBlockingUnderTheDefaultScheduler() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2 && ForkedJvm.works("taskset", "-c", "1", "true"),
                "needs taskset and a CPU 1 to pin the forked JVM to");

        Map<String, String> r = ForkedJvm.keyValues(ForkedJvm.run(
                ForkedJvm.command(List.of("taskset", "-c", "1"), BusyBurstyMain.class, String.valueOf(WINDOW_MS)),
                60));

        assertThat(r.get("busy.policy")).isEqualTo("OTHER");
        assertThat(num(r, "busy.involuntary")).as("busy threads are preempted: %s", r)
                .isGreaterThan(10 * num(r, "busy.voluntary") + 10);
        // more often than they are preempted; other work on CPU 1 preempts them too (381 against 192 beside other
        // builds, where the test asked for twice as many and failed; alone 2-3 times)
        assertThat(num(r, "bursty.voluntary")).as("bursty threads block on their own: %s", r)
                .isGreaterThan(num(r, "bursty.involuntary"));
        // relative to the CPU the forked JVM actually got: CPU 1 may be shared with other work on a busy machine
        assertThat(num(r, "bursty.voluntary")).as("about one sleep per ms of a bursty thread's compute: %s", r)
                .isGreaterThan(Math.max(10, num(r, "bursty.runMs") / 2));
        assertThat(num(r, "busy.effectiveSliceMs")).as("EEVDF slices are a few ms: %s", r).isBetween(0.1, 20.0);
        assertThat(num(r, "busy.runMs")).as("the never-blocking group gets more CPU than the sleeping one: %s", r)
                .isGreaterThan(num(r, "bursty.runMs"));
    }

    @Test
    void shouldMeasureAnEffectiveSliceNearTheRoundRobinQuantumForTheBusyGroup() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2 && ForkedJvm.works("taskset", "-c", "1", "true"),
                "needs taskset and a CPU 1 to pin the forked JVM to");
        assumeTrue(ForkedJvm.works("chrt", "-r", "1", "true"),
                "SCHED_RR not permitted here (chrt -r 1 needs root or CAP_SYS_NICE)");
        String before = readRrTimeslice();
        assumeTrue(before.equals("100") || canWrite(),
                "sched_rr_timeslice_ms is " + before + " and not writable, the test needs the 100 ms quantum");
        Map<String, String> underDefault = ForkedJvm.keyValues(ForkedJvm.run(ForkedJvm.command(
                List.of("taskset", "-c", "1"), BusyBurstyMain.class, String.valueOf(WINDOW_MS)), 60));
        Map<String, String> r;
        try {
            if (!before.equals("100")) {
                writeRrTimeslice("100");
            }
            r = ForkedJvm.keyValues(ForkedJvm.run(ForkedJvm.command(List.of("chrt", "-r", "1", "taskset", "-c", "1"),
                    BusyBurstyMain.class, String.valueOf(WINDOW_MS)), 60));
        } finally {
            if (!before.equals("100")) {
                writeRrTimeslice(before); // leave the machine as it was
            }
        }

        assertThat(r.get("busy.policy")).isEqualTo("RR");
        assertThat(num(r, "busy.sliceMs")).isEqualTo(100.0);
        // near 100 ms alone; RT throttling (950 ms per second), the JVM's own threads and other work on CPU 1 (run
        // by the kernel's fair server, which preempts RR threads) cut slices short: 38.5 ms beside another JVM pinned
        // there, 28 ms beside other builds. So against the default scheduler's slices measured just before, which
        // stay a few ms (1.2 ms beside those builds): many times longer
        assertThat(num(r, "busy.effectiveSliceMs")).as("busy group under RR 100 ms: %s", r)
                .isGreaterThan(5 * num(underDefault, "busy.effectiveSliceMs")).isLessThanOrEqualTo(101.0);
        assertThat(num(r, "busy.involuntary")).as("%s", r).isGreaterThan(num(r, "busy.voluntary"));
        assertThat(num(r, "bursty.voluntary")).as("%s", r).isGreaterThanOrEqualTo(num(r, "bursty.involuntary"));
        assertThat(num(r, "bursty.waitPerDispatchMs")).as("bursty threads queue behind whole quanta: %s", r)
                .isNotNaN().isGreaterThan(20.0);
    }

    private static double num(Map<String, String> r, String key) {
        assertThat(r).as("output of the forked JVM").containsKey(key);
        return Double.parseDouble(r.get(key));
    }

    private static String readRrTimeslice() throws IOException {
        return ProcSys.read(RR_TIMESLICE);
    }

    private static boolean canWrite() {
        return new File(RR_TIMESLICE).canWrite();
    }

    private static void writeRrTimeslice(String value) throws IOException {
        ProcSys.write(RR_TIMESLICE, value);
    }
}
