package io.fairslice.probe.freebsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.LastErrorException;
import com.sun.jna.Pointer;
import io.fairslice.probe.Fixtures;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ThreadSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The probe's snapshot path (its sysctl query, {@link ThreadSnapshot} and {@link KinfoProcLayout#forProcess}) on the
 * recorded answer, with a stand-in for the kernel that answers like {@code sysctl(2)}: ENOMEM while the buffer is too
 * small.
 */
class FreeBsdSnapshotTest {

    private static final int PID = 4242;
    private static final long QUANTUM = 94_000_000L;

    private final byte[] answer = Fixtures.bytes("freebsd-kinfo-proc-amd64.bin");
    private final List<Long> offered = new ArrayList<>();
    private int error;

    private final FreeBsdKernelProbe.Sysctl kernel = (mib, oldp, oldlenp) -> {
        assertThat(mib).containsExactly(1, 14, 0x11, PID); // CTL_KERN, KERN_PROC, KERN_PROC_PID|KERN_PROC_INC_THREAD
        offered.add(oldlenp[0]);
        if (error != 0) {
            throw new LastErrorException(error);
        }
        if (oldp == 0) { // no buffer: the size the answer needs
            oldlenp[0] = answer.length;
            return;
        }
        if (oldlenp[0] < answer.length) {
            throw new LastErrorException(12);
        }
        new Pointer(oldp).write(0, answer, 0, answer.length);
        oldlenp[0] = answer.length;
    };

    private ThreadSnapshot snapshot(long initialSize) {
        return new ThreadSnapshot("sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD for pid " + PID, initialSize,
                FreeBsdKernelProbe.SNAPSHOT_MAX_AGE_NANOS, new FreeBsdKernelProbe.KinfoProcQuery(PID, kernel),
                KinfoProcLayout.forProcess(PID, QUANTUM));
    }

    @Test
    void shouldGrowTheBufferToTheSizeTheKernelNamesOnEnomemAndReadTheThreadFromTheAnswer() {
        ThreadSnapshot snapshot = snapshot(KinfoProcLayout.SIZE);
        ThreadHandle handle = snapshot.handle(100102);
        ThreadStats s = new ThreadStats();

        assertThat(handle.read(s, true)).isTrue();

        assertThat(handle.tid()).isEqualTo(100102);
        // one record's buffer, the size asked (3 records), then 3 records and a quarter
        assertThat(offered).containsExactly(1088L, 0L, 4080L);
        assertThat(s.cpuTimeNanos()).isEqualTo(98_765_432_000L);
        assertThat(s.voluntarySwitches()).isEqualTo(4);
        assertThat(s.involuntarySwitches()).isEqualTo(5120);
        assertThat(s.policy()).isEqualTo(SchedPolicy.OTHER);
        assertThat(s.nice()).isEqualTo(10);
        assertThat(s.sliceNanos()).isEqualTo(QUANTUM);
        assertThat(snapshot.read(7, s, true)).as("no such thread").isFalse();
    }

    /**
     * An answer more than 16 times the first buffer (a JVM of over 512 threads for the probe's 64 records): doubling
     * four times never fitted it, and the probe was off from startup.
     */
    @Test
    void shouldFitAnAnswerManyTimesTheFirstBufferAtTheSecondCall() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(KinfoProcLayout.SIZE / 8);

        snapshot.selfCheck(100103);

        assertThat(offered).containsExactly(136L, 0L, 4080L);
    }

    @Test
    void shouldPassTheSelfCheckForItsOwnThreadOnly() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(64L * KinfoProcLayout.SIZE);

        snapshot.selfCheck(100103);
        assertThatThrownBy(() -> snapshot.selfCheck(5)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessageContaining("thr_self 5").hasMessageContaining("3 kinfo_proc");
        assertThat(offered).as("one call each, the buffer is large enough").hasSize(2);
    }

    @Test
    void shouldFailWithTheCallNamedOnAnyOtherError() {
        error = 1; // EPERM
        ThreadSnapshot snapshot = snapshot(KinfoProcLayout.SIZE);

        assertThatThrownBy(() -> snapshot.selfCheck(100103)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessage("sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD for pid 4242 failed");
        assertThat(offered).as("not retried").containsExactly(1088L);
    }
}
