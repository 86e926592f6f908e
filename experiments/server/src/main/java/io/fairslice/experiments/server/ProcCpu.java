package io.fairslice.experiments.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time from Linux's /proc, in clock ticks (USER_HZ, 100 a second): all of it, and the part its JIT
 * compiler threads used. The benchmarks (OverheadCompare) and the study's harness read the server through this.
 */
public final class ProcCpu {

    /** Clock ticks a second: the unit of /proc/PID/stat's CPU times (100 on every Linux this runs on). */
    public static final double TICKS_PER_SECOND = 100;

    private ProcCpu() {
    }

    /** utime + stime of the process so far, from /proc/PID/stat. */
    public static long ticks(long pid) throws IOException {
        return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    /**
     * utime + stime so far of the process's JIT compiler threads: HotSpot's "C1 CompilerThread" and "C2 CompilerThread",
     * whose names /proc cuts to 15 characters ("C2 CompilerThre"). Threads that end while they are read (HotSpot stops
     * idle compiler threads) are left out.
     */
    public static long compilerTicks(long pid) throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException ended) {
                    continue;
                }
                if (stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).contains("CompilerThre")) {
                    sum += ticks(stat);
                }
            }
        }
        return sum;
    }

    /** utime + stime of a stat line: fields 14 and 15 of proc(5), counted after the name, which may hold spaces. */
    static long ticks(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12]
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
