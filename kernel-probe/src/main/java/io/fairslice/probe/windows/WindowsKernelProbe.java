package io.fairslice.probe.windows;

import com.sun.jna.Memory;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import com.sun.jna.WString;
import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ThreadSnapshot;

/**
 * The Windows probe: {@code NtQuerySystemInformation(SystemProcessInformation)} for every thread's CPU time and
 * context switches (and state and wait reason, for diagnostics), {@code GetThreadTimes} for the calling thread (its
 * times move by clock ticks, about 15.6 ms), {@code NtQueryTimerResolution} and
 * {@code Win32PrioritySeparation} for the quantum. Windows reports no run-queue wait and does not split switches
 * into voluntary and involuntary: those are unsupported. No actuators (thread priorities are not nice values).
 *
 * <p>The system-wide query is expensive (all processes), so one {@link ThreadSnapshot} serves all reads within
 * {@link #SNAPSHOT_MAX_AGE_NANOS}. Cannot be tested on the Linux CI: {@link #create} self-checks 64-bit, the structure
 * sizes, and that this process and the calling thread are in the snapshot.
 */
public final class WindowsKernelProbe implements KernelProbe {

    static final long SNAPSHOT_MAX_AGE_NANOS = 20_000_000L;

    private final long quantumNanos;
    private final int prioritySeparation;
    private final long timerResolutionNanos;
    private final ThreadLocal<long[][]> times = new ThreadLocal<>();
    private final ThreadSnapshot snapshot;

    private WindowsKernelProbe(long pid, long quantumNanos, int prioritySeparation, long timerResolutionNanos) {
        this.quantumNanos = quantumNanos;
        this.prioritySeparation = prioritySeparation;
        this.timerResolutionNanos = timerResolutionNanos;
        NtQuery nt = (buffer, size, returned) -> WindowsNative.NtDll.NtQuerySystemInformation(
                WindowsNative.SYSTEM_PROCESS_INFORMATION, buffer, size, returned);
        this.snapshot = new ThreadSnapshot("NtQuerySystemInformation(SystemProcessInformation)", 1 << 20,
                SNAPSHOT_MAX_AGE_NANOS, new SystemProcessQuery(nt), NtLayout.forProcess(pid, quantumNanos));
    }

    public static WindowsKernelProbe create() throws ProbeUnavailableException {
        if (!Platform.is64Bit()) {
            throw new ProbeUnavailableException("only 64-bit Windows is supported (the structure layouts are x64)");
        }
        int threadSize = new SystemThreadInformation().size();
        int processSize = new SystemProcessInformation().size();
        if (threadSize != NtLayout.THREAD_SIZE || processSize != NtLayout.PROCESS_SIZE) {
            throw new ProbeUnavailableException("SYSTEM_THREAD_INFORMATION/SYSTEM_PROCESS_INFORMATION lay out as "
                    + threadSize + "/" + processSize + " bytes, expected 80/256");
        }
        int[] min = new int[1];
        int[] max = new int[1];
        int[] cur = new int[1];
        int status = WindowsNative.NtDll.NtQueryTimerResolution(min, max, cur);
        if (status != WindowsNative.STATUS_SUCCESS) {
            throw new ProbeUnavailableException("NtQueryTimerResolution failed: NTSTATUS 0x"
                    + Integer.toHexString(status));
        }
        int separation = readPrioritySeparation();
        OsVersionInfoEx version = new OsVersionInfoEx();
        if (version.size() != OsVersionInfoEx.SIZE) {
            throw new ProbeUnavailableException("RTL_OSVERSIONINFOEXW lays out as " + version.size()
                    + " bytes, expected " + OsVersionInfoEx.SIZE);
        }
        status = WindowsNative.NtDll.RtlGetVersion(version);
        if (status != WindowsNative.STATUS_SUCCESS) {
            throw new ProbeUnavailableException("RtlGetVersion failed: NTSTATUS 0x" + Integer.toHexString(status));
        }
        boolean server = WindowsQuantum.serverEdition(version.wProductType);
        long tick = min[0] * 100L;
        WindowsKernelProbe probe = new WindowsKernelProbe(WindowsNative.Kernel32.GetCurrentProcessId(),
                WindowsQuantum.backgroundQuantumNanos(separation, tick, server), separation, cur[0] * 100L);
        probe.snapshot.selfCheck(probe.currentThreadId());
        return probe;
    }

    private static int readPrioritySeparation() {
        int[] type = new int[1];
        int[] data = new int[1];
        int[] size = {4};
        int rc = WindowsNative.Advapi32.RegGetValueW(WindowsNative.HKEY_LOCAL_MACHINE,
                new WString("SYSTEM\\CurrentControlSet\\Control\\PriorityControl"),
                new WString("Win32PrioritySeparation"), WindowsNative.RRF_RT_REG_DWORD, type, data, size);
        return rc == 0 ? data[0] : 0; // absent: the edition's defaults
    }

    /** The registry's Win32PrioritySeparation (0 when absent). */
    public int prioritySeparation() {
        return prioritySeparation;
    }

    /** The current timer resolution, nanoseconds. */
    public long timerResolutionNanos() {
        return timerResolutionNanos;
    }

    /** The background thread quantum estimate, nanoseconds. */
    public long quantumNanos() {
        return quantumNanos;
    }

    @Override
    public String platform() {
        return "windows";
    }

    @Override
    public boolean isOperational() {
        return true;
    }

    @Override
    public long currentThreadId() {
        return WindowsNative.Kernel32.GetCurrentThreadId() & 0xffffffffL;
    }

    @Override
    public ThreadHandle openThread(long tid) {
        return snapshot.handle(tid);
    }

    @Override
    public ThreadHandle openCurrentThread() {
        return snapshot.handle(currentThreadId());
    }

    /**
     * The calling thread's CPU time from {@code GetThreadTimes} (FILETIMEs: creation, exit, kernel, user); the switch
     * count is left unsupported here (it is only in the system-wide snapshot, too dear for every request) and comes
     * from the sampler's reads.
     */
    @Override
    public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
        long[][] t = times.get();
        if (t == null) {
            t = new long[][] {new long[1], new long[1], new long[1], new long[1]};
            times.set(t);
        }
        if (!WindowsNative.Kernel32.GetThreadTimes(WindowsNative.Kernel32.GetCurrentThread(), t[0], t[1], t[2], t[3])) {
            return false;
        }
        into.setCounters((t[2][0] + t[3][0]) * 100L, ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED,
                ThreadStats.UNSUPPORTED, ThreadStats.UNSUPPORTED);
        return true;
    }

    /**
     * {@code NtQuerySystemInformation(SystemProcessInformation, buffer, size, &returned)}: the fixture tests stand in
     * for the kernel here.
     */
    @FunctionalInterface
    interface NtQuery {
        int call(long buffer, int size, int[] returned);
    }

    /** Every process's and thread's information into the snapshot's buffer (called under its lock). */
    static final class SystemProcessQuery implements ThreadSnapshot.Query {
        private final int[] returned = new int[1];
        private final NtQuery nt;

        SystemProcessQuery(NtQuery nt) {
            this.nt = nt;
        }

        @Override
        public long fill(Memory buffer) {
            int status = nt.call(Pointer.nativeValue(buffer), (int) buffer.size(), returned);
            if (status == WindowsNative.STATUS_SUCCESS) {
                return returned[0];
            }
            return status == WindowsNative.STATUS_INFO_LENGTH_MISMATCH ? ThreadSnapshot.TOO_SMALL
                    : ThreadSnapshot.FAILED;
        }

        @Override
        public long grownSize(long size) {
            return Math.max(size * 2, returned[0] + (1 << 16)); // returned: the size the call asked for
        }
    }

    @Override
    public boolean readSystem(SystemStats into) {
        return false; // no PSI, load or cgroup equivalents are read on Windows yet
    }

    @Override
    public ThreadActuator actuator() {
        return ThreadActuator.NONE;
    }

    @Override
    public void close() {
    }
}
