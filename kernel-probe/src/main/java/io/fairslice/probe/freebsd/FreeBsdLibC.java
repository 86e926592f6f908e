package io.fairslice.probe.freebsd;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/** JNA direct mappings of FreeBSD's libc calls (jna-platform has none). Loaded only on FreeBSD. */
final class FreeBsdLibC {

    static final int CTL_KERN = 1;
    static final int KERN_PROC = 14;
    static final int KERN_PROC_PID = 1;
    static final int KERN_PROC_INC_THREAD = 0x10;
    static final int RUSAGE_THREAD = 1;
    /** rusage as longs on LP64: utime(2) stime(2) then fourteen longs; ru_nvcsw and ru_nivcsw are the last two. */
    static final int RUSAGE_LONGS = 18;
    static final int RUSAGE_NVCSW = 16;
    static final int RUSAGE_NIVCSW = 17;

    static {
        Native.register(FreeBsdLibC.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
    }

    private FreeBsdLibC() {
    }

    static native int getpid();

    /** {@code thr_self(long *id)}: the calling thread's id. */
    static native int thr_self(long[] id) throws LastErrorException;

    /** {@code sysctl(name, namelen, oldp, oldlenp, NULL, 0)}; {@code oldp} is a raw address (0 to ask the size). */
    static native int sysctl(int[] name, int namelen, long oldp, long[] oldlenp, long newp, long newlen)
            throws LastErrorException;

    static native int sysctlbyname(String name, byte[] oldp, long[] oldlenp, long newp, long newlen)
            throws LastErrorException;

    static native int getrusage(int who, long[] usage) throws LastErrorException;

    static native int getloadavg(double[] loadavg, int nelem);
}
