package io.fairslice.probe.linux;

import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.ProcText;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One thread's {@code /proc/<pid>/task/<tid>/schedstat} and {@code sched}, kept open. Reads are synchronized on the
 * handle (one buffer per handle; the only contention is the sampler meeting the thread itself, once per interval).
 */
final class LinuxThreadHandle implements ThreadHandle {

    private static final ThreadMXBean OWN_CPU = ManagementFactory.getThreadMXBean();

    static {
        OWN_CPU.getCurrentThreadCpuTime(); // its first call links native code: not on a request's reading
    }

    static final byte[] NR_VOLUNTARY = ascii("nr_voluntary_switches");
    static final byte[] NR_INVOLUNTARY = ascii("nr_involuntary_switches");
    static final byte[] SE_SLICE = ascii("se.slice");
    static final byte[] POLICY = ascii("policy");
    static final byte[] PRIO = ascii("prio");

    private final LinuxKernelProbe probe;
    private final long tid;
    private final Thread owner;
    private final ProcFile schedstat;
    private final ProcFile sched;
    private final NativeBuffer buf = new NativeBuffer(4096);
    /** {@code struct rusage}, used only by the owner thread. */
    final long[] rusage = new long[LinuxLibC.RUSAGE_LONGS];

    LinuxThreadHandle(LinuxKernelProbe probe, long tid, Thread owner, ProcFile schedstat, ProcFile sched) {
        this.probe = probe;
        this.tid = tid;
        this.owner = owner;
        this.schedstat = schedstat;
        this.sched = sched;
    }

    @Override
    public long tid() {
        return tid;
    }

    boolean ownedByCurrentThread() {
        return owner == Thread.currentThread();
    }

    @Override
    public synchronized boolean read(ThreadStats into, boolean scheduling) {
        if (!readSchedstat(into)) {
            return false;
        }
        int n = sched.read(buf);
        if (n <= 0) {
            return false;
        }
        ByteBuffer b = buf.bytes();
        into.setSwitches(orUnsupported(ProcText.keyedBelowHeader(b, n, NR_VOLUNTARY)),
                orUnsupported(ProcText.keyedBelowHeader(b, n, NR_INVOLUNTARY)));
        if (scheduling) {
            parseScheduling(b, n, into);
        }
        return true;
    }

    /**
     * The owner's cheap path: schedstat plus {@code getrusage(RUSAGE_THREAD)} for the switch counts. The kernel adds
     * a running thread's CPU time to what schedstat shows only at a tick or a switch; reading the thread's own CPU
     * clock first brings it up to date (without it, 25-29 of 30 readings after 0.2 ms of work showed none of it:
     * docs/measurements/review-20261127).
     */
    synchronized boolean readOwn(ThreadStats into) {
        OWN_CPU.getCurrentThreadCpuTime(); // clock_gettime(thread CPU clock): updates the running thread's runtime
        if (!readSchedstat(into)) {
            return false;
        }
        try {
            LinuxLibC.getrusage(LinuxLibC.RUSAGE_THREAD, rusage);
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
        into.setSwitches(rusage[LinuxLibC.RUSAGE_NVCSW], rusage[LinuxLibC.RUSAGE_NIVCSW]);
        return true;
    }

    private boolean readSchedstat(ThreadStats into) {
        int n = schedstat.read(buf);
        if (n <= 0) {
            return false;
        }
        ByteBuffer b = buf.bytes();
        long run = ProcText.field(b, n, 0);
        long wait = ProcText.field(b, n, 1);
        long slices = ProcText.field(b, n, 2);
        if (run == ProcText.MISSING || wait == ProcText.MISSING || slices == ProcText.MISSING) {
            return false;
        }
        into.setCounters(run, wait, slices, into.voluntarySwitches(), into.involuntarySwitches());
        return true;
    }

    private void parseScheduling(ByteBuffer b, int n, ThreadStats into) {
        long policyNumber = ProcText.keyedBelowHeader(b, n, POLICY);
        SchedPolicy policy = policyNumber == ProcText.MISSING ? SchedPolicy.UNKNOWN : SchedPolicy.ofLinux(policyNumber);
        long prio = ProcText.keyedBelowHeader(b, n, PRIO);
        long nice = ThreadStats.UNSUPPORTED;
        long slice = ThreadStats.UNSUPPORTED;
        switch (policy) {
            case OTHER:
            case BATCH:
            case IDLE:
            case EXT:
                // prio = 120 + nice for fair policies (kernel MAX_RT_PRIO + NICE_WIDTH / 2)
                nice = prio == ProcText.MISSING ? ThreadStats.UNSUPPORTED : prio - 120;
                slice = orUnsupported(ProcText.keyedBelowHeader(b, n, SE_SLICE));
                break;
            case RR:
                slice = probe.rrQuantumNanos();
                nice = probe.niceFromAttr(tid);
                break;
            default:
                nice = probe.niceFromAttr(tid);
                break;
        }
        into.setScheduling(policy, nice, slice);
    }

    private static long orUnsupported(long v) {
        return v == ProcText.MISSING ? ThreadStats.UNSUPPORTED : v;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public synchronized void close() {
        schedstat.close();
        sched.close();
    }

    @Override
    public String toString() {
        return "LinuxThreadHandle{tid=" + tid + ", " + schedstat.path() + '}';
    }
}
