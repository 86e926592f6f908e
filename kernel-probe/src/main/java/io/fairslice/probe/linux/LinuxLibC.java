package io.fairslice.probe.linux;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * JNA direct mappings of the glibc/musl calls the Linux probe needs (jna-platform has none of them). C names are
 * kept; {@code syscall} is declared with fixed {@code long} arguments, which is how the variadic C function reads
 * them on x86-64 and aarch64. Loading this class fails with a {@link LinkageError} when JNA cannot load libc: the
 * probe factory turns that into the no-op probe.
 */
final class LinuxLibC {

    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    static final int RUSAGE_THREAD = 1;
    static final int PRIO_PROCESS = 0;
    /** {@code sizeof(struct rusage)} on LP64: two timevals and fourteen longs, as 18 longs. */
    static final int RUSAGE_LONGS = 18;
    static final int RUSAGE_NVCSW = 16;
    static final int RUSAGE_NIVCSW = 17;
    /** {@code SCHED_ATTR_SIZE_VER1}: 56 bytes, as 14 ints. */
    static final int SCHED_ATTR_SIZE = 56;

    /** Syscall numbers by architecture; -1 where this probe does not know them. */
    static final long SYS_GETTID;
    static final long SYS_SCHED_SETATTR;
    static final long SYS_SCHED_GETATTR;

    static {
        if (Platform.ARCH.equals("x86-64")) {
            SYS_GETTID = 186;
            SYS_SCHED_SETATTR = 314;
            SYS_SCHED_GETATTR = 315;
        } else if (Platform.ARCH.equals("aarch64")) {
            SYS_GETTID = 178;
            SYS_SCHED_SETATTR = 274;
            SYS_SCHED_GETATTR = 275;
        } else {
            SYS_GETTID = -1;
            SYS_SCHED_SETATTR = -1;
            SYS_SCHED_GETATTR = -1;
        }
        Native.register(LinuxLibC.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private LinuxLibC() {
    }

    static native int getpid();

    static native int open(String path, int flags) throws LastErrorException;

    /** {@code pread} into native memory at {@code address}: a raw address keeps the call allocation-free. */
    static native long pread(int fd, long address, long count, long offset) throws LastErrorException;

    static native int close(int fd);

    static native int getrusage(int who, long[] usage) throws LastErrorException;

    static native int setpriority(int which, int who, int prio) throws LastErrorException;

    /** {@code syscall(SYS_gettid)}: the calling thread's id. */
    static native long syscall(long number);

    /** {@code syscall(SYS_sched_getattr/SYS_sched_setattr, pid, attr, size, flags)}. */
    static native long syscall(long number, long pid, int[] attr, long size, long flags) throws LastErrorException;

    /** The calling thread's id, or -1 on an architecture whose syscall number is not known here. */
    static long gettid() {
        return SYS_GETTID < 0 ? -1 : syscall(SYS_GETTID);
    }
}
