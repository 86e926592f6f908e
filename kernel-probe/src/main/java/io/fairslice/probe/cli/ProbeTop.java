package io.fairslice.probe.cli;

import io.fairslice.probe.ProbeUnavailableException;
import io.fairslice.probe.SchedPolicy;
import io.fairslice.probe.SystemStats;
import io.fairslice.probe.ThreadHandle;
import io.fairslice.probe.ThreadStats;
import io.fairslice.probe.internal.Durations;
import io.fairslice.probe.linux.LinuxKernelProbe;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./fairslice probe --pid N [--interval 1s] [--once | --count K] [--top N]}: a top-like table of another
 * process's threads (Linux): policy, nice, configured slice, effective slice (run time per dispatch), CPU share,
 * run-queue wait per second and per dispatch, voluntary and involuntary switches per second, over each interval.
 * Live mode redraws with plain ANSI codes on a terminal; {@code --once} and {@code --count} print plain tables for
 * scripts. Exit codes: 0 done (every table asked for, or a live view whose process ended), 1 the process went away
 * before the tables asked for, none of its threads can be read, or the output was closed or failed, 2 bad arguments.
 */
public final class ProbeTop {

    static final String USAGE = "usage: ./fairslice probe --pid N [--interval 1s] [--once | --count K] [--top N]\n"
            + "  --pid N        the process whose threads to show (another JVM, for instance)\n"
            + "  --interval D   time between tables, default 1s, from 100ms to 1h (run-queue wait is credited late:\n"
            + "                 shorter intervals are noisy)\n"
            + "  --once         print one table after one interval and exit\n"
            + "  --count K      print K tables and exit\n"
            + "  --top N        show the N threads with most CPU (default: all)\n"
            + "  --help         this text\n";

    /** Shorter intervals are mostly noise: the kernel credits run-queue wait when a thread next runs. */
    static final long MIN_INTERVAL_NANOS = 100_000_000L;
    /** Longer ones look like a hang (a table a day is a job for a recorder, not a live view). */
    static final long MAX_INTERVAL_NANOS = 3_600_000_000_000L;

    private ProbeTop() {
    }

    /**
     * The {@code hidepid} option {@code procRoot} is mounted with ({@code hidepid=2}, {@code hidepid=invisible}), or
     * null when it hides nothing or the mount table cannot be read: under it another user's process is either
     * missing from {@code /proc} or has no readable {@code task} folder, as a process that is not there.
     */
    static String hidepid(Path procRoot) {
        List<String> mounts;
        try {
            mounts = Files.readAllLines(procRoot.resolve("mounts"), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        for (String line : mounts) {
            String[] f = line.split(" "); // device, mount point, type, options, dump, pass
            if (f.length < 4 || !f[2].equals("proc") || !f[1].equals(procRoot.toString())) {
                continue;
            }
            for (String option : f[3].split(",")) {
                if (option.startsWith("hidepid=") && !option.equals("hidepid=0") && !option.equals("hidepid=off")) {
                    return option;
                }
            }
        }
        return null;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, Path.of("/proc"));
    }

    /** Runs the tool over {@code procRoot} (tests point it at a fake tree). */
    static int run(String[] args, PrintStream out, PrintStream err, Path procRoot) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("fairslice probe: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        if (o.help) {
            out.print(USAGE);
            return 0;
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            err.println("fairslice probe: the live thread table reads /proc and runs on Linux only (this is "
                    + System.getProperty("os.name") + ")");
            return 1;
        }
        Path procDir = procRoot.resolve(String.valueOf(o.pid));
        if (!Files.isDirectory(procDir.resolve("task"))) {
            String hidepid = hidepid(procRoot);
            String hidden = hidepid == null ? "" : ": " + procRoot + " is mounted with " + hidepid + ", which hides"
                    + " other users' processes; run it as root, as the process's user or in the mount's gid= group";
            if (Files.isDirectory(procDir)) { // hidepid=1 (noaccess) shows the folder and refuses what is in it
                err.println("fairslice probe: cannot read process " + o.pid + " (" + procDir.resolve("task")
                        + " refuses this user)" + (hidden.isEmpty() ? "; run it as root or as the process's user"
                        : hidden));
            } else {
                err.println("fairslice probe: no process with pid " + o.pid + " (nothing at " + procDir + ")"
                        + (hidden.isEmpty() ? "" : ", or one hidden from this user" + hidden));
            }
            return 1;
        }
        long process = threadGroup(procDir);
        if (process > 0 && process != o.pid) { // /proc/<tid> of a thread is there too, listing its process's threads
            err.println("fairslice probe: " + o.pid + " is a thread of process " + process + ", not a process: give"
                    + " --pid " + process + " (the TID column of its table names threads)");
            return 2;
        }
        if (ended(procDir)) {
            err.println("fairslice probe: process " + o.pid + " has exited (a zombie its parent has not reaped yet)");
            return 1;
        }
        LinuxKernelProbe probe;
        try {
            probe = LinuxKernelProbe.create(procRoot);
        } catch (ProbeUnavailableException e) {
            err.println("fairslice probe: the kernel probe cannot run here: " + e.getMessage());
            return 1;
        }
        boolean live = o.count < 0 && isTerminal(System.console(), Console.class);
        Top top = new Top(probe, o.pid, procDir);
        try {
            top.sample();
            if (top.handles.isEmpty() && top.unreadable != null) { // not one table would have a row
                err.println("fairslice probe: cannot read the scheduler statistics of any thread of process " + o.pid
                        + " (" + top.unreadable + "); run it as root or as the process's user, on a /proc mounted "
                        + "without hidepid");
                return 1;
            }
            top.sayUnreadable(err);
            int tables = 0;
            while (o.count < 0 || tables < o.count) {
                Thread.sleep(o.intervalNanos / 1_000_000L, (int) (o.intervalNanos % 1_000_000L));
                if (ended(procDir)) {
                    if (o.count >= 0) { // a script asked for that many tables and did not get them
                        err.println("fairslice probe: process " + o.pid + " has exited after " + tables + " of "
                                + o.count + " tables");
                        return 1;
                    }
                    err.println("fairslice probe: process " + o.pid + " has exited");
                    return tables > 0 ? 0 : 1; // a live view ends with its process
                }
                List<Row> rows = top.sample();
                top.sayUnreadable(err);
                if (live) {
                    out.print("\033[H\033[2J");
                } else if (tables > 0) {
                    out.println();
                }
                top.print(rows, o, out);
                tables++;
                // the JVM ignores SIGPIPE and a PrintStream keeps its write errors: without this a reader that ended
                // (| head) or a full disk got every table asked for into nothing, and a live view ran on as long as
                // its process (the pipeline waiting for it)
                if (out.checkError()) {
                    err.println("fairslice probe: the output was closed or a write failed at table " + tables
                            + ", so no more are printed");
                    return 1;
                }
            }
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } finally {
            top.close();
        }
    }

    /**
     * Whether {@code console} ({@code System.console()}, null when there is none) writes to a terminal, so that the
     * live view may redraw with control codes. On JDK 22 to 24 {@code System.console()} is not null when the output is
     * redirected (its JLine console), and the codes went into the file; {@code isTerminal()} (JDK 22+) says, looked up
     * on {@code type} ({@code Console}) by reflection, as this module is built for Java 17. Without that method (JDK 17
     * to 21) there is a console only on a terminal. Tests give a stand-in type.
     */
    static boolean isTerminal(Object console, Class<?> type) {
        if (console == null) {
            return false;
        }
        Method isTerminal;
        try {
            isTerminal = type.getMethod("isTerminal");
        } catch (NoSuchMethodException e) {
            return true;
        }
        try {
            return Boolean.TRUE.equals(isTerminal.invoke(console));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false; // plain tables: no control codes into what may be a file
        }
    }

    /**
     * Whether the process of {@code procDir} has exited: its folder is gone, or it is a zombie its parent has not
     * reaped yet (state Z and no thread but its leader), whose folder stays until then. Such a process was shown as one
     * alive, a row of 0 % CPU in every table: a live view of it never ended, and {@code --count} succeeded. A process
     * whose leader thread alone has ended is a zombie too, but with other threads: it lives.
     */
    static boolean ended(Path procDir) {
        String state = "";
        long threads = -1;
        try {
            for (String line : Files.readAllLines(procDir.resolve("status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("State:")) {
                    state = line.substring(6).trim();
                } else if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.substring(8).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return !Files.isDirectory(procDir); // unreadable (it went meanwhile, or a status the kernel lacks)
        }
        return state.startsWith("Z") && threads == 1;
    }

    /**
     * The {@code Tgid} of {@code procDir}'s {@code status}: the process a thread id belongs to (its own id for a
     * process), or -1 when it cannot be read. Read as ISO-8859-1: the Name line is the thread's name as bytes, cut to
     * 15 of them, so a Java name with a character of several bytes there is not valid UTF-8.
     */
    static long threadGroup(Path procDir) {
        try {
            for (String line : Files.readAllLines(procDir.resolve("status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Tgid:")) {
                    return Long.parseLong(line.substring(5).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: the checks after this one say what is wrong, if anything
        }
        return -1;
    }

    static final class Options {
        long pid = -1;
        long intervalNanos = 1_000_000_000L;
        int count = -1;
        int top = Integer.MAX_VALUE;
        boolean help;

        static Options parse(String[] args) {
            Options o = new Options();
            Map<String, String> given = new HashMap<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--pid":
                        o.pid = positive(a, once(given, a, value(args, ++i, a)));
                        break;
                    case "--interval":
                        o.intervalNanos = Durations.parseNanos("--interval", once(given, a, value(args, ++i, a)),
                                "from 100ms to 1h");
                        if (o.intervalNanos < MIN_INTERVAL_NANOS || o.intervalNanos > MAX_INTERVAL_NANOS) {
                            throw new IllegalArgumentException("--interval must be from 100ms to 1h, got " + args[i]);
                        }
                        break;
                    case "--once":
                        given.put(a, a);
                        o.count = 1;
                        break;
                    case "--count":
                        o.count = positiveInt(a, once(given, a, value(args, ++i, a)));
                        break;
                    case "--top":
                        o.top = positiveInt(a, once(given, a, value(args, ++i, a)));
                        break;
                    case "--help":
                    case "-h":
                        o.help = true;
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (given.containsKey("--once") && given.containsKey("--count")) { // not the last one of them silently
                throw new IllegalArgumentException("--once and --count are alternatives (one table, or K): give one,"
                        + " got --once and --count " + given.get("--count"));
            }
            if (o.pid < 0 && !o.help) {
                throw new IllegalArgumentException("--pid is required");
            }
            return o;
        }

        /**
         * {@code value}, the first of {@code option}'s: a second one is refused. The last one was taken without a
         * word: {@code --pid 1234 --pid 5678} showed 5678.
         */
        private static String once(Map<String, String> given, String option, String value) {
            String before = given.putIfAbsent(option, value);
            if (before != null) {
                throw new IllegalArgumentException(option + " given twice, '" + before + "' and '" + value + "'");
            }
            return value;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }

        private static long positive(String option, String v) {
            try {
                long n = Long.parseLong(v);
                if (n > 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + " must be a positive integer, got '" + v + "'");
        }

        /** A table count or row count: an int, so a larger value is refused rather than wrapped (2^32 read 0). */
        private static int positiveInt(String option, String v) {
            long n = positive(option, v);
            if (n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(option + " must be a positive integer up to " + Integer.MAX_VALUE
                        + ", got '" + v + "'");
            }
            return (int) n;
        }
    }

    /** One thread's figures over the last interval. */
    static final class Row {
        long tid;
        String name;
        ThreadStats now;
        double cpuShare;
        double effectiveSliceMs = Double.NaN;
        double waitPerSecondMs;
        double waitPerDispatchMs = Double.NaN;
        double voluntaryPerSecond;
        double involuntaryPerSecond;
    }

    static final class Top {
        private final LinuxKernelProbe probe;
        private final int pid;
        private final Path procDir;
        final Map<Long, ThreadHandle> handles = new HashMap<>();
        /** Why the last thread that could not be opened could not, or null. */
        String unreadable;
        /** The threads the process had at the last sample, and how many of them could not be opened then. */
        int threads;
        int unreadableThreads;
        private boolean unreadableSaid;
        private final Map<Long, ThreadStats> last = new HashMap<>();
        final Map<Long, String> names = new HashMap<>();
        private final SystemStats system = new SystemStats();
        private long lastAt;

        Top(LinuxKernelProbe probe, long pid, Path procDir) {
            this.probe = probe;
            this.pid = (int) pid;
            this.procDir = procDir;
        }

        List<Row> sample() {
            long at = System.nanoTime();
            double seconds = lastAt == 0 ? 0 : (at - lastAt) / 1e9;
            Set<Long> present = new HashSet<>();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(procDir.resolve("task"))) {
                for (Path p : tasks) {
                    present.add(Long.parseLong(p.getFileName().toString()));
                }
            } catch (IOException | RuntimeException e) {
                // the process is going away: an empty table, then the caller notices
            }
            handles.keySet().removeIf(tid -> {
                if (!present.contains(tid)) {
                    handles.get(tid).close();
                    last.remove(tid);
                    names.remove(tid);
                    return true;
                }
                return false;
            });
            List<Row> rows = new ArrayList<>();
            threads = present.size();
            unreadableThreads = 0;
            for (long tid : present) {
                ThreadHandle h = handles.get(tid);
                if (h == null) {
                    try {
                        h = probe.openThreadOf(pid, tid);
                    } catch (IOException e) {
                        if (!Files.isDirectory(procDir.resolve("task").resolve(Long.toString(tid)))) {
                            threads--; // it ended since the listing (a pool's churn): gone, not unreadable
                            continue;
                        }
                        unreadable = e.getMessage();
                        unreadableThreads++;
                        continue;
                    }
                    handles.put(tid, h);
                }
                // read at every table: a thread seen just after it was created may not have its name yet (a JVM
                // thread is "java" until it runs), and threads may rename themselves
                names.put(tid, comm(tid));
                ThreadStats now = new ThreadStats();
                if (!h.read(now, true)) {
                    // its thread ended and a new one took its id within the interval (it is listed again): these
                    // files are the ended thread's and answer ESRCH for good; forgotten, the next table opens the new
                    // one's
                    h.close();
                    handles.remove(tid);
                    last.remove(tid);
                    names.remove(tid);
                    continue;
                }
                ThreadStats before = last.put(tid, now);
                if (before == null || seconds <= 0) {
                    continue;
                }
                Row r = new Row();
                r.tid = tid;
                r.name = names.get(tid);
                r.now = now;
                long run = now.cpuTimeNanos() - before.cpuTimeNanos();
                long wait = now.runQueueWaitNanos() - before.runQueueWaitNanos();
                long disp = now.dispatches() - before.dispatches();
                r.cpuShare = run / 1e9 / seconds;
                r.waitPerSecondMs = wait / 1e6 / seconds;
                if (disp > 0) {
                    r.effectiveSliceMs = run / 1e6 / disp;
                    r.waitPerDispatchMs = wait / 1e6 / disp;
                }
                r.voluntaryPerSecond = (now.voluntarySwitches() - before.voluntarySwitches()) / seconds;
                r.involuntaryPerSecond = (now.involuntarySwitches() - before.involuntarySwitches()) / seconds;
                rows.add(r);
            }
            probe.readSystem(system);
            lastAt = at;
            rows.sort(Comparator.comparingDouble((Row r) -> -r.cpuShare).thenComparingLong(r -> r.tid));
            return rows;
        }

        /**
         * Says once, on {@code err}, that threads of the process could not be opened (another user's threads among its
         * own, a thread gone between the listing and the open) and are left out of the tables: they were left out
         * without a word, and the header counted the rows as the process's threads.
         */
        void sayUnreadable(PrintStream err) {
            if (unreadableThreads > 0 && !unreadableSaid) {
                unreadableSaid = true;
                err.println("fairslice probe: " + unreadableThreads + " of the " + threads + " threads of process "
                        + pid + " cannot be read (" + unreadable + "), so they are left out of the tables; the header"
                        + " counts them while they last");
            }
        }

        void print(List<Row> rows, Options o, PrintStream out) {
            double cpu = rows.stream().mapToDouble(r -> r.cpuShare).sum();
            String left = unreadableThreads == 0 ? "" : ", " + unreadableThreads + " unreadable (left out)";
            out.printf(Locale.ROOT, "fairslice probe  pid %d (%s)  %d threads%s  interval %s  process CPU %.0f%%  "
                    + "load %s  cpu pressure %s  rr quantum %s%n", pid, comm(-1), threads, left,
                    Durations.format(o.intervalNanos), cpu * 100, fmt(system.load1(), 2),
                    Double.isNaN(system.cpuPressureSomeAvg10()) ? "-"
                            : fmt(system.cpuPressureSomeAvg10() * 100, 1) + "%",
                    ms(probe.rrQuantumNanos()));
            out.printf(Locale.ROOT, "%8s %-16s %-6s %4s %9s %9s %6s %10s %10s %8s %8s%n", "TID", "NAME", "POLICY",
                    "NICE", "SLICE", "EFF.SLICE", "CPU%", "RQWAIT/s", "RQWAIT/dsp", "VOL/s", "INVOL/s");
            int shown = 0;
            for (Row r : rows) {
                if (shown++ >= o.top) {
                    break;
                }
                out.printf(Locale.ROOT, "%8d %-16s %-6s %4s %9s %9s %6.1f %10s %10s %8.0f %8.0f%n", r.tid,
                        r.name, policy(r.now.policy()), ThreadStats.isSupported(r.now.nice()) ? r.now.nice() : "-",
                        ms(r.now.sliceNanos()), msValue(r.effectiveSliceMs), r.cpuShare * 100,
                        msValue(r.waitPerSecondMs), msValue(r.waitPerDispatchMs), r.voluntaryPerSecond,
                        r.involuntaryPerSecond);
            }
            out.println("SLICE: configured slice (EEVDF se.slice, or the RR quantum); EFF.SLICE: run time per dispatch;"
                    + " RQWAIT: time runnable but waiting for a CPU, ms per second and per dispatch.");
        }

        private String comm(long tid) {
            Path p = tid < 0 ? procDir.resolve("comm") : procDir.resolve("task/" + tid + "/comm");
            try {
                return new String(Files.readAllBytes(p), StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                return "?";
            }
        }

        void close() {
            handles.values().forEach(ThreadHandle::close);
        }
    }

    private static String policy(SchedPolicy p) {
        return p == SchedPolicy.UNKNOWN ? "?" : p.name();
    }

    private static String ms(long nanos) {
        return ThreadStats.isSupported(nanos) ? fmt(nanos / 1e6, 2) + "ms" : "-";
    }

    private static String msValue(double ms) {
        return Double.isNaN(ms) ? "-" : fmt(ms, 2) + "ms";
    }

    private static String fmt(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
