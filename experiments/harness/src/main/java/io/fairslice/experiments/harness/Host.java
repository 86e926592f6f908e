package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.ProcCpu;
import io.fairslice.experiments.server.Taskset;
import io.fairslice.experiments.server.TemporaryFolder;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The machine the study runs on: what it can do (pinning with taskset, SCHED_RR with chrt and a writable
 * quantum), the processes the harness started, and the realtime settings it changes: the SCHED_RR quantum, which is
 * always put back to 100 ms, and the realtime throttle, put back to what it was, when a realtime configuration or the
 * run ends, however it ends (normal end, exception, Ctrl-C: a shutdown hook; the launcher's trap is the second line
 * of defence for a killed JVM). Once it has begun to stop (the shutdown hook, or {@link #close}) it starts no process
 * and changes no setting: on SIGTERM the hook runs while the study's own thread goes on, which would otherwise start
 * the next configuration's server after the hook had stopped the last one, or set the next quantum after the hook
 * had put it back.
 */
final class Host implements AutoCloseable {

    static final Path RR_TIMESLICE = Path.of("/proc/sys/kernel/sched_rr_timeslice_ms");
    /** What the quantum is put back to: Linux's default, and what every other user of the machine expects. */
    static final int RR_TIMESLICE_RESTORE = 100;
    /**
     * Linux's realtime throttle: realtime threads may run this many microseconds per period (950000 of 1000000 by
     * default), then none of them runs until the period ends. On this project's kernel (6.18) that is a stop of about
     * 50 ms once a second whatever {@code sched_rt_period_us} says (a 10 ms period did not shorten it); -1 lifts it.
     * From Linux 6.12 the fair server still gives other tasks on the core their 50 ms a second when they want it, so
     * lifting the throttle no longer lets a realtime thread starve the core's kernel threads.
     */
    static final Path RT_RUNTIME = Path.of("/proc/sys/kernel/sched_rt_runtime_us");
    private static final Pattern KERNEL_VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");
    /**
     * The cores this JVM could use when it started. Read once, before any Host pins the JVM to the load core:
     * after that, availableProcessors() answers 1, and a second Host in the same JVM (a resumed run, a test) would
     * take the machine for a single-core one and refuse to resume on it.
     */
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /**
     * The cores this JVM could run on when it started, read once as {@link #CORES} is: the server and Gatling are
     * pinned to the first two, so a study started under {@code taskset -c 2,3} keeps to cores 2 and 3.
     */
    private static final List<Integer> ALLOWED_CORES = allowedCores();

    final int cores;
    final boolean pinning;
    final String rrUnavailableReason;
    final String batchUnavailableReason;
    final long ticksPerSecond;
    /** Whether a process's CPU time holds the interrupts handled while it ran: how a window's core time splits. */
    final ProcFs.InterruptAccounting interruptAccounting;
    /** The SCHED_RR quantum and the realtime throttle: {@link #RR_TIMESLICE} and {@link #RT_RUNTIME} but in tests. */
    private final Path rrTimeslice;
    private final Path rtRuntime;
    private final List<Process> children = new CopyOnWriteArrayList<>();
    /**
     * The servers' temporary folder ({@link #serverTemporaryFolderOption}), their Tomcat bases in it: a server deletes
     * its own as it stops on SIGTERM, but one killed (the grace period passed, or the run stopped: the hook kills every
     * child) left its base, 2 MB with the catalogue, in /tmp. Deleted once the children have ended.
     */
    private final TemporaryFolder serverTemporaryFolder = TemporaryFolder.create("fairslice-study-");
    /** What runs on SIGTERM and Ctrl-C: package-private so that a test can run it without ending its JVM. */
    final Thread shutdownHook = new Thread(this::cleanUp, "fairslice-harness-cleanup");
    /** Set when the harness begins to stop; from then on nothing starts and no setting changes (guarded by this). */
    private boolean stopping;
    private boolean rrTouched;
    /** The throttle's value before the harness lifted it; null while it is not lifted. */
    private String rtRuntimeBefore;

    Host() {
        this(RR_TIMESLICE, RT_RUNTIME);
    }

    /** A host whose realtime settings are these files (a test's stand-ins for /proc's). */
    Host(Path rrTimeslice, Path rtRuntime) {
        this.rrTimeslice = rrTimeslice;
        this.rtRuntime = rtRuntime;
        cores = CORES;
        pinning = cores >= 2 && ALLOWED_CORES.size() >= 2 && onPath("taskset");
        rrUnavailableReason = probeRealtime(rrTimeslice);
        batchUnavailableReason = probeLaunch(Scheduler.BATCH.launchPrefix());
        ticksPerSecond = ProcCpu.TICKS_PER_SECOND;
        interruptAccounting = ProcFs.interruptAccounting();
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        if (pinning) {
            pinSelf();
        }
    }

    /** Keeps the harness's own threads (the /proc sampler, process control) off the server's core. */
    private void pinSelf() {
        // not fatal if it fails (Taskset says why): the harness is mostly asleep; the CPU share check would show it
        Taskset.pin(ProcessHandle.current().pid(), Integer.toString(loadCore()));
    }

    /**
     * The core the server runs on and the one Gatling runs on: the second and the first of the cores the harness may
     * use (on a 2-core machine 1 and 0, as GUIDE section 2 did).
     */
    int serverCore() {
        return ALLOWED_CORES.get(pinning ? 1 : 0);
    }

    int loadCore() {
        return ALLOWED_CORES.get(0);
    }

    /** {@link #ALLOWED_CORES}: from /proc/self/status, or 0..CORES-1 where that cannot be read (not Linux). */
    private static List<Integer> allowedCores() {
        try {
            return ProcFs.allowedCores(ProcFs.read(Path.of("/proc/self/status")));
        } catch (IOException e) {
            return IntStream.range(0, CORES).boxed().toList();
        }
    }

    /** Why the server and Gatling are not pinned to cores of their own, or null when they are. */
    String pinningUnavailableReason() {
        if (pinning) {
            return null;
        }
        if (cores < 2 || ALLOWED_CORES.size() < 2) {
            return "this JVM may use " + (cores < 2 ? cores + " core" : "the cores " + ALLOWED_CORES) + " only";
        }
        return "no taskset on the PATH";
    }

    /** Command prefix that pins to a core (empty when pinning is not possible). */
    List<String> pin(int core) {
        return pinning ? List.of("taskset", "-c", Integer.toString(core)) : List.of();
    }

    boolean realtimeAvailable() {
        return rrUnavailableReason == null;
    }

    /** Why a server cannot be started under {@code scheduler} here, or null when it can. */
    String unavailableReason(Scheduler scheduler) {
        if (scheduler.realtime()) {
            return rrUnavailableReason == null ? null : "SCHED_RR not available: " + rrUnavailableReason;
        }
        if (scheduler == Scheduler.BATCH) {
            return batchUnavailableReason == null ? null : "SCHED_BATCH not available: " + batchUnavailableReason;
        }
        return null;
    }

    /** Sets the SCHED_RR quantum for the next server. */
    synchronized void setRrTimeslice(int millis) throws IOException {
        refuseWhenStopping("set " + rrTimeslice + " to " + millis);
        rrTouched = true;
        ProcFs.write(rrTimeslice, Integer.toString(millis));
        int actual = readRrTimeslice();
        // Linux rounds to its tick (e.g. 5 -> 8 ms with a 250 Hz tick); anything else means the write did not take
        if (Math.abs(actual - millis) > 4) {
            throw new IOException("wrote " + millis + " to " + rrTimeslice + " but it reads " + actual);
        }
    }

    /**
     * Lifts the realtime throttle for the next realtime server (see {@link #RT_RUNTIME}); {@link #restoreRealtime}
     * puts it back.
     *
     * @throws UnsupportedOperationException on a kernel older than 6.12, where the lifted throttle would let the
     *                                       server starve the core's kernel threads
     */
    synchronized void liftRealtimeThrottle() throws IOException {
        String why = realtimeThrottleLiftRefusal(System.getProperty("os.name"), System.getProperty("os.version"));
        if (why != null) {
            throw new UnsupportedOperationException(why);
        }
        refuseWhenStopping("lift the realtime throttle (" + rtRuntime + ")");
        String before = ProcFs.read(rtRuntime).trim();
        if (before.equals("-1")) {
            return; // already lifted by the machine's owner: leave it as found
        }
        rtRuntimeBefore = before;
        ProcFs.write(rtRuntime, "-1");
        String now = ProcFs.read(rtRuntime).trim();
        if (!now.equals("-1")) {
            throw new IOException("wrote -1 to " + rtRuntime + " but it reads " + now);
        }
    }

    /** Why the realtime throttle must stay on this OS (os.name, and os.version such as 6.18.44-...), or null. */
    static String realtimeThrottleLiftRefusal(String osName, String osVersion) {
        Matcher m = KERNEL_VERSION.matcher(osVersion == null ? "" : osVersion);
        if ("Linux".equals(osName) && m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major > 6 || (major == 6 && minor >= 12)) {
                return null;
            }
        }
        return "realtimeThrottle=off needs Linux 6.12 or later (its fair server keeps the core's other tasks running "
                + "while the throttle is lifted); this is " + osName + " '" + osVersion
                + "': set realtimeThrottle=kernel";
    }

    /** Puts the SCHED_RR quantum back to 100 ms and the realtime throttle back to what it was, where touched. */
    synchronized void restoreRealtime() {
        restoreRrTimeslice();
        String before = rtRuntimeBefore;
        if (before == null) {
            return;
        }
        try {
            ProcFs.write(rtRuntime, before);
            rtRuntimeBefore = null;
        } catch (IOException e) {
            System.err.println("fairslice study: could not restore " + rtRuntime + " to " + before + ": "
                    + e.getMessage() + " -- do it by hand: echo " + before + " > " + rtRuntime);
        }
    }

    int readRrTimeslice() throws IOException {
        return Integer.parseInt(ProcFs.read(rrTimeslice).trim());
    }

    /** Whether the harness has begun to stop (SIGTERM, Ctrl-C or the run's end): what fails now is the stop's doing. */
    synchronized boolean stopping() {
        return stopping;
    }

    private void refuseWhenStopping(String what) throws InterruptedIOException {
        if (stopping) {
            throw new InterruptedIOException("the study is stopping: did not " + what);
        }
    }

    /** The JVM option that gives a server the run's temporary folder for its own, which goes with the run. */
    String serverTemporaryFolderOption() {
        return serverTemporaryFolder.javaOption();
    }

    /** Starts a child process, output to a log file, and remembers it so that it is stopped with the run. */
    Process start(List<String> command, Path log) throws IOException {
        return start(command, log, null);
    }

    /**
     * {@link #start(List, Path)} with the standard error in a file of its own ({@code errors}), or with the output
     * when it is null.
     */
    Process start(List<String> command, Path log, Path errors) throws IOException {
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(log.toFile());
        if (errors == null) {
            builder.redirectErrorStream(true);
        } else {
            builder.redirectError(errors.toFile());
        }
        // under the lock that cleanUp takes: a process is either started before the stop, and stopped by it, or not
        synchronized (this) {
            refuseWhenStopping("start " + String.join(" ", command));
            Process p = builder.start();
            children.add(p);
            return p;
        }
    }

    /** Stops a child: SIGTERM, then SIGKILL after a grace period. */
    void stop(Process p, long graceMillis) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            if (!p.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        children.remove(p);
    }

    private void cleanUp() {
        synchronized (this) {
            stopping = true;
            for (Process p : children) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            restoreRealtime();
        }
        // SIGKILL takes effect at once, but a JVM takes a moment to go: the harness ends only when its children have
        for (Process p : children) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        serverTemporaryFolder.close();
    }

    private void restoreRrTimeslice() {
        if (!rrTouched) {
            return;
        }
        try {
            ProcFs.write(rrTimeslice, Integer.toString(RR_TIMESLICE_RESTORE));
        } catch (IOException e) {
            System.err.println("fairslice study: could not restore " + rrTimeslice + " to " + RR_TIMESLICE_RESTORE
                    + ": " + e.getMessage() + " -- do it by hand: echo 100 > " + rrTimeslice);
        }
    }

    @Override
    public void close() {
        cleanUp();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs cleanUp anyway
        }
    }

    /**
     * Samples how steadily the host runs the server's core ({@link CoreSpeed}) in a JVM pinned to it, its output in
     * {@code log}; the harness's own threads stay on the load core.
     */
    CoreSpeed.Samples coreSpeed(int samples, Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(pin(serverCore()));
        String classes;
        try {
            classes = Path.of(CoreSpeed.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot tell where the harness's classes are: " + e, e);
        }
        command.addAll(List.of(StudyServerProcess.javaExecutable(), "-Xmx64m", "-XX:+UseSerialGC", "-cp", classes,
                CoreSpeed.class.getName(), Integer.toString(samples), "100"));
        return sample(command, log);
    }

    /**
     * Runs a core speed sampler's command and reads its samples from its standard output, in {@code log}; its standard
     * error goes to {@code <log>.stderr} (removed when empty). Merged into the output, a JVM's notice there ("Picked up
     * JAVA_TOOL_OPTIONS: ...") was read as a sample, refused, and the core's speed not sampled.
     */
    CoreSpeed.Samples sample(List<String> command, Path log) throws IOException, InterruptedException {
        Path errors = log.resolveSibling(log.getFileName() + ".stderr");
        Process p = start(command, log, errors);
        try {
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                throw new IOException("the core speed sampler did not end within 2 minutes; see " + log);
            }
        } finally {
            stop(p, 0);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        String stderr = Files.readString(errors, StandardCharsets.UTF_8);
        if (stderr.isBlank()) {
            Files.deleteIfExists(errors);
        }
        if (p.exitValue() != 0) {
            throw new IOException("the core speed sampler exited with " + p.exitValue() + ": "
                    + (output.strip() + "\n" + stderr.strip()).strip());
        }
        return CoreSpeed.Samples.parse(output);
    }

    /** Facts about the machine, for the run's JSON and the report. */
    Map<String, String> facts() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("cpu", cpuModel());
        m.put("cores", Integer.toString(cores));
        m.put("memory", memory());
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("pinning", pinning ? "server on core " + serverCore() + ", Gatling on core " + loadCore()
                : "none (" + pinningUnavailableReason() + ")");
        m.put("sched_rr", realtimeAvailable() ? "available (chrt -r 1, quantum via " + rrTimeslice + ")"
                : "not available: " + rrUnavailableReason);
        m.put("sched_batch", batchUnavailableReason == null ? "available (chrt -b 0)"
                : "not available: " + batchUnavailableReason);
        try {
            m.put("sched_rr_timeslice_ms_at_start", Integer.toString(readRrTimeslice()));
        } catch (IOException | RuntimeException e) {
            m.put("sched_rr_timeslice_ms_at_start", "unreadable");
        }
        try {
            m.put("sched_rt_runtime_us_at_start", ProcFs.read(rtRuntime).trim());
        } catch (IOException | RuntimeException e) {
            m.put("sched_rt_runtime_us_at_start", "unreadable");
        }
        m.put("clock_ticks_per_second", Long.toString(ticksPerSecond));
        m.put("interrupt_accounting", interruptAccounting.description);
        return m;
    }

    private static String cpuModel() {
        try {
            for (String line : ProcFs.read(Path.of("/proc/cpuinfo")).split("\n")) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch");
    }

    private static String memory() {
        try {
            for (String line : ProcFs.read(Path.of("/proc/meminfo")).split("\n")) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    return (kb / 1024 / 1024) + " GiB";
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return "unknown";
    }

    private static String probeRealtime(Path rrTimeslice) {
        if (!Files.isWritable(rrTimeslice)) {
            return rrTimeslice + " is not writable (needs root on Linux)";
        }
        return probeLaunch(Scheduler.RR_100MS.launchPrefix());
    }

    /** Null when {@code true} runs under the scheduler's launch prefix ({@code chrt ...}), else why not. */
    private static String probeLaunch(List<String> prefix) {
        if (!onPath("chrt")) {
            return "chrt is not installed (util-linux)";
        }
        List<String> command = new ArrayList<>(prefix);
        command.add("true");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return String.join(" ", prefix) + " was refused: " + out;
            }
        } catch (IOException e) {
            return "chrt could not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while probing chrt";
        }
        return null;
    }

    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(":")) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
