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
import io.fairslice.probe.internal.ThreadSnapshot;
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
 * <p>All threads of the process come in one sysctl; a {@link ThreadSnapshot} serves every handle read within
 * {@link #SNAPSHOT_MAX_AGE_NANOS} so that sampling N threads costs one call, not N.
 *
 * <p>Cannot be tested on the Linux CI: {@link #create} self-checks the record size the kernel reports, that this
 * process's pid is in the records and that the calling thread's id is among them.
 */
public final class FreeBsdKernelProbe implements KernelProbe {

    static final long SNAPSHOT_MAX_AGE_NANOS = 10_000_000L;

    private final String schedulerName;
    private final ThreadLocal<long[]> tidCache = new ThreadLocal<>();
    private final ThreadLocal<long[]> rusage = new ThreadLocal<>();
    private final ThreadSnapshot snapshot;

    private FreeBsdKernelProbe(int pid, String schedulerName, long quantumNanos) {
        this.schedulerName = schedulerName;
        Sysctl sysctl = (mib, oldp, oldlenp) -> FreeBsdLibC.sysctl(mib, mib.length, oldp, oldlenp, 0, 0);
        this.snapshot = new ThreadSnapshot("sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD for pid " + pid,
                64L * KinfoProcLayout.SIZE, SNAPSHOT_MAX_AGE_NANOS, new KinfoProcQuery(pid, sysctl),
                KinfoProcLayout.forProcess(pid, quantumNanos));
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
        probe.snapshot.selfCheck(probe.currentThreadId());
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
        return snapshot.handle(tid);
    }

    @Override
    public ThreadHandle openCurrentThread() {
        return snapshot.handle(currentThreadId());
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

    /** {@code sysctl(mib, mib.length, oldp, oldlenp, NULL, 0)}: the fixture tests stand in for the kernel here. */
    @FunctionalInterface
    interface Sysctl {
        void call(int[] mib, long oldp, long[] oldlenp) throws LastErrorException;
    }

    /** Every thread's {@code kinfo_proc} of one process into the snapshot's buffer (called under its lock). */
    static final class KinfoProcQuery implements ThreadSnapshot.Query {
        private static final int ENOMEM = 12;

        private final int[] mib;
        private final long[] length = new long[1];
        private final Sysctl sysctl;

        KinfoProcQuery(int pid, Sysctl sysctl) {
            this.mib = new int[] {FreeBsdLibC.CTL_KERN, FreeBsdLibC.KERN_PROC,
                    FreeBsdLibC.KERN_PROC_PID | FreeBsdLibC.KERN_PROC_INC_THREAD, pid};
            this.sysctl = sysctl;
        }

        @Override
        public long fill(Memory buffer) {
            length[0] = buffer.size();
            try {
                sysctl.call(mib, Pointer.nativeValue(buffer), length);
                return length[0];
            } catch (LastErrorException e) {
                // ENOMEM: more threads than the buffer holds
                return e.getErrorCode() == ENOMEM ? ThreadSnapshot.TOO_SMALL : ThreadSnapshot.FAILED;
            }
        }

        /**
         * The size the kernel says the answer needs now (sysctl(2) with no buffer), a quarter more for threads started
         * before the next call, and at least twice {@code size}: doubling alone gave up after four tries, so a JVM
         * with over 512 threads (a busy Tomcat) had no probe.
         */
        @Override
        public long grownSize(long size) {
            long[] needed = {0};
            try {
                sysctl.call(mib, 0, needed);
            } catch (LastErrorException e) {
                return size * 2;
            }
            return Math.max(size * 2, needed[0] + needed[0] / 4);
        }
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
                return snapshot.read(tid, into, true);
            }

            @Override
            public void setNice(long tid, int nice) throws ActuatorException {
                throw new ActuatorException("setpriority", 0, "FreeBSD has no per-thread nice");
            }

            @Override
            public boolean setSlice(long tid, long sliceNanos) throws ActuatorException {
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
}
