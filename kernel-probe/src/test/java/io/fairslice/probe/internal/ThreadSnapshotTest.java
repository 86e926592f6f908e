package io.fairslice.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared snapshot path of the FreeBSD and Windows probes against a scripted system call, a two-long record
 * layout (tid, CPU nanoseconds) and a fake clock. The platforms' own queries and layouts run on recorded answers in
 * {@code FreeBsdSnapshotTest} and {@code WindowsSnapshotTest}.
 */
class ThreadSnapshotTest {

    private static final long MAX_AGE = 10;
    private static final int RECORD = 16;

    private long now = 1_000;
    private byte[] answer = records(11, 100, 12, 200);
    private boolean failing;
    private final List<Long> offered = new ArrayList<>();
    private final List<Integer> answered = new ArrayList<>();

    private final ThreadSnapshot.Query query = buffer -> {
        offered.add(buffer.size());
        if (failing) {
            return ThreadSnapshot.FAILED;
        }
        if (buffer.size() < answer.length) {
            return ThreadSnapshot.TOO_SMALL;
        }
        buffer.write(0, answer, 0, answer.length);
        return answer.length;
    };

    private final ThreadSnapshot.Layout layout = new ThreadSnapshot.Layout() {
        @Override
        public void answered(ByteBuffer bytes, int length) {
            answered.add(length);
        }

        @Override
        public int find(ByteBuffer bytes, int length, long tid) {
            for (int at = 0; at + RECORD <= length; at += RECORD) {
                if (bytes.getLong(at) == tid) {
                    return at;
                }
            }
            return -1;
        }

        @Override
        public void read(ByteBuffer bytes, int at, ThreadStats into) {
            into.setCounters(bytes.getLong(at + 8), ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED,
                    ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED);
        }

        @Override
        public String selfCheck(ByteBuffer bytes, int length, long tid) {
            return find(bytes, length, tid) < 0 ? "thread " + tid + " is not in the answer" : null;
        }
    };

    private final ThreadStats stats = new ThreadStats();

    private ThreadSnapshot snapshot(long initialSize) {
        return new ThreadSnapshot("scripted call", initialSize, MAX_AGE, query, layout, () -> now);
    }

    private static byte[] records(long... tidAndCpu) {
        ByteBuffer b = ByteBuffer.allocate(tidAndCpu.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : tidAndCpu) {
            b.putLong(v);
        }
        return b.array();
    }

    @Test
    void shouldServeEveryReadWithinTheMaximumAgeFromOneCall() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);
        snapshot.selfCheck(11);
        answer = records(11, 150, 12, 250);

        now += MAX_AGE - 1;
        assertThat(snapshot.read(12, stats, false)).isTrue();
        assertThat(stats.cpuTimeNanos()).as("the first answer").isEqualTo(200);
        assertThat(offered).hasSize(1);

        now += 1;
        assertThat(snapshot.read(12, stats, false)).isTrue();
        assertThat(stats.cpuTimeNanos()).as("a new answer once the first is the maximum age old").isEqualTo(250);
        assertThat(offered).hasSize(2);
        assertThat(answered).containsExactly(32, 32);
    }

    @Test
    void shouldReadThroughAHandleFromTheCurrentAnswerEvenWithScheduling() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);
        snapshot.selfCheck(11);
        ThreadHandle handle = snapshot.handle(12);
        answer = records(11, 150, 12, 250);

        assertThat(handle.read(stats, true)).isTrue();

        assertThat(handle.tid()).isEqualTo(12);
        assertThat(stats.cpuTimeNanos()).isEqualTo(200);
        assertThat(offered).hasSize(1);
    }

    @Test
    void shouldAskAgainForAFreshReadWhateverTheAge() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);
        snapshot.selfCheck(11);
        answer = records(11, 110);

        assertThat(snapshot.read(11, stats, true)).isTrue();

        assertThat(stats.cpuTimeNanos()).isEqualTo(110);
        assertThat(offered).hasSize(2);
    }

    @Test
    void shouldAskOnTheFirstReadEvenIfNothingWasReadBefore() {
        ThreadSnapshot snapshot = snapshot(1024);

        assertThat(snapshot.read(11, stats, false)).isTrue();

        assertThat(stats.cpuTimeNanos()).isEqualTo(100);
        assertThat(offered).hasSize(1);
    }

    @Test
    void shouldGrowTheBufferUntilTheAnswerFitsInFourCalls() {
        answer = new byte[100];
        System.arraycopy(records(12, 300), 0, answer, 48, RECORD);
        ThreadSnapshot snapshot = snapshot(16);

        assertThat(snapshot.read(12, stats, false)).isTrue();

        assertThat(offered).containsExactly(16L, 32L, 64L, 128L);
        assertThat(snapshot.capacity()).isEqualTo(128);
        assertThat(stats.cpuTimeNanos()).isEqualTo(300);
    }

    @Test
    void shouldGiveUpAfterFourCallsThatDoNotFit() {
        answer = new byte[100_000];
        ThreadSnapshot snapshot = snapshot(16);

        assertThat(snapshot.read(11, stats, false)).isFalse();
        assertThatThrownBy(() -> snapshot.selfCheck(11)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessage("scripted call failed");

        assertThat(offered).containsExactly(16L, 32L, 64L, 128L, 256L, 512L, 1024L, 2048L);
        assertThat(answered).isEmpty();
    }

    @Test
    void shouldStopAtAFailedCallAndKeepServingTheLastAnswerWithinTheMaximumAge()
            throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);
        snapshot.selfCheck(11);
        failing = true;

        assertThat(snapshot.read(11, stats, true)).isFalse();
        assertThat(offered).as("no second try after a failure").hasSize(2);
        assertThat(snapshot.capacity()).isEqualTo(1024);
        now += MAX_AGE - 1;
        assertThat(snapshot.read(11, stats, false)).isTrue();
        assertThat(stats.cpuTimeNanos()).isEqualTo(100);
        now += 1;
        assertThat(snapshot.read(11, stats, false)).isFalse();
    }

    @Test
    void shouldServeNothingFromAGrownBufferThatNoCallFilled() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);
        snapshot.selfCheck(11);
        answer = new byte[100_000];

        // a fresh read grows the buffer four times and still does not fit: the last answer went with the old buffer
        assertThat(snapshot.read(11, stats, true)).isFalse();
        assertThat(snapshot.capacity()).isEqualTo(16_384);
        assertThat(snapshot.read(11, stats, false)).as("within the maximum age, but the buffer holds no answer")
                .isFalse();
    }

    @Test
    void shouldReportAThreadMissingFromTheAnswer() throws ProbeUnavailableException {
        ThreadSnapshot snapshot = snapshot(1024);

        assertThatThrownBy(() -> snapshot.selfCheck(13)).isInstanceOf(ProbeUnavailableException.class)
                .hasMessage("thread 13 is not in the answer");
        assertThat(snapshot.read(13, stats, false)).isFalse();
    }

    @Test
    void shouldRefuseAnEmptyBufferOrANegativeAge() {
        assertThatThrownBy(() -> new ThreadSnapshot("c", 0, 1, query, layout))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialSize > 0");
        assertThatThrownBy(() -> new ThreadSnapshot("c", 16, -1, query, layout))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 16, -1");
    }
}
