package io.fairslice.probe.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairslice.probe.ActuatorException;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The actuators change one thread and read back through sched_getattr and /proc. Each test uses a fresh thread. */
@EnabledOnOs(OS.LINUX)
class LinuxActuatorTest {

    private LinuxKernelProbe probe;
    private ThreadActuator actuator;
    private ExecutorService worker;

    @BeforeEach
    void open() throws Exception {
        probe = LinuxKernelProbe.create();
        actuator = probe.actuator();
        worker = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        worker.shutdownNow();
        probe.close();
    }

    @Test
    void shouldSetTheNiceOfOneThreadOnlyAndReadItBack() throws Exception {
        long testTid = probe.currentThreadId();
        int[] seen = onWorker(() -> {
            long tid = probe.currentThreadId();
            ThreadStats s = new ThreadStats();
            actuator.setNice(tid, 7);
            actuator.readScheduling(tid, s);
            int viaAttr = (int) s.nice();
            int viaProc = procLong(tid, "prio") - 120;
            actuator.setNice(tid, 0); // raising priority back: allowed for root or with RLIMIT_NICE
            actuator.readScheduling(tid, s);
            return new int[] {viaAttr, viaProc, (int) s.nice()};
        });
        ThreadStats mine = new ThreadStats();
        actuator.readScheduling(testTid, mine);

        assertThat(seen[0]).as("sched_getattr nice").isEqualTo(7);
        assertThat(seen[1]).as("/proc sched prio - 120").isEqualTo(7);
        assertThat(seen[2]).as("restored").isEqualTo(0);
        assertThat(mine.nice()).as("other threads keep their nice").isEqualTo(0);
    }

    @Test
    void shouldNameTheCallAndTheErrorWhenNiceFails() {
        assertThatThrownBy(() -> actuator.setNice(Integer.MAX_VALUE - 1, 5))
                .isInstanceOf(ActuatorException.class)
                .hasMessageContaining("setpriority(PRIO_PROCESS, " + (Integer.MAX_VALUE - 1) + ", 5)")
                .hasMessageContaining("error 3"); // ESRCH
    }

    @Test
    void shouldSetTheEevdfSliceAndRestoreTheDefault() throws Exception {
        assumeSlices();
        long[] seen = onWorker(() -> {
            long tid = probe.currentThreadId();
            long defaultSlice = procLong(tid, "se.slice");
            ThreadStats s = new ThreadStats();
            actuator.setNice(tid, 3);
            actuator.setSlice(tid, 3_000_000L);
            actuator.readScheduling(tid, s);
            long attrSlice = s.sliceNanos();
            long attrNice = s.nice();
            long procSlice = procLong(tid, "se.slice");
            actuator.setSlice(tid, 0);
            long restored = procLong(tid, "se.slice");
            actuator.setNice(tid, 0);
            return new long[] {defaultSlice, attrSlice, procSlice, restored, attrNice};
        });

        assertThat(seen[1]).as("sched_getattr sched_runtime").isEqualTo(3_000_000L);
        assertThat(seen[2]).as("/proc sched se.slice").isEqualTo(3_000_000L);
        assertThat(seen[3]).as("default slice back").isEqualTo(seen[0]);
        assertThat(seen[4]).as("sched_setattr kept the nice value").isEqualTo(3);
    }

    /** Clearing reset-on-fork needs CAP_SYS_NICE: a slice change that dropped it failed for unprivileged servers. */
    @Test
    void shouldKeepTheResetOnForkFlagWhenItSetsTheSlice() throws Exception {
        assumeSlices();
        long[] flags = onWorker(() -> {
            long tid = probe.currentThreadId();
            setattr(tid, 0, RESET_ON_FORK); // SCHED_OTHER
            long before = getattrFlags(tid);
            actuator.setSlice(tid, 3_000_000L);
            long withSlice = getattrFlags(tid);
            actuator.setSlice(tid, 0);
            return new long[] {before, withSlice, getattrFlags(tid)};
        });

        assertThat(flags[0] & RESET_ON_FORK).as("set by the test").isEqualTo(RESET_ON_FORK);
        assertThat(flags[1] & RESET_ON_FORK).as("kept with the slice").isEqualTo(RESET_ON_FORK);
        assertThat(flags[2] & RESET_ON_FORK).as("kept when the slice is restored").isEqualTo(RESET_ON_FORK);
    }

    /** A thread under SCHED_IDLE (or a real-time policy) has no EEVDF slice: refused for that thread, not a failure. */
    @Test
    void shouldChangeNothingForAThreadWhosePolicyHasNoSlice() throws Exception {
        assumeSlices();
        Object[] seen = onWorker(() -> {
            long tid = probe.currentThreadId();
            setattr(tid, 5, 0); // SCHED_IDLE: allowed without privileges
            boolean applied = actuator.setSlice(tid, 3_000_000L);
            ThreadStats s = new ThreadStats();
            actuator.readScheduling(tid, s);
            return new Object[] {applied, s.policy()};
        });

        assertThat(seen[0]).isEqualTo(false);
        assertThat(seen[1]).isEqualTo(SchedPolicy.IDLE);
    }

    private void assumeSlices() {
        assumeTrue(actuator.supportsSlice(), "per-thread EEVDF slices need Linux 6.12 or newer on x86-64/aarch64, "
                + "this is " + System.getProperty("os.version"));
    }

    private static final long RESET_ON_FORK = 0x01;

    private static void setattr(long tid, int policy, long flags) {
        int[] attr = new int[LinuxLibC.SCHED_ATTR_SIZE / 4];
        attr[0] = LinuxLibC.SCHED_ATTR_SIZE;
        attr[1] = policy;
        attr[2] = (int) flags; // little-endian u64 (the test machines are x86-64)
        LinuxLibC.syscall(LinuxLibC.SYS_SCHED_SETATTR, tid, attr, 0, 0);
    }

    private static long getattrFlags(long tid) {
        int[] attr = new int[LinuxLibC.SCHED_ATTR_SIZE / 4];
        LinuxLibC.syscall(LinuxLibC.SYS_SCHED_GETATTR, tid, attr, LinuxLibC.SCHED_ATTR_SIZE, 0);
        return attr[2] & 0xffffffffL;
    }

    private <T> T onWorker(Callable<T> task) throws Exception {
        return worker.submit(task).get();
    }

    static int procLong(long tid, String key) throws Exception {
        String text = Files.readString(Path.of("/proc/self/task/" + tid + "/sched"));
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + "\\s+:\\s+(-?\\d+)").matcher(text);
        assertThat(m.find()).as(key + " in /proc sched").isTrue();
        return Integer.parseInt(m.group(1));
    }
}
