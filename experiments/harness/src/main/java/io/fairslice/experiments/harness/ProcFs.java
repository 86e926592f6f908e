package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.Taskset;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Small readers for Linux's /proc: the cores' times and sysctl values (a process's CPU time: ProcCpu); and how the
 * kernel accounts interrupts, from its configuration.
 */
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
    static List<Integer> allowedCores(String procStatus) throws IOException {
        for (String line : procStatus.split("\n")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                String list = line.substring("Cpus_allowed_list:".length());
                try {
                    return Taskset.cpuList(list).stream().boxed().toList();
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

    /**
     * How the kernel accounts its time handling interrupts, which {@link CpuSampler} needs to split a core's time
     * between the server, other processes and interrupts without counting any twice.
     */
    enum InterruptAccounting {
        /**
         * Tick-based accounting without {@code CONFIG_IRQ_TIME_ACCOUNTING}: a tick that finds the core in an interrupt
         * or a softirq counts as /proc/stat's {@code irq} or {@code softirq} and as system time of the task it
         * interrupted, so a process's utime + stime hold the interrupts handled while its threads ran.
         */
        IN_TASK_TIME("interrupts in the interrupted task's CPU time too (CONFIG_IRQ_TIME_ACCOUNTING not set)"),
        /** {@code CONFIG_IRQ_TIME_ACCOUNTING}: interrupt time is measured apart and kept out of the tasks' time. */
        APART("interrupts kept out of the tasks' CPU time (CONFIG_IRQ_TIME_ACCOUNTING=y)"),
        /** No kernel configuration could be read: taken as {@link #APART}, what the harness took before. */
        UNKNOWN("unknown (no kernel configuration readable): taken as kept out of the tasks' CPU time");

        /** What the run's machine facts say. */
        final String description;

        InterruptAccounting(String description) {
            this.description = description;
        }
    }

    /** Where the running kernel's configuration may be: /proc/config.gz, then /boot/config-RELEASE. */
    static InterruptAccounting interruptAccounting() {
        return interruptAccounting(List.of(Path.of("/proc/config.gz"),
                Path.of("/boot/config-" + System.getProperty("os.version"))));
    }

    /** From the first of these kernel configuration files that can be read (gzip when named *.gz). */
    static InterruptAccounting interruptAccounting(List<Path> configs) {
        for (Path config : configs) {
            String text;
            try (InputStream in = Files.newInputStream(config)) {
                text = new String(config.toString().endsWith(".gz") ? new GZIPInputStream(in).readAllBytes()
                        : in.readAllBytes(), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                continue; // not there (no CONFIG_IKCONFIG_PROC, no /boot in a container), or not readable
            }
            return text.lines().anyMatch("CONFIG_IRQ_TIME_ACCOUNTING=y"::equals) ? InterruptAccounting.APART
                    : InterruptAccounting.IN_TASK_TIME;
        }
        return InterruptAccounting.UNKNOWN;
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
