package io.fairslice.probe.linux;

import com.sun.jna.LastErrorException;
import io.fairslice.probe.ActuatorException;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteOrder;

/**
 * Per-thread nice ({@code setpriority(PRIO_PROCESS, tid, n)}: Linux applies it to the one thread) and EEVDF slice
 * ({@code sched_setattr} with {@code sched_runtime}, Linux 6.12+, unprivileged, clamped by the kernel to 0.1..100 ms).
 * {@code sched_setattr} also sets policy and nice, so the current ones are read first and passed back.
 */
final class LinuxActuator implements ThreadActuator {

    /**
     * {@code struct sched_attr} as ints: size, policy, flags(2), nice, priority, runtime(2), deadline(2), period(2),
     * util_min, util_max.
     */
    private static final int ATTR_INTS = LinuxLibC.SCHED_ATTR_SIZE / 4;
    private static final int I_SIZE = 0;
    private static final int I_POLICY = 1;
    private static final int I_FLAGS = 2;
    private static final int I_NICE = 4;
    private static final int I_RUNTIME = 6;
    /** {@code SCHED_FLAG_RESET_ON_FORK}: clearing it needs CAP_SYS_NICE, so a slice change must pass it back. */
    private static final long SCHED_FLAG_RESET_ON_FORK = 0x01;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    LinuxKernelProbe probe;
    private final boolean sliceSupported;
    /** Each thread's sched_attr buffer: a plain ThreadLocal of a primitive array, no class of this application. */
    private final ThreadLocal<int[]> attrs = new ThreadLocal<>();

    LinuxActuator() {
        sliceSupported = LinuxLibC.SYS_SCHED_SETATTR > 0 && kernelAtLeast(6, 12);
    }

    @Override
    public boolean supportsNice() {
        return true;
    }

    @Override
    public boolean supportsSlice() {
        return sliceSupported;
    }

    @Override
    public boolean readScheduling(long tid, ThreadStats into) {
        int[] attr = attr();
        if (!getattr(tid, attr)) {
            return false;
        }
        SchedPolicy policy = SchedPolicy.ofLinux(attr[I_POLICY]);
        long slice;
        if (policy == SchedPolicy.RR) {
            slice = probe == null ? ThreadStats.UNSUPPORTED : probe.rrQuantumNanos();
        } else if (policy == SchedPolicy.FIFO) {
            slice = ThreadStats.UNSUPPORTED;
        } else {
            long runtime = u64(attr, I_RUNTIME);
            slice = runtime > 0 ? runtime : ThreadStats.UNSUPPORTED;
        }
        into.setScheduling(policy, attr[I_NICE], slice);
        return true;
    }

    long readNice(long tid) {
        int[] attr = attr();
        return getattr(tid, attr) ? attr[I_NICE] : ThreadStats.UNSUPPORTED;
    }

    @Override
    public void setNice(long tid, int nice) throws ActuatorException {
        try {
            LinuxLibC.setpriority(LinuxLibC.PRIO_PROCESS, (int) tid, nice);
        } catch (LastErrorException e) {
            throw new ActuatorException("setpriority(PRIO_PROCESS, " + tid + ", " + nice + ")", e.getErrorCode(),
                    e.getMessage() + hintFor(e.getErrorCode()));
        }
    }

    @Override
    public boolean setSlice(long tid, long sliceNanos) throws ActuatorException {
        if (!sliceSupported) {
            throw new ActuatorException("sched_setattr", 0, "per-thread EEVDF slices need Linux 6.12 or newer on "
                    + "x86-64 or aarch64");
        }
        int[] attr = attr();
        if (!getattr(tid, attr)) {
            throw new ActuatorException("sched_getattr(" + tid + ")", 0, "could not read the current attributes");
        }
        SchedPolicy policy = SchedPolicy.ofLinux(attr[I_POLICY]);
        if (policy != SchedPolicy.OTHER && policy != SchedPolicy.BATCH) {
            return false; // the slice applies to SCHED_OTHER/SCHED_BATCH threads only
        }
        attr[I_SIZE] = LinuxLibC.SCHED_ATTR_SIZE;
        setU64(attr, I_FLAGS, u64(attr, I_FLAGS) & SCHED_FLAG_RESET_ON_FORK);
        setU64(attr, I_RUNTIME, sliceNanos);
        try {
            LinuxLibC.syscall(LinuxLibC.SYS_SCHED_SETATTR, tid, attr, 0, 0);
        } catch (LastErrorException e) {
            throw new ActuatorException("sched_setattr(" + tid + ", runtime=" + sliceNanos + ")", e.getErrorCode(),
                    e.getMessage());
        }
        return true;
    }

    private int[] attr() {
        int[] attr = attrs.get();
        if (attr == null) {
            attr = new int[ATTR_INTS];
            attrs.set(attr);
        }
        return attr;
    }

    private static boolean getattr(long tid, int[] attr) {
        if (LinuxLibC.SYS_SCHED_GETATTR < 0) {
            return false;
        }
        try {
            LinuxLibC.syscall(LinuxLibC.SYS_SCHED_GETATTR, tid, attr, LinuxLibC.SCHED_ATTR_SIZE, 0);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    private static long u64(int[] a, int i) {
        long lo = a[LITTLE_ENDIAN ? i : i + 1] & 0xffffffffL;
        long hi = a[LITTLE_ENDIAN ? i + 1 : i] & 0xffffffffL;
        return hi << 32 | lo;
    }

    private static void setU64(int[] a, int i, long v) {
        a[LITTLE_ENDIAN ? i : i + 1] = (int) v;
        a[LITTLE_ENDIAN ? i + 1 : i] = (int) (v >>> 32);
    }

    private static String hintFor(int errno) {
        // EACCES/EPERM: lowering nice needs CAP_SYS_NICE or RLIMIT_NICE (ulimit -e) of at least 20 - nice
        return errno == 13 || errno == 1
                ? " (lowering a thread's nice needs CAP_SYS_NICE or a sufficient RLIMIT_NICE, ulimit -e)" : "";
    }

    static boolean kernelAtLeast(int major, int minor) {
        // os.version is uname's release; reading /proc/sys/kernel/osrelease with Files would return one byte
        return versionAtLeast(System.getProperty("os.version", ""), major, minor);
    }

    static boolean versionAtLeast(String release, int major, int minor) {
        String[] parts = release.split("[.-]");
        try {
            int ma = Integer.parseInt(parts[0]);
            int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return ma > major || (ma == major && mi >= minor);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return false;
        }
    }
}
