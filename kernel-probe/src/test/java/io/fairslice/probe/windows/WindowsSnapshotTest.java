package io.fairslice.probe.windows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Pointer;
import io.fairslice.probe.Fixtures;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ThreadSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The probe's snapshot path (its {@code NtQuerySystemInformation} query, {@link ThreadSnapshot} and
 * {@link NtLayout#forProcess}) on the recorded answer, with a stand-in for the kernel that answers like Windows:
 * {@code STATUS_INFO_LENGTH_MISMATCH} and the size it needs while the buffer is too small.
 */
class WindowsSnapshotTest {

    private static final int STATUS_INFO_LENGTH_MISMATCH = 0xC0000004;
    private static final long QUANTUM = 31_250_000L;

    private final byte[] answer = Fixtures.bytes("windows-system-process-information-x64.bin");
    private final List<Integer> offered = new ArrayList<>();
    private int failure;

    private final WindowsKernelProbe.NtQuery kernel = (buffer, size, returned) -> {
        offered.add(size);
        if (failure != 0) {
            return failure;
        }
        returned[0] = answer.length;
        if (size < answer.length) {
            return STATUS_INFO_LENGTH_MISMATCH;
        }
        new Pointer(buffer).write(0, answer, 0, answer.length);
        return 0;
    };

    private ThreadSnapshot snapshot(long pid, long initialSize) {
        return new ThreadSnapshot("NtQuerySystemInformation(SystemProcessInformation)", initialSize,
                WindowsKernelProbe.SNAPSHOT_MAX_AGE_NANOS, new WindowsKernelProbe.SystemProcessQuery(kernel),
                NtLayout.forProcess(pid, QUANTUM));
    }

    @Test
    void shouldGrowTheBufferToWhatTheCallAskedForAndReadTheThreadOfThisProcess() {
        ThreadSnapshot snapshot = snapshot(7777, 256);
        ThreadHandle handle = snapshot.handle(7780);
        ThreadStats s = new ThreadStats();

        assertThat(handle.read(s, false)).isTrue();

        assertThat(offered).as("then the size returned plus 64 KiB, more than double").containsExactly(256,
                answer.length + 65536);
        assertThat(snapshot.capacity()).isEqualTo(answer.length + 65536);
        assertThat(s.cpuTimeNanos()).isEqualTo(350_000_000L);
        assertThat(s.dispatches()).isEqualTo(1234);
        assertThat(s.sliceNanos()).isEqualTo(QUANTUM);
        assertThat(snapshot.handle(7781).read(s, false)).isTrue();
        assertThat(snapshot.read(8, s, true)).as("a thread of another process").isFalse();
    }

    @Test
    void shouldReadNothingWhenThisProcessIsNotInTheAnswer() {
        ThreadSnapshot snapshot = snapshot(7778, 1 << 20);

        assertThat(snapshot.read(7780, new ThreadStats(), true)).isFalse();
        assertThatThrownBy(() -> snapshot.selfCheck(7780)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessageContaining("pid 7778").hasMessageContaining("not in");
    }

    @Test
    void shouldPassTheSelfCheckForItsOwnThreadOnly() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(7777, 1 << 20);

        snapshot.selfCheck(7781);
        assertThatThrownBy(() -> snapshot.selfCheck(8)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessageContaining("thread (8)").hasMessageContaining("2 threads");
        assertThat(offered).containsExactly(1 << 20, 1 << 20);
    }

    @Test
    void shouldFailWithTheCallNamedOnAnyOtherStatus() {
        failure = 0xC0000005; // STATUS_ACCESS_VIOLATION
        ThreadSnapshot snapshot = snapshot(7777, 256);

        assertThatThrownBy(() -> snapshot.selfCheck(7781)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessage("NtQuerySystemInformation(SystemProcessInformation) failed");
        assertThat(offered).as("not retried").containsExactly(256);
    }
}
