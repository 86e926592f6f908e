package io.fairslice.probe.windows;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.WString;

/** JNA direct mappings of the Windows calls the probe needs (jna-platform lacks the NT ones). x64 only. */
final class WindowsNative {

    private WindowsNative() {
    }

    static final int SYSTEM_PROCESS_INFORMATION = 5;
    static final int STATUS_SUCCESS = 0;
    static final int STATUS_INFO_LENGTH_MISMATCH = 0xC0000004;
    static final int RRF_RT_REG_DWORD = 0x00000010;
    /** HKEY_LOCAL_MACHINE: (HKEY)(ULONG_PTR)(LONG)0x80000002; the int literal is negative, so it sign-extends. */
    static final Pointer HKEY_LOCAL_MACHINE = new Pointer((long) 0x80000002);

    /** ntdll.dll. */
    static final class NtDll {
        static {
            Native.register(NtDll.class, NativeLibrary.getInstance("ntdll"));
        }

        private NtDll() {
        }

        /** {@code NTSTATUS NtQuerySystemInformation(class, buffer, length, &returnLength)}; buffer as raw address. */
        static native int NtQuerySystemInformation(int infoClass, long buffer, int length, int[] returnLength);

        /** Resolutions in 100 ns units; "minimum" is the coarsest, the standard clock tick. */
        static native int NtQueryTimerResolution(int[] minimum, int[] maximum, int[] current);

        /** {@code NTSTATUS RtlGetVersion(PRTL_OSVERSIONINFOEXW)}: the version and product type, never shimmed. */
        static native int RtlGetVersion(OsVersionInfoEx info);
    }

    /** kernel32.dll. */
    static final class Kernel32 {
        static {
            Native.register(Kernel32.class, NativeLibrary.getInstance("kernel32"));
        }

        private Kernel32() {
        }

        static native int GetCurrentProcessId();

        static native int GetCurrentThreadId();

        /** The pseudo-handle of the calling thread. */
        static native Pointer GetCurrentThread();

        /** FILETIMEs (100 ns units) as one long each. */
        static native boolean GetThreadTimes(Pointer thread, long[] creation, long[] exit, long[] kernel, long[] user);
    }

    /** advapi32.dll. */
    static final class Advapi32 {
        static {
            Native.register(Advapi32.class, NativeLibrary.getInstance("advapi32"));
        }

        private Advapi32() {
        }

        static native int RegGetValueW(Pointer hkey, WString subKey, WString value, int flags, int[] type, int[] data,
                int[] dataSize);
    }
}
