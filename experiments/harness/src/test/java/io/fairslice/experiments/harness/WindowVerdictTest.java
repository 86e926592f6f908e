package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The server's share of its core in a window (CpuSampler) and whether the window counts (StudyRunner.verdict). */
class WindowVerdictTest {

    private static final long HZ = 100;
    private static final ProcFs.InterruptAccounting APART = ProcFs.InterruptAccounting.APART;
    private static final ProcFs.InterruptAccounting IN_TASK_TIME = ProcFs.InterruptAccounting.IN_TASK_TIME;
    private static final CpuSampler.Sample START = new CpuSampler.Sample(1_000, 5_000, 700,
            new ProcFs.CoreTimes(9_000, 20, 3_000, 100));

    /** The sample 10 s after START: 1000 ticks of the core, split as given; the compiler's ticks of the server's. */
    private static CpuSampler.Sample tenSecondsLater(long server, long task, long irq, long idle, long steal,
                                                    long compiler) {
        return new CpuSampler.Sample(11_000, 5_000 + server, compiler < 0 ? -1 : 700 + compiler,
                new ProcFs.CoreTimes(9_000 + task, 20 + irq, 3_000 + idle, 100 + steal));
    }

    @Test
    void shouldSplitTheCoreBetweenTheServerOtherTasksInterruptsAndIdle() {
        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(600, 950, 10, 40, 50, 60), HZ, APART);

        assertThat(share.server()).isCloseTo(0.60, within(1e-9));
        assertThat(share.others()).as("task time not the server's, steal included").isCloseTo(0.35, within(1e-9));
        assertThat(share.interrupts()).isCloseTo(0.01, within(1e-9));
        assertThat(share.idle()).isCloseTo(0.04, within(1e-9));
        assertThat(share.steal()).isCloseTo(0.05, within(1e-9));
        assertThat(share.jit()).as("of the server's own CPU").isCloseTo(0.10, within(1e-9));
    }

    /**
     * Tick-based accounting: the 40 interrupt ticks of a window where the server had the core alone landed 39 on its
     * threads and 1 in idle; the server's 994 ticks hold those 39. Other tasks' share was the core's task ticks less
     * all of the server's, which had them too, clamped at 0: the four shares added up to 1.039 of the core.
     */
    @Test
    void shouldCountTheInterruptsChargedToTheServerOnce() {
        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(994, 955, 40, 5, 0, 0), HZ, IN_TASK_TIME);

        assertThat(share.server()).as("as /proc/PID/stat gives it").isCloseTo(0.994, within(1e-9));
        assertThat(share.server() + share.others() + share.interrupts() + share.idle()).isCloseTo(1.0, within(1e-9));
        assertThat(share.others()).as("taken as 40 interrupts * 0.994 in the server's").isCloseTo(0.00076,
                within(1e-9));
        assertThat(share.interrupts()).isCloseTo(0.00024, within(1e-9));
        assertThat(share.idle()).isCloseTo(0.005, within(1e-9));
    }

    /**
     * Another process had 40 ticks of the server's core while 28 of the 30 interrupt ticks were the server's: the
     * server had 0.928, other processes 0.040. Read as task ticks less the server's, other processes had 0.012, under
     * 1 - 0.97, and the window was accepted as the server's own short-fall.
     */
    @Test
    void shouldRerunAWindowWhereOtherProcessesTookMoreThanTheInterruptsChargedToTheServer() {
        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(928, 940, 30, 30, 0, 0), HZ, IN_TASK_TIME);

        assertThat(share.others()).isCloseTo(0.03984, within(1e-9));
        assertThat(StudyRunner.verdict(share, 0.97)).isEqualTo(new StudyRunner.Verdict(false,
                "disturbed: server had 0.928 of its core (< 0.97), other processes 0.040"));
    }

    /** A kernel that keeps interrupts out of the tasks' time: the server's ticks hold none, nothing is moved. */
    @Test
    void shouldLeaveTheInterruptsWhereTheKernelKeepsThemOutOfTheServersTime() {
        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(955, 955, 40, 5, 0, 0), HZ, APART);

        assertThat(share.others()).isZero();
        assertThat(share.interrupts()).isCloseTo(0.04, within(1e-9));
        assertThat(share.server() + share.others() + share.interrupts() + share.idle()).isCloseTo(1.0, within(1e-9));
        // ticks beyond the core's task time can only be interrupts, whatever the configuration said
        CpuSampler.Share beyond = CpuSampler.between(START, tenSecondsLater(965, 955, 40, 5, 0, 0), HZ, APART);
        assertThat(beyond.others()).isZero();
        assertThat(beyond.interrupts()).isCloseTo(0.03, within(1e-9));
    }

    /**
     * Where the kernel's configuration cannot be read, interrupts are taken as kept out of the server's time: the
     * disturbed window of shouldRerunAWindowWhereOtherProcessesTookMoreThanTheInterruptsChargedToTheServer passes
     * there (other processes 0.012 for 0.040), so the run says so as it starts; with the configuration read, nothing.
     */
    @Test
    void shouldWarnThatAnUnreadableKernelConfigurationLeavesTheCheckLooser() {
        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(928, 940, 30, 30, 0, 0), HZ,
                ProcFs.InterruptAccounting.UNKNOWN);

        assertThat(StudyRunner.verdict(share, 0.97).accepted()).as("others %.3f", share.others()).isTrue();
        assertThat(StudyRunner.interruptWarning(ProcFs.InterruptAccounting.UNKNOWN))
                .contains("kernel's configuration could not be read").contains("not found disturbed");
        assertThat(StudyRunner.interruptWarning(ProcFs.InterruptAccounting.IN_TASK_TIME)).isNull();
        assertThat(StudyRunner.interruptWarning(ProcFs.InterruptAccounting.APART)).isNull();
    }

    @Test
    void shouldKnowNothingOfAWindowUnderHalfASecondOrOfACompilerItCouldNotRead() {
        CpuSampler.Sample soon = new CpuSampler.Sample(1_499, 5_040, 700, new ProcFs.CoreTimes(9_050, 20, 3_000, 100));
        assertThat(CpuSampler.between(START, soon, HZ, APART).known()).isFalse();

        CpuSampler.Share share = CpuSampler.between(START, tenSecondsLater(990, 990, 0, 10, 0, -1), HZ, APART);
        assertThat(share.known()).isTrue();
        assertThat(share.jit()).isNaN();
    }

    @Test
    void shouldRerunAWindowWhereOtherProcessesTookTheServersCore() {
        StudyRunner.Verdict v = StudyRunner.verdict(
                CpuSampler.between(START, tenSecondsLater(600, 1000, 0, 0, 50, 0), HZ, APART), 0.97);

        assertThat(v.accepted()).isFalse();
        assertThat(v.note()).isEqualTo(
                "disturbed: server had 0.600 of its core (< 0.97), other processes 0.400, hypervisor steal 0.050");
    }

    /** Unpinned, the core's time holds Gatling's CPU too: it is not other processes, and nothing is re-run. */
    @Test
    void shouldKeepAnUnpinnedServersWindowUnchecked() {
        StudyRunner.Verdict v = StudyRunner.verdict(
                CpuSampler.between(START, tenSecondsLater(600, 1000, 0, 0, 0, 0), HZ, APART), 0.97, false);

        assertThat(v).isEqualTo(new StudyRunner.Verdict(true, "not pinned: not checked for disturbance"));
    }

    @Test
    void shouldKeepAWindowWhereTheCoreSatIdleSayingSo() {
        // a realtime server throttled to 95 %: idle, not taken by others
        StudyRunner.Verdict throttled = StudyRunner.verdict(
                CpuSampler.between(START, tenSecondsLater(930, 940, 0, 60, 0, 0), HZ, APART), 0.94);

        assertThat(throttled.accepted()).isTrue();
        assertThat(throttled.note()).isEqualTo("server used 0.930 of its core; 0.060 idle");
    }

    @Test
    void shouldKeepAWindowAtTheThresholdWithoutANoteAndDropOneWithoutSamples() {
        StudyRunner.Verdict steady = StudyRunner.verdict(
                CpuSampler.between(START, tenSecondsLater(970, 1000, 0, 0, 0, 0), HZ, APART), 0.97);
        assertThat(steady).isEqualTo(new StudyRunner.Verdict(true, ""));

        // others at 3 % exactly: not more than 1 - threshold, so the server's own short-fall
        StudyRunner.Verdict edge = StudyRunner.verdict(
                CpuSampler.between(START, tenSecondsLater(960, 990, 0, 10, 0, 0), HZ, APART), 0.97);
        assertThat(edge.accepted()).isTrue();

        StudyRunner.Verdict unknown = StudyRunner.verdict(CpuSampler.Share.UNKNOWN, 0.97);
        assertThat(unknown).isEqualTo(
                new StudyRunner.Verdict(false, "server CPU share unknown (no /proc samples in the window)"));
    }

    /** A simulation.log cut short lacks the requests after the cut: its window read low and was accepted. */
    @Test
    void shouldRerunAWindowWhoseSimulationLogIsTruncated() {
        StudyRunner.Verdict steady = new StudyRunner.Verdict(true, "");
        assertThat(StudyRunner.withLog(steady, false)).isSameAs(steady);

        assertThat(StudyRunner.withLog(steady, true)).isEqualTo(new StudyRunner.Verdict(false,
                "simulation.log truncated (requests after the cut not counted)"));
        StudyRunner.Verdict busy = new StudyRunner.Verdict(true, "server used 0.930 of its core; 0.060 idle");
        assertThat(StudyRunner.withLog(busy, true))
                .isEqualTo(new StudyRunner.Verdict(false, "server used 0.930 of its core; 0.060 idle; simulation.log "
                        + "truncated (requests after the cut not counted)"));
    }
}
