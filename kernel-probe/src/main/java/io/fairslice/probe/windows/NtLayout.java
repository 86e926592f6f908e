package io.fairslice.probe.windows;

import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ThreadSnapshot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Walks the buffer {@code NtQuerySystemInformation(SystemProcessInformation)} fills (x64): a chain of
 * {@code SYSTEM_PROCESS_INFORMATION} entries linked by {@code NextEntryOffset}, each followed by its threads'
 * {@code SYSTEM_THREAD_INFORMATION}. Reads bytes directly so a sample allocates nothing.
 */
public final class NtLayout {

    public static final int PROCESS_SIZE = 256;
    public static final int P_NEXT_ENTRY_OFFSET = 0;
    public static final int P_NUMBER_OF_THREADS = 4;
    public static final int P_IMAGE_NAME_LENGTH = 56;
    public static final int P_IMAGE_NAME_BUFFER = 64;
    public static final int P_BASE_PRIORITY = 72;
    public static final int P_UNIQUE_PROCESS_ID = 80;

    public static final int THREAD_SIZE = 80;
    public static final int T_KERNEL_TIME = 0;
    public static final int T_USER_TIME = 8;
    public static final int T_CREATE_TIME = 16;
    public static final int T_WAIT_TIME = 24;
    public static final int T_START_ADDRESS = 32;
    public static final int T_UNIQUE_PROCESS = 40;
    public static final int T_UNIQUE_THREAD = 48;
    public static final int T_PRIORITY = 56;
    public static final int T_BASE_PRIORITY = 60;
    public static final int T_CONTEXT_SWITCHES = 64;
    public static final int T_THREAD_STATE = 68;
    public static final int T_WAIT_REASON = 72;

    /** KTHREAD_STATE Waiting; with {@link #T_WAIT_REASON} it tells why. */
    public static final int STATE_WAITING = 5;

    private NtLayout() {
    }

    /**
     * The threads of process {@code pid} as a {@link ThreadSnapshot} reads them: the process entry is found once per
     * answer, a thread's record by its offset, with {@code quantumNanos} as the slice.
     */
    public static ThreadSnapshot.Layout forProcess(long pid, long quantumNanos) {
        return new ThreadSnapshot.Layout() {
            private int processOffset = -1;

            @Override
            public void answered(ByteBuffer bytes, int length) {
                processOffset = findProcess(bytes, length, pid);
            }

            @Override
            public int find(ByteBuffer bytes, int length, long tid) {
                return processOffset < 0 ? -1 : findThread(bytes, length, processOffset, tid);
            }

            @Override
            public void read(ByteBuffer bytes, int at, ThreadStats into) {
                NtLayout.read(bytes, at, quantumNanos, into);
            }

            @Override
            public String selfCheck(ByteBuffer bytes, int length, long tid) {
                return NtLayout.selfCheck(bytes, length, pid, tid);
            }
        };
    }

    /**
     * The runtime self-check on a fresh snapshot: null if process {@code pid} is in it with thread {@code tid};
     * otherwise what is wrong, for the one warning.
     */
    public static String selfCheck(ByteBuffer b, int length, long pid, long tid) {
        int proc = findProcess(b, length, pid);
        if (proc < 0) {
            return "this process (pid " + pid + ") is not in the SystemProcessInformation snapshot of " + length
                    + " bytes";
        }
        if (findThread(b, length, proc, tid) < 0) {
            return "this thread (" + tid + ") is not among the " + threadCount(b, proc) + " threads of this process";
        }
        return null;
    }

    /** Offset of the process entry for {@code pid}, or -1. */
    public static int findProcess(ByteBuffer b, int length, long pid) {
        ByteBuffer l = le(b);
        int off = 0;
        while (off >= 0 && off + PROCESS_SIZE <= length) {
            if (l.getLong(off + P_UNIQUE_PROCESS_ID) == pid) {
                return off;
            }
            int next = l.getInt(off + P_NEXT_ENTRY_OFFSET);
            if (next <= 0) {
                return -1;
            }
            off += next;
        }
        return -1;
    }

    public static int threadCount(ByteBuffer b, int processOffset) {
        return le(b).getInt(processOffset + P_NUMBER_OF_THREADS);
    }

    /** Offset of thread record {@code i} of the process at {@code processOffset}. */
    public static int threadOffset(int processOffset, int i) {
        return processOffset + PROCESS_SIZE + i * THREAD_SIZE;
    }

    public static long threadId(ByteBuffer b, int threadOffset) {
        return le(b).getLong(threadOffset + T_UNIQUE_THREAD);
    }

    /** Offset of the record of thread {@code tid} in the process at {@code processOffset}, or -1. */
    public static int findThread(ByteBuffer b, int length, int processOffset, long tid) {
        int n = threadCount(b, processOffset);
        for (int i = 0; i < n; i++) {
            int t = threadOffset(processOffset, i);
            if (t + THREAD_SIZE > length) {
                return -1;
            }
            if (threadId(b, t) == tid) {
                return t;
            }
        }
        return -1;
    }

    /**
     * Fills {@code into} from the thread record at {@code threadOffset}: CPU = kernel + user time, dispatches =
     * {@code ContextSwitches} (Windows counts a switch each time the thread is switched in). Windows does not split
     * switches into voluntary and involuntary nor report run-queue wait: those stay unsupported. The slice is
     * {@code quantumNanos} (derived from the timer resolution and Win32PrioritySeparation by the probe).
     */
    public static void read(ByteBuffer b, int threadOffset, long quantumNanos, ThreadStats into) {
        ByteBuffer l = le(b);
        long cpu100ns = l.getLong(threadOffset + T_KERNEL_TIME) + l.getLong(threadOffset + T_USER_TIME);
        long switches = l.getInt(threadOffset + T_CONTEXT_SWITCHES) & 0xffffffffL;
        into.setCounters(cpu100ns * 100L, ThreadStats.UNSUPPORTED, switches, ThreadStats.UNSUPPORTED,
                ThreadStats.UNSUPPORTED);
        into.setScheduling(SchedPolicy.OTHER, ThreadStats.UNSUPPORTED, quantumNanos);
    }

    public static int priority(ByteBuffer b, int threadOffset) {
        return le(b).getInt(threadOffset + T_PRIORITY);
    }

    public static int threadState(ByteBuffer b, int threadOffset) {
        return le(b).getInt(threadOffset + T_THREAD_STATE);
    }

    public static int waitReason(ByteBuffer b, int threadOffset) {
        return le(b).getInt(threadOffset + T_WAIT_REASON);
    }

    private static ByteBuffer le(ByteBuffer b) {
        return b.order() == ByteOrder.LITTLE_ENDIAN ? b : b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }
}
