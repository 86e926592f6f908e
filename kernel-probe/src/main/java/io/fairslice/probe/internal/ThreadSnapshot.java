package io.fairslice.probe.internal;

import com.sun.jna.Memory;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * The latest answer of a system call that returns every thread's record at once (FreeBSD's {@code kinfo_proc}
 * sysctl, Windows's {@code NtQuerySystemInformation}), in a native buffer that grows until the answer fits. One
 * answer serves every read within the maximum age, so sampling N threads costs one call, not N.
 *
 * <p>The system call ({@link Query}) is the only native part; the record layout ({@link Layout}) is plain Java, so
 * that the whole path runs on recorded answers in the Linux tests. Thread-safe: reads share one buffer under this
 * object's lock.
 */
public final class ThreadSnapshot {

    /** {@link Query#fill} result: the buffer is too small for the answer. */
    public static final long TOO_SMALL = -1;
    /** {@link Query#fill} result: the call failed. */
    public static final long FAILED = -2;
    private static final int ATTEMPTS = 4;

    /** The system call that writes every thread's record into a buffer. */
    public interface Query {

        /** Writes the answer into {@code buffer}: the bytes written, {@link #TOO_SMALL} or {@link #FAILED}. */
        long fill(Memory buffer);

        /** The buffer size to try after {@link #TOO_SMALL}. */
        default long grownSize(long size) {
            return size * 2;
        }
    }

    /** Where a thread's record is in an answer and what it says: the platform's layout. */
    public interface Layout {

        /** Called once for every new answer (before any {@link #find} in it). */
        default void answered(ByteBuffer bytes, int length) {
        }

        /** Where thread {@code tid}'s record is in the answer ({@code length} bytes), or -1. */
        int find(ByteBuffer bytes, int length, long tid);

        /** Fills {@code into} from the record {@link #find} returned {@code at} for. */
        void read(ByteBuffer bytes, int at, ThreadStats into);

        /** Null if the answer is this process's and holds thread {@code tid}; otherwise what is wrong. */
        String selfCheck(ByteBuffer bytes, int length, long tid);
    }

    private final String call;
    private final long maxAgeNanos;
    private final Query query;
    private final Layout layout;
    private final LongSupplier nanoClock;
    private Memory buffer;
    private ByteBuffer bytes;
    private int length;
    private boolean taken;
    private long takenAt;

    /**
     * @param call what {@code query} calls, for the self-check's message ("... failed")
     * @param initialSize the first buffer's size in bytes
     */
    public ThreadSnapshot(String call, long initialSize, long maxAgeNanos, Query query, Layout layout) {
        this(call, initialSize, maxAgeNanos, query, layout, System::nanoTime);
    }

    ThreadSnapshot(String call, long initialSize, long maxAgeNanos, Query query, Layout layout,
            LongSupplier nanoClock) {
        if (initialSize <= 0 || maxAgeNanos < 0) {
            throw new IllegalArgumentException("ThreadSnapshot needs initialSize > 0 and maxAgeNanos >= 0, got "
                    + initialSize + ", " + maxAgeNanos);
        }
        this.call = call;
        this.maxAgeNanos = maxAgeNanos;
        this.query = query;
        this.layout = layout;
        this.nanoClock = nanoClock;
        allocate(initialSize);
    }

    /**
     * Takes a fresh answer and runs the layout's self-check on it for thread {@code tid} (the calling thread), for
     * the probe's {@code create}.
     */
    public synchronized void selfCheck(long tid) throws ProbeUnavailableException {
        if (!refresh(true)) {
            throw new ProbeUnavailableException(call + " failed");
        }
        String problem = layout.selfCheck(bytes, length, tid);
        if (problem != null) {
            throw new ProbeUnavailableException(problem);
        }
    }

    /**
     * Reads thread {@code tid} from an answer at most the maximum age old ({@code fresh}: from a new one); false if
     * the call failed or the thread is not in the answer.
     */
    public synchronized boolean read(long tid, ThreadStats into, boolean fresh) {
        if (!refresh(fresh)) {
            return false;
        }
        int at = layout.find(bytes, length, tid);
        if (at < 0) {
            return false;
        }
        layout.read(bytes, at, into);
        return true;
    }

    /**
     * A handle on thread {@code tid} whose reads come from this snapshot ({@link #read} with {@code fresh} false);
     * closing it releases nothing, as it holds nothing.
     */
    public ThreadHandle handle(long tid) {
        return new Handle(tid);
    }

    /** The buffer's size in bytes (it only grows). */
    public synchronized long capacity() {
        return buffer.size();
    }

    private boolean refresh(boolean force) {
        long now = nanoClock.getAsLong();
        if (!force && taken && now - takenAt < maxAgeNanos) {
            return true;
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            long n = query.fill(buffer);
            if (n >= 0) {
                length = (int) n;
                taken = true;
                takenAt = now;
                layout.answered(bytes, length);
                return true;
            }
            if (n != TOO_SMALL) {
                return false;
            }
            allocate(query.grownSize(buffer.size()));
        }
        return false;
    }

    private void allocate(long size) {
        // the answer lived in the old buffer: nothing is served from the new one until a call fills it
        taken = false;
        buffer = new Memory(size);
        bytes = buffer.getByteBuffer(0, size).order(ByteOrder.LITTLE_ENDIAN);
    }

    private final class Handle implements ThreadHandle {
        private final long tid;

        Handle(long tid) {
            this.tid = tid;
        }

        @Override
        public long tid() {
            return tid;
        }

        @Override
        public boolean read(ThreadStats into, boolean scheduling) {
            return ThreadSnapshot.this.read(tid, into, false);
        }

        @Override
        public void close() {
        }
    }
}
