package io.fairslice.experiments.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Small readers for Linux's /proc: the cores' times and sysctl values (a process's CPU time: ProcCpu). */
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

    /**
     * Writes a /proc/sys value. Truncating, as the shell's {@code >} does: /proc takes it, and a regular file standing
     * in for a /proc file in a test then reads as /proc would (without it, 8 over 100 read "8\n0").
     */
    static void write(Path file, String value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(ByteBuffer.wrap((value + "\n").getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /**
     * The cores a process may run on, in ascending order, from the {@code Cpus_allowed_list} line of its
     * /proc/PID/status text ("0-1", "2,5-7"): what taskset or a cpuset gave the harness, where it pins its children.
     */
    static java.util.List<Integer> allowedCores(String procStatus) throws IOException {
        for (String line : procStatus.split("\n")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                String list = line.substring("Cpus_allowed_list:".length());
                try {
                    return io.fairslice.experiments.server.Taskset.cpuList(list).stream().boxed().toList();
                } catch (IllegalArgumentException e) {
                    throw new IOException(e.getMessage(), e);
                }
            }
        }
        throw new IOException("no Cpus_allowed_list line");
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
