package io.fairslice.probe.linux;

import com.sun.jna.Native;
import io.fairslice.probe.KernelProbe;
import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadActuator;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ProcText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Linux probe: per-thread {@code schedstat} and {@code sched} under {@code /proc}, {@code getrusage(RUSAGE_THREAD)}
 * for the calling thread, {@code sched_getattr}/{@code sched_setattr} and {@code setpriority} for the actuators, and
 * PSI, load, {@code procs_running} and cgroup {@code cpu.stat} for the system. {@link #create} runs self-checks and
 * throws {@link ProbeUnavailableException} naming the first that failed.
 */
public final class LinuxKernelProbe implements KernelProbe {

    private static final byte[] SOME = LinuxThreadHandle.ascii("some ");
    private static final byte[] AVG10 = LinuxThreadHandle.ascii("avg10=");
    private static final byte[] TOTAL = LinuxThreadHandle.ascii("total=");
    private static final byte[] NR_PERIODS = LinuxThreadHandle.ascii("nr_periods");
    private static final byte[] NR_THROTTLED = LinuxThreadHandle.ascii("nr_throttled");
    private static final byte[] THROTTLED_USEC = LinuxThreadHandle.ascii("throttled_usec");
    private static final byte[] THROTTLED_TIME = LinuxThreadHandle.ascii("throttled_time");

    private final String procRoot;
    private final int pid;
    private final LinuxActuator actuator;
    private final CgroupCpuStat cgroup;
    final ThreadLocal<long[]> tidCache = new ThreadLocal<>(); // package-private: the test sees it filled
    private final NativeBuffer systemBuf = new NativeBuffer(4096);

    private LinuxKernelProbe(String procRoot, int pid, LinuxActuator actuator, CgroupCpuStat cgroup) {
        this.procRoot = procRoot;
        this.pid = pid;
        this.actuator = actuator;
        this.cgroup = cgroup;
    }

    /** The probe over the real {@code /proc}. */
    public static LinuxKernelProbe create() throws ProbeUnavailableException {
        return create(Path.of("/proc"));
    }

    /**
     * The probe over {@code procRoot} (tests point it at a fake tree). Self-checks: libc loads through JNA, the
     * calling thread's id is found, its {@code schedstat} and {@code sched} parse.
     */
    public static LinuxKernelProbe create(Path procRoot) throws ProbeUnavailableException {
        int longBytes;
        try {
            longBytes = Native.LONG_SIZE;
        } catch (LinkageError e) {
            throw new ProbeUnavailableException("JNA could not be loaded: " + e);
        }
        return create(procRoot, longBytes);
    }

    /**
     * As {@link #create(Path)}, on a JVM whose C {@code long} has {@code longBytes} bytes (JNA's
     * {@code Native.LONG_SIZE}; a test gives 4). The libc bindings are LP64's: {@code pread} takes three Java longs for
     * its pointer, size and offset, and {@code struct rusage} is read as 8-byte fields. On a 32-bit JVM the arguments
     * land where the C function does not read them (on i386 the count is the address's upper half, 0: every reading
     * came back empty and the self-check blamed the kernel's schedstats), so it is refused by name, as the Windows
     * and FreeBSD probes refuse theirs.
     */
    static LinuxKernelProbe create(Path procRoot, int longBytes) throws ProbeUnavailableException {
        if (longBytes != 8) {
            throw new ProbeUnavailableException("only 64-bit Linux is supported: the probe's libc bindings are"
                    + " LP64's, and this JVM's C long has " + longBytes + " bytes (" + System.getProperty("os.arch")
                    + ")");
        }
        int pid;
        try {
            pid = LinuxLibC.getpid();
        } catch (LinkageError | RuntimeException e) {
            throw new ProbeUnavailableException("JNA could not bind libc (getpid): " + e);
        }
        LinuxActuator actuator = new LinuxActuator();
        LinuxKernelProbe probe = new LinuxKernelProbe(procRoot.toString(), pid, actuator,
                CgroupCpuStat.locate(procRoot));
        actuator.probe = probe;
        long tid = probe.currentThreadId();
        if (tid <= 0) {
            throw new ProbeUnavailableException("the calling thread's OS id is unknown (gettid and "
                    + procRoot + "/thread-self both failed)");
        }
        ThreadHandle own;
        try {
            own = probe.open(pid, tid, Thread.currentThread());
        } catch (IOException e) {
            throw new ProbeUnavailableException("cannot open this thread's scheduler statistics: " + e.getMessage()
                    + missingFile(procRoot.resolve(pid + "/task/" + tid)));
        }
        try {
            ThreadStats stats = new ThreadStats();
            if (!own.read(stats, true) || stats.dispatches() <= 0 || !ThreadStats.isSupported(
                    stats.voluntarySwitches())) {
                throw new ProbeUnavailableException("cannot parse " + procRoot + "/" + pid + "/task/" + tid
                        + "/schedstat and sched (kernel without schedstats?): " + stats);
            }
        } finally {
            own.close();
        }
        return probe;
    }

    /** What a kernel that lacks one of the thread's two files was built without, or nothing. */
    private static String missingFile(Path thread) {
        if (!Files.isDirectory(thread)) {
            return "";
        }
        if (!Files.exists(thread.resolve("schedstat"))) {
            return " (no schedstat file: a kernel built without CONFIG_SCHED_INFO, which CONFIG_SCHEDSTATS or"
                    + " CONFIG_TASK_DELAY_ACCT selects)";
        }
        if (!Files.exists(thread.resolve("sched"))) {
            return " (no sched file: a kernel built without CONFIG_SCHED_DEBUG, where the probe reads switch counts,"
                    + " policy and nice)";
        }
        return "";
    }

    @Override
    public String platform() {
        return "linux";
    }

    @Override
    public boolean isOperational() {
        return true;
    }

    /** This process's id. */
    public int pid() {
        return pid;
    }

    @Override
    public long currentThreadId() {
        long[] cached = tidCache.get();
        if (cached == null) {
            cached = new long[] {lookUpCurrentTid()};
            tidCache.set(cached);
        }
        return cached[0];
    }

    private long lookUpCurrentTid() {
        long tid = -1;
        try {
            tid = LinuxLibC.gettid();
        } catch (LinkageError | RuntimeException e) {
            tid = -1;
        }
        if (tid > 0) {
            return tid;
        }
        // No known syscall number on this architecture: /proc/thread-self links to <pid>/task/<tid>.
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of(procRoot, "thread-self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Override
    public ThreadHandle openThread(long tid) {
        try {
            return open(pid, tid, null);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public ThreadHandle openCurrentThread() {
        try {
            return open(pid, currentThreadId(), Thread.currentThread());
        } catch (IOException e) {
            return null;
        }
    }

    /** Opens thread {@code tid} of process {@code pid}: the operator tool reads other JVMs this way. */
    public ThreadHandle openThreadOf(int pid, long tid) throws IOException {
        return open(pid, tid, null);
    }

    private LinuxThreadHandle open(int pid, long tid, Thread owner) throws IOException {
        String dir = procRoot + "/" + pid + "/task/" + tid + "/";
        ProcFile schedstat = ProcFile.open(dir + "schedstat");
        ProcFile sched;
        try {
            sched = ProcFile.open(dir + "sched");
        } catch (IOException e) {
            schedstat.close();
            throw e;
        }
        return new LinuxThreadHandle(this, tid, owner, schedstat, sched);
    }

    @Override
    public boolean readCurrentThread(ThreadHandle handle, ThreadStats into) {
        if (handle instanceof LinuxThreadHandle) {
            LinuxThreadHandle h = (LinuxThreadHandle) handle;
            return h.ownedByCurrentThread() ? h.readOwn(into) : h.read(into, false);
        }
        return false;
    }

    @Override
    public synchronized boolean readSystem(SystemStats into) {
        ByteBuffer b = systemBuf.bytes();
        int n = ProcFile.readOnce(procRoot + "/pressure/cpu", systemBuf);
        if (n > 0) {
            long avg10 = ProcText.namedOnLine(b, n, SOME, AVG10, 100);
            long total = ProcText.namedOnLine(b, n, SOME, TOTAL, 1);
            into.setPressure(avg10 == ProcText.MISSING ? Double.NaN : avg10 / 10_000.0, unsupportedIfMissing(total));
        }
        double load = Double.NaN;
        long running = ThreadStats.UNSUPPORTED;
        n = ProcFile.readOnce(procRoot + "/loadavg", systemBuf);
        if (n > 0) {
            long l = ProcText.parseDecimal(b, 0, n, 100);
            load = l == ProcText.MISSING ? Double.NaN : l / 100.0;
            // "0.50 0.40 0.30 7/345 12345": runnable tasks before the slash, the kernel's nr_running, as /proc/stat's
            // procs_running (which comes after the interrupt counts: past this buffer on a server with many CPUs)
            running = unsupportedIfMissing(ProcText.field(b, n, 3));
        }
        into.setLoad(load, running);
        if (cgroup != null) {
            n = ProcFile.readOnce(cgroup.path, systemBuf);
            if (n > 0) {
                long throttled = cgroup.v2 ? ProcText.keyed(b, n, THROTTLED_USEC)
                        : ProcText.keyed(b, n, THROTTLED_TIME);
                if (throttled != ProcText.MISSING && !cgroup.v2) {
                    throttled /= 1000; // v1 reports nanoseconds
                }
                into.setCgroup(unsupportedIfMissing(ProcText.keyed(b, n, NR_PERIODS)),
                        unsupportedIfMissing(ProcText.keyed(b, n, NR_THROTTLED)), unsupportedIfMissing(throttled));
            }
        }
        return true;
    }

    /** The SCHED_RR quantum in nanoseconds, from {@code /proc/sys/kernel/sched_rr_timeslice_ms}. */
    public synchronized long rrQuantumNanos() {
        // Files.readAllBytes returns one byte of /proc/sys files on JDK 17 and 25: read with pread instead.
        int n = ProcFile.readOnce(procRoot + "/sys/kernel/sched_rr_timeslice_ms", systemBuf);
        long ms = n > 0 ? ProcText.field(systemBuf.bytes(), n, 0) : ProcText.MISSING;
        return ms == ProcText.MISSING ? ThreadStats.UNSUPPORTED : ms * 1_000_000L;
    }

    long niceFromAttr(long tid) {
        return actuator.readNice(tid);
    }

    /** Where the cgroup throttling counters come from, or null if none were found. */
    public String cgroupCpuStatPath() {
        return cgroup == null ? null : cgroup.path;
    }

    @Override
    public ThreadActuator actuator() {
        return actuator;
    }

    @Override
    public void close() {
        // handles own their files; nothing shared to release
    }

    private static long unsupportedIfMissing(long v) {
        return v == ProcText.MISSING ? ThreadStats.UNSUPPORTED : v;
    }
}
