package io.fairslice.probe.freebsd;

import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ThreadSnapshot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Parses the array of {@code kinfo_proc} records that {@code sysctl(CTL_KERN, KERN_PROC,
 * KERN_PROC_PID | KERN_PROC_INC_THREAD, pid)} returns, one per thread, straight from the bytes (no JNA structure
 * per record: the sampler reads every thread every interval). Offsets are those of {@link KinfoProc} on LP64.
 */
public final class KinfoProcLayout {

    public static final int SIZE = 1088;
    public static final int OFF_STRUCTSIZE = 0;
    public static final int OFF_PID = 72;
    public static final int OFF_RUNTIME = 328;
    public static final int OFF_STAT = 388;
    public static final int OFF_NICE = 389;
    public static final int OFF_TDNAME = 394;
    public static final int TDNAME_LEN = 17;
    public static final int OFF_MORETDNAME = 502;
    public static final int MORETDNAME_LEN = 4;
    public static final int OFF_LASTCPU = 572;
    public static final int OFF_TID = 600;
    public static final int OFF_PRI = 604;
    public static final int OFF_RUSAGE = 608;
    /** Within {@code struct rusage}. */
    public static final int RU_NVCSW = 128;
    public static final int RU_NIVCSW = 136;

    /** {@code pri_class} values from {@code sys/priority.h}. */
    public static final int PRI_ITHD = 1;
    public static final int PRI_REALTIME = 2;
    public static final int PRI_TIMESHARE = 3;
    public static final int PRI_IDLE = 4;
    /** {@code PRI_FIFO_BIT | PRI_REALTIME}: POSIX SCHED_FIFO ({@code RTP_PRIO_FIFO}), a FIFO thread's class. */
    public static final int PRI_FIFO = 8 | PRI_REALTIME;

    private KinfoProcLayout() {
    }

    /**
     * The records of process {@code pid} as a {@link ThreadSnapshot} reads them: a thread's record by its index,
     * with {@code quantumNanos} as the slice.
     */
    public static ThreadSnapshot.Layout forProcess(int pid, long quantumNanos) {
        return new ThreadSnapshot.Layout() {
            @Override
            public int find(ByteBuffer bytes, int length, long tid) {
                return indexOfTid(bytes, length, tid);
            }

            @Override
            public void read(ByteBuffer bytes, int at, ThreadStats into) {
                KinfoProcLayout.read(bytes, at, quantumNanos, into);
            }

            @Override
            public String selfCheck(ByteBuffer bytes, int length, long tid) {
                return KinfoProcLayout.selfCheck(bytes, length, pid, tid);
            }
        };
    }

    /**
     * The runtime self-check on a fresh sysctl answer: null if the records have the expected size, belong to
     * {@code pid} and include thread {@code tid}; otherwise what is wrong, for the one warning.
     */
    public static String selfCheck(ByteBuffer b, int length, int pid, long tid) {
        int n = records(length);
        if (n == 0) {
            return "sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD returned " + length + " bytes, less than one kinfo_proc";
        }
        if (structSize(b, 0) != SIZE) {
            return "the kernel's kinfo_proc is " + structSize(b, 0) + " bytes, this probe's layout " + SIZE;
        }
        if (pid(b, 0) != pid) {
            return "kinfo_proc names pid " + pid(b, 0) + ", expected this process, " + pid;
        }
        if (indexOfTid(b, length, tid) < 0) {
            return "this thread (thr_self " + tid + ") is not among the " + n + " kinfo_proc records";
        }
        return null;
    }

    /** Number of whole records in {@code length} bytes. */
    public static int records(int length) {
        return length / SIZE;
    }

    /** {@code ki_structsize} of record {@code i}: {@link #SIZE} on a kernel whose layout matches. */
    public static int structSize(ByteBuffer b, int i) {
        return le(b).getInt(i * SIZE + OFF_STRUCTSIZE);
    }

    public static int pid(ByteBuffer b, int i) {
        return le(b).getInt(i * SIZE + OFF_PID);
    }

    public static int tid(ByteBuffer b, int i) {
        return le(b).getInt(i * SIZE + OFF_TID);
    }

    /** The record index of thread {@code tid}, or -1. */
    public static int indexOfTid(ByteBuffer b, int length, long tid) {
        int n = records(length);
        for (int i = 0; i < n; i++) {
            if (tid(b, i) == tid) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Fills {@code into} from record {@code i}: run time ({@code ki_runtime}, us), switches ({@code ki_rusage}),
     * policy from {@code ki_pri.pri_class}, nice, and {@code quantumNanos} as the slice of time-sharing and
     * real-time round-robin threads (ULE shortens a time-sharing slice under load, down to a sixth: the quantum is its
     * most). FreeBSD gives no run-queue wait or dispatch count: those stay unsupported.
     */
    public static void read(ByteBuffer b, int i, long quantumNanos, ThreadStats into) {
        ByteBuffer l = le(b);
        int base = i * SIZE;
        long runtimeMicros = l.getLong(base + OFF_RUNTIME);
        into.setCounters(runtimeMicros * 1_000L, ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED,
                l.getLong(base + OFF_RUSAGE + RU_NVCSW), l.getLong(base + OFF_RUSAGE + RU_NIVCSW));
        int priClass = l.get(base + OFF_PRI) & 0xff;
        SchedPolicy policy;
        switch (priClass) {
            case PRI_TIMESHARE: policy = SchedPolicy.OTHER; break;
            case PRI_REALTIME: policy = SchedPolicy.RR; break;
            case PRI_FIFO: policy = SchedPolicy.FIFO; break; // runs until it yields: no slice
            case PRI_IDLE: policy = SchedPolicy.IDLE; break;
            default: policy = SchedPolicy.UNKNOWN; break;
        }
        long slice = policy == SchedPolicy.OTHER || policy == SchedPolicy.RR ? quantumNanos : ThreadStats.UNSUPPORTED;
        into.setScheduling(policy, l.get(base + OFF_NICE), slice);
    }

    /** The thread name: {@code ki_tdname} plus {@code ki_moretdname}. Allocates: for the operator tool only. */
    public static String threadName(ByteBuffer b, int i) {
        int base = i * SIZE;
        return cString(b, base + OFF_TDNAME, TDNAME_LEN) + cString(b, base + OFF_MORETDNAME, MORETDNAME_LEN);
    }

    private static String cString(ByteBuffer b, int at, int max) {
        int n = 0;
        while (n < max && b.get(at + n) != 0) {
            n++;
        }
        byte[] bytes = new byte[n];
        for (int k = 0; k < n; k++) {
            bytes[k] = b.get(at + k);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static ByteBuffer le(ByteBuffer b) {
        // the buffers passed here are created little-endian once; this only guards callers that forgot
        return b.order() == ByteOrder.LITTLE_ENDIAN ? b : b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }
}
