package io.fairslice.probe.freebsd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.probe.Fixtures;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** struct kinfo_proc: JNA layout, parser offsets and the documented size agree; the parser reads a fixture. */
class KinfoProcLayoutTest {

    private final KinfoProc layout = new KinfoProc();

    @Test
    void shouldLayOutKinfoProcAs1088BytesLikeFreeBsdAmd64() {
        assertThat(layout.size()).isEqualTo(1088).isEqualTo(KinfoProcLayout.SIZE);
        assertThat(new KinfoProc.Rusage().size()).isEqualTo(144);
    }

    @Test
    void shouldPlaceTheFieldsTheParserReadsWhereJnaPutsThem() {
        assertThat(layout.offsetOf("ki_structsize")).isEqualTo(KinfoProcLayout.OFF_STRUCTSIZE);
        assertThat(layout.offsetOf("ki_pid")).isEqualTo(KinfoProcLayout.OFF_PID).isEqualTo(72);
        assertThat(layout.offsetOf("ki_runtime")).isEqualTo(KinfoProcLayout.OFF_RUNTIME).isEqualTo(328);
        assertThat(layout.offsetOf("ki_stat")).isEqualTo(KinfoProcLayout.OFF_STAT);
        assertThat(layout.offsetOf("ki_nice")).isEqualTo(KinfoProcLayout.OFF_NICE);
        assertThat(layout.offsetOf("ki_tdname")).isEqualTo(KinfoProcLayout.OFF_TDNAME);
        assertThat(layout.offsetOf("ki_moretdname")).isEqualTo(KinfoProcLayout.OFF_MORETDNAME);
        assertThat(layout.offsetOf("ki_lastcpu")).isEqualTo(KinfoProcLayout.OFF_LASTCPU);
        assertThat(layout.offsetOf("ki_tid")).isEqualTo(KinfoProcLayout.OFF_TID).isEqualTo(600);
        assertThat(layout.offsetOf("ki_pri")).isEqualTo(KinfoProcLayout.OFF_PRI);
        assertThat(layout.offsetOf("ki_rusage")).isEqualTo(KinfoProcLayout.OFF_RUSAGE).isEqualTo(608);
        assertThat(layout.offsetOf("ki_tdev")).as("uint64 after the spare ints, 8-aligned").isEqualTo(560);
        assertThat(layout.offsetOf("ki_sflag")).isEqualTo(1072);
        assertThat(layout.offsetOf("ki_tdflags")).isEqualTo(1080);
        KinfoProc.Rusage ru = new KinfoProc.Rusage();
        assertThat(ru.size()).isEqualTo(144);
    }

    @Test
    void shouldReadEveryThreadOfTheRecordedSysctlAnswer() {
        ByteBuffer b = Fixtures.load("freebsd-kinfo-proc-amd64.bin");
        int length = b.capacity();

        assertThat(KinfoProcLayout.records(length)).isEqualTo(3);
        assertThat(KinfoProcLayout.structSize(b, 0)).isEqualTo(1088);
        assertThat(KinfoProcLayout.pid(b, 2)).isEqualTo(4242);
        assertThat(KinfoProcLayout.indexOfTid(b, length, 100102)).isEqualTo(1);
        assertThat(KinfoProcLayout.indexOfTid(b, length, 7)).isEqualTo(-1);

        ThreadStats s = new ThreadStats();
        KinfoProcLayout.read(b, 1, 94_000_000L, s);
        assertThat(s.cpuTimeNanos()).isEqualTo(98_765_432_000L);
        assertThat(s.voluntarySwitches()).isEqualTo(4);
        assertThat(s.involuntarySwitches()).isEqualTo(5120);
        assertThat(s.policy()).isEqualTo(SchedPolicy.OTHER);
        assertThat(s.nice()).isEqualTo(10);
        assertThat(s.sliceNanos()).isEqualTo(94_000_000L);
        assertThat(ThreadStats.isSupported(s.runQueueWaitNanos())).as("FreeBSD has no run-queue wait").isFalse();
        assertThat(ThreadStats.isSupported(s.dispatches())).isFalse();
        assertThat(KinfoProcLayout.threadName(b, 1)).isEqualTo("worker-thread-1234");
        assertThat(KinfoProcLayout.threadName(b, 0)).isEqualTo("main");

        KinfoProcLayout.read(b, 2, 94_000_000L, s);
        assertThat(s.policy()).isEqualTo(SchedPolicy.RR);
        assertThat(s.sliceNanos()).isEqualTo(94_000_000L);
        assertThat(s.voluntarySwitches()).isEqualTo(77);
    }

    @Test
    void shouldReadSchedFifoFromItsOwnPriorityClass() {
        // sys/priority.h: PRI_FIFO = PRI_FIFO_BIT (8) | PRI_REALTIME (2); rtp_to_pri() stores RTP_PRIO_FIFO
        // (= PRI_FIFO) in td_pri_class and fill_kinfo_thread() copies it to ki_pri.pri_class
        ByteBuffer b = Fixtures.load("freebsd-kinfo-proc-amd64.bin");
        b.put(2 * KinfoProcLayout.SIZE + KinfoProcLayout.OFF_PRI, (byte) 10);
        ThreadStats s = new ThreadStats();

        KinfoProcLayout.read(b, 2, 94_000_000L, s);

        assertThat(KinfoProcLayout.PRI_FIFO).isEqualTo(10);
        assertThat(s.policy()).isEqualTo(SchedPolicy.FIFO);
        assertThat(ThreadStats.isSupported(s.sliceNanos())).as("SCHED_FIFO has no slice").isFalse();
    }

    @Test
    void shouldPassTheSelfCheckOnlyForItsOwnProcessThreadAndRecordSize() {
        ByteBuffer b = Fixtures.load("freebsd-kinfo-proc-amd64.bin");
        int length = b.capacity();

        assertThat(KinfoProcLayout.selfCheck(b, length, 4242, 100103)).isNull();
        assertThat(KinfoProcLayout.selfCheck(b, length, 1, 100103)).contains("pid 4242")
                .contains("expected this process, 1");
        assertThat(KinfoProcLayout.selfCheck(b, length, 4242, 5)).contains("thr_self 5").contains("3 kinfo_proc");
        assertThat(KinfoProcLayout.selfCheck(b, 1000, 4242, 100103)).contains("less than one kinfo_proc");
        ByteBuffer older = Fixtures.load("freebsd-kinfo-proc-amd64.bin");
        older.putInt(0, 1096);
        assertThat(KinfoProcLayout.selfCheck(older, length, 4242, 100103)).contains("1096 bytes");
    }
}
