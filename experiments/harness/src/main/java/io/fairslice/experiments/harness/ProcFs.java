package io.fairslice.experiments.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Small readers for Linux's /proc, the harness's only view of CPU time. */
final class ProcFs {

    private ProcFs() {
    }

    /**
     * Reads a /proc file whole. Files.readString returns only the first byte of some /proc/sys files on JDK 17
     * and 25 (GUIDE section 4), so this reads through a FileChannel until end of file.
     */
    static String read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            while (channel.read(buffer) > 0) {
                if (!buffer.hasRemaining()) {
                    ByteBuffer bigger = ByteBuffer.allocate(buffer.capacity() * 2);
                    buffer.flip();
                    bigger.put(buffer);
                    buffer = bigger;
                }
            }
            buffer.flip();
            return StandardCharsets.US_ASCII.decode(buffer).toString();
        }
    }

    /** Writes a /proc/sys value. */
    static void write(Path file, String value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap((value + "\n").getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /** A process's user + system CPU time in clock ticks (fields 14 and 15 of /proc/PID/stat). */
    static long processTicks(long pid) throws IOException {
        return ticks(read(Path.of("/proc", Long.toString(pid), "stat")));
    }

    /** utime + stime of a /proc stat line. */
    private static long ticks(String stat) {
        // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12]
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * The CPU time of a process's JIT compiler threads in clock ticks: HotSpot's "C1 CompilerThread" and
     * "C2 CompilerThread", whose names /proc cuts to 15 characters ("C2 CompilerThre"). Threads that end while they are
     * read (HotSpot stops idle compiler threads) are left out.
     */
    static long compilerTicks(long pid) throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = read(task.resolve("stat"));
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

    /**
     * One core's times from /proc/stat, in clock ticks. {@code task} includes {@code steal}: time the hypervisor gave
     * the virtual CPU to someone else takes the core from the server just as another process would.
     */
    record CoreTimes(long task, long irq, long idle, long steal) {
        long total() {
            return task + irq + idle;
        }
    }

    /** The {@code cpuN} line of /proc/stat: task time (user, nice, system, steal), interrupts, idle (+ iowait). */
    static CoreTimes coreTimes(int core) throws IOException {
        return coreTimes(read(Path.of("/proc/stat")), core);
    }

    /** {@link #coreTimes(int)} from the text of /proc/stat. */
    static CoreTimes coreTimes(String procStat, int core) throws IOException {
        String prefix = "cpu" + core + " ";
        for (String line : procStat.split("\n")) {
            if (line.startsWith(prefix)) {
                String[] f = line.substring(prefix.length()).trim().split("\\s+");
                long user = Long.parseLong(f[0]);
                long nice = Long.parseLong(f[1]);
                long system = Long.parseLong(f[2]);
                long idle = Long.parseLong(f[3]);
                long iowait = Long.parseLong(f[4]);
                long irq = Long.parseLong(f[5]);
                long softirq = Long.parseLong(f[6]);
                long steal = f.length > 7 ? Long.parseLong(f[7]) : 0;
                return new CoreTimes(user + nice + system + steal, irq + softirq, idle + iowait, steal);
            }
        }
        throw new IOException("/proc/stat has no line for cpu" + core);
    }
}
