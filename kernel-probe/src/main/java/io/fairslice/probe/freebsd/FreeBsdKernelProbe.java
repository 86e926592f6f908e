package io.fairslice.probe.freebsd;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.fairslice.probe.ActuatorException;
import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The FreeBSD probe: per-thread {@code kinfo_proc} records from {@code sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD}
 * (run time, voluntary and involuntary switches, priority class, nice), {@code getrusage(RUSAGE_THREAD)} for the
 * calling thread, {@code kern.sched.name} and {@code kern.sched.quantum} for the scheduler and its slice,
 * {@code thr_self} for thread ids, {@code getloadavg} for the load. FreeBSD has no per-thread run-queue wait or
 * dispatch count and no per-thread nice ({@code setpriority} acts on the process), so those are unsupported.
 *
 * <p>All threads of the process come in one sysctl; a snapshot serves every handle read within
 * {@link #SNAPSHOT_MAX_AGE_NANOS} so that sampling N threads costs one call, not N.
 *
 * <p>Cannot be tested on the Linux CI: {@link #create} self-checks the record size the kernel reports, that this
 * process's pid is in the records and that the calling thread's id is among them.
 */
public final class FreeBsdKernelProbe implements KernelProbe {

    static final long SNAPSHOT_MAX_AGE_NANOS = 10_000_000L;

    private final int pid;
    private final String schedulerName;
    private final long quantumNanos;
    private final ThreadLocal<long[]> tidCache = new ThreadLocal<>();
    private final ThreadLocal<long[]> rusage = new ThreadLocal<>();
    private final int[] mib;
    private final long[] length = new long[1];
    private Memory buffer = new Memory(64L * KinfoProcLayout.SIZE);
    private ByteBuffer bytes = buffer.getByteBuffer(0, buffer.size()).order(ByteOrder.LITTLE_ENDIAN);
    private int snapshotLength;
    private long snapshotAt = Long.MIN_VALUE;

    private FreeBsdKernelProbe(int pid, String schedulerName, long quantumNanos) {
        this.pid = pid;
        this.schedulerName = schedulerName;
        this.quantumNanos = quantumNanos;
        this.mib = new int[] {FreeBsdLibC.CTL_KERN, FreeBsdLibC.KERN_PROC,
                FreeBsdLibC.KERN_PROC_PID | FreeBsdLibC.KERN_PROC_INC_THREAD, pid};
    }

    public static FreeBsdKernelProbe create() throws ProbeUnavailableException {
        int structSize = new KinfoProc().size();
        if (structSize != KinfoProcLayout.SIZE) {
            throw new ProbeUnavailableException("struct kinfo_proc lays out as " + structSize + " bytes, expected "
                    + KinfoProcLayout.SIZE + " (not an LP64 FreeBSD?)");
        }
        int pid = FreeBsdLibC.getpid();
        String name = sysctlString("kern.sched.name");
        long quantumMicros = sysctlInt("kern.sched.quantum");
        FreeBsdKernelProbe probe = new FreeBsdKernelProbe(pid, name, quantumMicros > 0 ? quantumMicros * 1_000L
                : ThreadStats.UNSUPPORTED);
        synchronized (probe) {
            if (!probe.refresh(true)) {
                throw new ProbeUnavailableException("sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD for pid " + pid
                        + " failed");
            }
            String problem = KinfoProcLayout.selfCheck(probe.bytes, probe.snapshotLength, pid,
                    probe.currentThreadId());
            if (problem != null) {
                throw new ProbeUnavailableException(problem);
            }
        }
        return probe;
    }

    /** {@code kern.sched.name}: ULE or 4BSD. */
    public String schedulerName() {
        return schedulerName;
    }

    @Override
    public String platform() {
        return "freebsd";
    }

    @Override
    public boolean isOperational() {
        return true;
    }

    @Override
    public long currentThreadId() {
        long[] cached = tidCache.get();
        if (cached == null) {
            cached = new long[1];
            try {
                FreeBsdLibC.thr_self(cached);
            } catch (LastErrorException e) {
                cached[0] = -1;
            }
            tidCache.set(cached);
        }
        return cached[0];
    }

    @Override
    public ThreadHandle openThread(long tid) {
        return new Handle(tid, false);
    }

    @Override
    public ThreadHandle openCurrentThread() {
        return new Handle(currentThreadId(), true);
    }

    @Override
    public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
        long[] r = rusage.get();
        if (r == null) {
            r = new long[FreeBsdLibC.RUSAGE_LONGS];
            rusage.set(r);
        }
        try {
            FreeBsdLibC.getrusage(FreeBsdLibC.RUSAGE_THREAD, r);
        } catch (LastErrorException e) {
            return false;
        }
        long cpuMicros = r[0] * 1_000_000L + r[1] + r[2] * 1_000_000L + r[3];
        into.setCounters(cpuMicros * 1_000L, ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED,
                r[FreeBsdLibC.RUSAGE_NVCSW], r[FreeBsdLibC.RUSAGE_NIVCSW]);
        return true;
    }

    /** Reads thread {@code tid} from a snapshot at most {@link #SNAPSHOT_MAX_AGE_NANOS} old. */
    synchronized boolean readThread(long tid, ThreadStats into, boolean fresh) {
        if (!refresh(fresh)) {
            return false;
        }
        int i = KinfoProcLayout.indexOfTid(bytes, snapshotLength, tid);
        if (i < 0) {
            return false;
        }
        KinfoProcLayout.read(bytes, i, quantumNanos, into);
        return true;
    }

    private boolean refresh(boolean force) {
        long now = System.nanoTime();
        if (!force && now - snapshotAt < SNAPSHOT_MAX_AGE_NANOS) {
            return true;
        }
        for (int attempt = 0; attempt < 4; attempt++) {
            length[0] = buffer.size();
            try {
                FreeBsdLibC.sysctl(mib, mib.length, Pointer.nativeValue(buffer), length, 0, 0);
                snapshotLength = (int) length[0];
                snapshotAt = now;
                return true;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != 12) { // ENOMEM: more threads than the buffer holds
                    return false;
                }
                buffer = new Memory(buffer.size() * 2);
                bytes = buffer.getByteBuffer(0, buffer.size()).order(ByteOrder.LITTLE_ENDIAN);
            }
        }
        return false;
    }

    @Override
    public boolean readSystem(SystemStats into) {
        double[] load = new double[1];
        if (FreeBsdLibC.getloadavg(load, 1) == 1) {
            into.setLoad(load[0], ThreadStats.UNSUPPORTED);
            return true;
        }
        return false;
    }

    @Override
    public ThreadActuator actuator() {
        return new ThreadActuator() {
            @Override
            public boolean supportsNice() {
                return false; // setpriority(2) is per process on FreeBSD
            }

            @Override
            public boolean supportsSlice() {
                return false;
            }

            @Override
            public boolean readScheduling(long tid, ThreadStats into) {
                return readThread(tid, into, true);
            }

            @Override
            public void setNice(long tid, int nice) throws ActuatorException {
                throw new ActuatorException("setpriority", 0, "FreeBSD has no per-thread nice");
            }

            @Override
            public void setSlice(long tid, long sliceNanos) throws ActuatorException {
                throw new ActuatorException("setSlice", 0, "FreeBSD has no per-thread slice");
            }
        };
    }

    @Override
    public void close() {
    }

    private static String sysctlString(String name) throws ProbeUnavailableException {
        byte[] buf = new byte[64];
        long[] len = {buf.length};
        try {
            FreeBsdLibC.sysctlbyname(name, buf, len, 0, 0);
        } catch (LastErrorException e) {
            throw new ProbeUnavailableException("sysctl " + name + " failed: " + e.getMessage());
        }
        int n = (int) Math.max(0, len[0] - 1); // without the terminating NUL
        return new String(buf, 0, n, StandardCharsets.US_ASCII);
    }

    private static long sysctlInt(String name) throws ProbeUnavailableException {
        byte[] buf = new byte[8];
        long[] len = {4};
        try {
            FreeBsdLibC.sysctlbyname(name, buf, len, 0, 0);
        } catch (LastErrorException e) {
            throw new ProbeUnavailableException("sysctl " + name + " failed: " + e.getMessage());
        }
        return ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    }

    private final class Handle implements ThreadHandle {
        private final long tid;

        Handle(long tid, boolean own) {
            this.tid = tid;
        }

        @Override
        public long tid() {
            return tid;
        }

        @Override
        public boolean read(ThreadStats into, boolean scheduling) {
            return readThread(tid, into, false);
        }

        @Override
        public void close() {
        }
    }
}
