package io.fairslice.experiments.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Moves a running process to other CPUs with util-linux's {@code taskset}: the tests and benchmarks that start a
 * server on every core and then serve on one, and the study's harness, which keeps its own threads off the server's
 * core. (A process started under {@code taskset -c} needs none of this: its threads inherit the set.)
 */
public final class Taskset {

    private static final int PIN_ATTEMPTS = 20;

    private Taskset() {
    }

    /**
     * Moves every thread of process {@code pid} to {@code cpus} and checks that each is there. {@code taskset -a}
     * walks the process's threads one by one: it gives up at the first that ends meanwhile (a JIT compiler or GC
     * thread the JVM retires, an idle pool thread), leaving the rest where they were, and a thread started meanwhile
     * by one not yet moved keeps the old set. So it is repeated until every thread in /proc/PID/task is on
     * {@code cpus}, whatever taskset's exit status (it fails on such a process most of the time, having moved every
     * thread but the one that ended), and a process that has ended is not pinned (taskset -a exits 0 for it); where
     * there is no /proc, its exit status is all there is.
     */
    public static boolean pin(long pid, String cpus) {
        BitSet wanted = cpuList(cpus);
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        boolean proc = Files.isDirectory(Path.of("/proc/self/task")); // this system has /proc
        String lastOutput = "";
        for (int attempt = 1; attempt <= PIN_ATTEMPTS; attempt++) {
            try {
                Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
                        .redirectErrorStream(true).start();
                CompletableFuture<String> output = new CompletableFuture<>();
                // read on a thread of its own, not the common pool (supplyAsync's default): on JDK 25 that runs even
                // with one thread, and this read waited there behind any other task in it
                Thread reader = new Thread(() -> output.complete(read(p)), "taskset-output");
                reader.setDaemon(true);
                reader.start();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly(); // hung: its output ends with it
                    lastOutput = "(no answer in 10 s) " + output.join();
                    continue;
                }
                lastOutput = output.join();
                // a process that ended has no threads outside (and taskset -a says nothing for it, with exit status 0):
                // its task directory has gone
                if (proc ? threadsOutside(pid, wanted).isEmpty() && Files.isDirectory(tasks) : p.exitValue() == 0) {
                    return true;
                }
            } catch (IOException e) {
                lastOutput = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        System.err.printf("could not pin process %d to CPUs %s in %d attempts; taskset said: %s; threads elsewhere:"
                + " %s%n", pid, cpus, PIN_ATTEMPTS, lastOutput, threadsOutside(pid, wanted));
        return false;
    }

    /** The threads of {@code pid} not allowed exactly {@code wanted} (id to CPU list); none without /proc. */
    static Map<String, String> threadsOutside(long pid, BitSet wanted) {
        Map<String, String> outside = new TreeMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String cpus = ProcCpu.line(thread.resolve("status"), "Cpus_allowed_list:");
                if (cpus != null && !cpuList(cpus).equals(wanted)) { // null: the thread ended as it was read
                    outside.put(thread.getFileName().toString(), cpus);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // no /proc, or the process ended
        }
        return outside;
    }

    private static String read(Process p) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** A CPU list as taskset and /proc write it ("0-2,5") as a set. */
    public static BitSet cpuList(String list) {
        BitSet set = new BitSet();
        for (String part : list.trim().split(",")) {
            String[] range = part.split("-", 2);
            int from;
            int to;
            try {
                from = Integer.parseInt(range[0].trim());
                to = range.length == 2 ? Integer.parseInt(range[1].trim()) : from;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a CPU list (like 0-2,5): " + list, e);
            }
            // BitSet.set said only "fromIndex: 3 > toIndex: 2" for the range 3-1
            if (to < from) {
                throw new IllegalArgumentException("not a CPU list (like 0-2,5): " + list + " (the range '"
                        + part.trim() + "' ends before it starts)");
            }
            set.set(from, to + 1);
        }
        return set;
    }
}
