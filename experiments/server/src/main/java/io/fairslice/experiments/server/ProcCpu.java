package io.fairslice.experiments.server;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process's CPU time from Linux's /proc, in clock ticks (USER_HZ): all of it, and the part its JIT
 * compiler threads used. The benchmarks (OverheadCompare) and the study's harness read the server through this.
 */
public final class ProcCpu {

    /**
     * Clock ticks a second, the unit of /proc's CPU times, as {@code getconf CLK_TCK} gives it (100 without getconf):
     * every reader of /proc divides by this one. The study's CPU sampler asked getconf while its meter sampler, the
     * benchmarks and the forked servers took 100, so on a host with another USER_HZ they would disagree.
     */
    public static final long TICKS_PER_SECOND = clockTicks();

    /**
     * The compiler threads' share of a process's CPU below which its JIT counts as settled: OverheadCompare warms its
     * servers up, and the study runs each point's load, until a step stays below it.
     */
    public static final double JIT_SETTLED = 0.01;

    private ProcCpu() {
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor(5, TimeUnit.SECONDS);
            return Long.parseLong(out);
        } catch (IOException | NumberFormatException e) {
            return 100; // USER_HZ is 100 on every Linux architecture the study targets
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    /** utime + stime of the process so far, from /proc/PID/stat. */
    public static long ticks(long pid) throws IOException {
        return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    /**
     * A process's JIT compiler threads: HotSpot's "C1 CompilerThread" and "C2 CompilerThread", whose names /proc cuts
     * to 15 characters ("C2 CompilerThre"). A thread found to be no compiler thread is not read again while it is
     * listed: a study server has about 190-220 threads, and reading all of their stat files took 1.2-1.4 ms of the
     * reader's CPU, against 0.1 ms this way (2026-11-26, same count), five times a second in the study's sampler on
     * the load generator's core. A compiler thread's name is checked at each read, with its stat file. Not
     * thread-safe.
     */
    public static final class CompilerThreads {

        /** {@link #known}'s value for a thread that is no compiler thread. */
        private static final long NOT_A_COMPILER = -1;

        private final Path tasks;
        /** Task id to its ticks as last read for a compiler thread, else NOT_A_COMPILER, for the tasks listed last. */
        private Map<String, Long> known = new HashMap<>();
        /** Ticks of the compiler threads that have ended, as last read. */
        private long ended;

        public CompilerThreads(long pid) {
            this(Path.of("/proc"), pid);
        }

        /** The threads of process {@code pid} under a /proc tree at {@code proc} (a copy of one, for tests). */
        CompilerThreads(Path proc, long pid) {
            this.tasks = proc.resolve(Long.toString(pid)).resolve("task");
        }

        /**
         * utime + stime so far of the process's compiler threads, those that ended included: HotSpot stops idle
         * compiler threads, and a sum of the live ones only would fall when one ends, so that a window in which the
         * compiler went quiet would read less compiling than it had, down to below zero. A thread that ended counts
         * with its time as last read here, its CPU after that read (within the sampler's 200 ms) lost. A read that
         * fails changes nothing: the next one counts from the last that succeeded.
         */
        public long ticks() throws IOException {
            long sum = 0;
            long endedNow = 0;
            Map<String, Long> listed = new HashMap<>();
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
                for (Path task : dir) {
                    String tid = task.getFileName().toString();
                    Long before = known.get(tid);
                    if (before != null && before == NOT_A_COMPILER) {
                        listed.put(tid, NOT_A_COMPILER);
                        continue;
                    }
                    String stat;
                    try {
                        stat = Files.readString(task.resolve("stat"));
                    } catch (IOException unread) {
                        if (before != null && Files.isDirectory(task)) { // still there: counted as last read
                            listed.put(tid, before);
                            sum += before;
                        }
                        continue; // else ended while listed: counted with its last read below, if it was one
                    }
                    long now = ProcCpu.ticks(stat);
                    // a compiler thread's id can pass to a new thread between two reads: then the old one ended
                    boolean compiler = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .contains("CompilerThre");
                    if (before != null && (!compiler || now < before)) {
                        endedNow += before;
                    }
                    if (!compiler) {
                        listed.put(tid, NOT_A_COMPILER);
                        continue;
                    }
                    listed.put(tid, now);
                    sum += now;
                }
            } catch (DirectoryIteratorException e) {
                throw e.getCause(); // the process ended while listed
            }
            for (Map.Entry<String, Long> e : known.entrySet()) {
                if (e.getValue() != NOT_A_COMPILER && !listed.containsKey(e.getKey())) {
                    endedNow += e.getValue();
                }
            }
            ended += endedNow;
            known = listed; // forget threads that ended, so that a reused task id is classified again
            return ended + sum;
        }
    }

    /**
     * The rest of the first line of a /proc file ({@code status}, {@code meminfo}) that starts with {@code key}
     * ("Cpus_allowed_list:"), trimmed; null if there is none, or no such file (not Linux, a thread that ended).
     */
    static String line(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(key.length()).trim();
                }
            }
        } catch (IOException e) {
            // not Linux, or the process or thread ended
        }
        return null;
    }

    /** utime + stime of a stat line: fields 14 and 15 of proc(5), counted after the name, which may hold spaces. */
    static long ticks(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12]
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
