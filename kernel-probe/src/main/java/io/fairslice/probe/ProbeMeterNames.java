package io.fairslice.probe;

/**
 * Every meter the kernel probe publishes, in one place so that dashboards and alerts can refer to them. Names are
 * Micrometer's dotted form; Prometheus turns {@code fairslice.probe.run.time} (base unit seconds, a counter) into
 * {@code fairslice_probe_run_time_seconds_total}.
 *
 * <p>Tags are bounded: {@link #TAG_APPLICATION} (on every meter) takes the context paths of the applications that run
 * the probe; {@link #TAG_CLASS} takes the configured request class names plus {@link #CLASS_NONE} (a worker thread
 * between requests); {@link #TAG_KIND} takes {@link #KIND_VOLUNTARY} or {@link #KIND_INVOLUNTARY}. Each application
 * runs its own probe, so the system meters (pressure, load, cgroup) appear once per application, with the same
 * values.
 * A value the platform cannot give is not published at all rather than published as an invented number.
 */
public final class ProbeMeterNames {

    private ProbeMeterNames() {
    }

    /**
     * Tag on every meter: the web application's servlet context path, {@code /} for the root context (the
     * middleware's {@code MeterNames.TAG_APPLICATION}).
     */
    public static final String TAG_APPLICATION = "application";
    /** Tag: the request class a worker thread was serving, or {@link #CLASS_NONE}. */
    public static final String TAG_CLASS = "class";
    /** Tag value for worker threads that are not serving any request. */
    public static final String CLASS_NONE = "none";
    /** Tag: kind of context switch. */
    public static final String TAG_KIND = "kind";
    /** {@link #TAG_KIND} value: the thread blocked or slept (gave the CPU away). */
    public static final String KIND_VOLUNTARY = "voluntary";
    /** {@link #TAG_KIND} value: the scheduler preempted the thread (its slice ended or a waker preempted it). */
    public static final String KIND_INVOLUNTARY = "involuntary";
    /** Tag on actuator meters: {@code nice} or {@code slice}. */
    public static final String TAG_ACTUATOR = "actuator";

    // ---- per request class, cumulative (use rate() in PromQL) ----

    /** Counter, seconds: CPU (run) time of worker threads while serving the class. */
    public static final String RUN_TIME = "fairslice.probe.run.time";
    /** Counter, seconds: time worker threads of the class spent runnable but waiting for a CPU (run-queue wait). */
    public static final String RUN_QUEUE_WAIT = "fairslice.probe.runqueue.wait";
    /** Counter: times the scheduler put a worker thread of the class on a CPU. */
    public static final String DISPATCHES = "fairslice.probe.dispatches";
    /** Counter, tag {@link #TAG_KIND}: context switches of worker threads of the class. */
    public static final String SWITCHES = "fairslice.probe.switches";

    // ---- per request class, over the last sampler interval ----

    /** Gauge, seconds: effective timeslice = run time / dispatches over the last interval. */
    public static final String EFFECTIVE_SLICE = "fairslice.probe.effective.slice";
    /** Gauge, seconds: run-queue wait per dispatch over the last interval. */
    public static final String RUN_QUEUE_WAIT_PER_DISPATCH = "fairslice.probe.runqueue.wait.per.dispatch";
    /** Gauge, seconds per second: run-queue wait accumulated per second of wall time over the last interval. */
    public static final String RUN_QUEUE_WAIT_RATE = "fairslice.probe.runqueue.wait.rate";
    /** Gauge, per second, tag {@link #TAG_KIND}: context switches per second over the last interval. */
    public static final String SWITCH_RATE = "fairslice.probe.switches.rate";

    // ---- per request (one enter..exit segment on a thread) ----

    /** Distribution summary, seconds: CPU time of one request (per segment, for async requests). */
    public static final String REQUEST_CPU = "fairslice.probe.request.cpu";
    /** Distribution summary, tag {@link #TAG_KIND}: context switches during one request. */
    public static final String REQUEST_SWITCHES = "fairslice.probe.request.switches";

    // ---- system ----

    /** Gauge, ratio 0..1: PSI "some" CPU pressure, 10 s average (share of time some task waited for a CPU). */
    public static final String CPU_PRESSURE = "fairslice.probe.cpu.pressure";
    /** Counter, seconds: PSI "some" CPU stall time (cumulative, exact; rate() gives the pressure). */
    public static final String CPU_PRESSURE_STALL = "fairslice.probe.cpu.pressure.stall";
    /** Gauge: 1-minute load average. */
    public static final String LOAD = "fairslice.probe.load";
    /** Gauge: runnable tasks in the system right now (procs_running). */
    public static final String RUNNABLE = "fairslice.probe.runnable";
    /** Counter: CFS bandwidth periods of this process's cgroup. */
    public static final String CGROUP_PERIODS = "fairslice.probe.cgroup.periods";
    /** Counter: periods in which this process's cgroup was throttled (ran out of CPU quota). */
    public static final String CGROUP_THROTTLED_PERIODS = "fairslice.probe.cgroup.throttled.periods";
    /** Counter, seconds: time this process's cgroup spent throttled. */
    public static final String CGROUP_THROTTLED_TIME = "fairslice.probe.cgroup.throttled.time";

    // ---- the probe itself ----

    /** Gauge, ratio: CPU the sampler thread used per second of wall time (kept under 0.01). */
    public static final String SAMPLER_COST = "fairslice.probe.sampler.cost";
    /** Gauge, seconds: the sampler's current interval (it lengthens to stay under 1 % of a CPU). */
    public static final String SAMPLER_INTERVAL = "fairslice.probe.sampler.interval";
    /** Gauge: worker threads the probe is tracking. */
    public static final String THREADS = "fairslice.probe.threads";
    /** Counter, tag {@link #TAG_ACTUATOR}: actuator calls that failed (the actuator is then disabled). */
    public static final String ACTUATOR_FAILURES = "fairslice.probe.actuator.failures";
}
