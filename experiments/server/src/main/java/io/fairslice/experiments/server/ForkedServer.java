package io.fairslice.experiments.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The study server in its own JVM (this test's class path), as {@code ./fairslice serve} runs it: its GC and threads
 * do not share a process with the load, and it can be pinned to one CPU with taskset while the load runs on another.
 */
final class ForkedServer implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)/");

    private final Process process;
    private final int port;
    /** The server's java.io.tmpdir, where its Tomcat base goes: deleted once it has ended, killed or stopped. */
    private final TemporaryFolder temporary;
    private final ProcCpu.CompilerThreads compilerThreads;
    /** Every line the server has printed (stdout and stderr), its stop's included: the reader adds them. */
    private final List<String> output;
    /**
     * Stops the server if this JVM ends before {@link #close} or {@link #kill} (a SIGTERM to the benchmark alone, a
     * test JVM ended at its timeout): the server outlived it, still listening and pinned to its CPU (under SCHED_RR
     * with {@code --rr}), its heap held, and disturbed whatever ran on that CPU next.
     */
    private final Thread stopAtExit = new Thread(this::stop, "forked-server-stop");

    private ForkedServer(Process process, int port, TemporaryFolder temporary, List<String> output) {
        this.process = process;
        this.port = port;
        this.temporary = temporary;
        this.output = output;
        this.compilerThreads = new ProcCpu.CompilerThreads(process.pid());
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /** Whether {@code taskset} can pin processes here (Linux with util-linux and at least two CPUs). */
    static boolean canPin() {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return false;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "taskset"))) {
                return true;
            }
        }
        return false;
    }

    /** The CPUs this JVM may run on, as taskset takes them ("0-1"; /proc/self/status), or null where unknown. */
    static String cpusOfThisJvm() {
        return ProcCpu.line(Path.of("/proc/self/status"), "Cpus_allowed_list:");
    }

    /** The memory available for new processes (bytes; /proc/meminfo), 0 where unknown. */
    static long memoryAvailable() {
        String kb = ProcCpu.line(Path.of("/proc/meminfo"), "MemAvailable:");
        try {
            return kb == null ? 0 : Long.parseLong(kb.replace("kB", "").trim()) * 1024;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Pins every thread of this JVM (the load) to {@code cpus}, e.g. "0"; returns whether it worked. */
    static boolean pinThisJvm(String cpus) {
        return Taskset.pin(ProcessHandle.current().pid(), cpus);
    }

    /**
     * Pins every thread the server has to {@code cpus}, e.g. "1"; the threads it starts later inherit it. Returns
     * whether it worked. For a server started unpinned, so that its start-up can use every core.
     */
    boolean pinTo(String cpus) {
        return Taskset.pin(pid(), cpus);
    }

    /** Starts the server with {@code args}, pinned to {@code cpu} when not null; returns once it listens. */
    static ForkedServer start(String cpu, List<String> jvmOptions, List<String> args) throws IOException {
        return start(List.of(), cpu, jvmOptions, args);
    }

    /** As {@link #start(String, List, List)}, the command run under {@code prefix} (e.g. chrt -r 1). */
    static ForkedServer start(List<String> prefix, String cpu, List<String> jvmOptions, List<String> args)
            throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        if (cpu != null) {
            cmd.addAll(List.of("taskset", "-c", cpu));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // a server killed with SIGKILL (kill(), or close() after its grace period) leaves its Tomcat base behind
        TemporaryFolder temporary = TemporaryFolder.create("fairslice-server-");
        cmd.add(temporary.javaOption());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), StudyServer.class.getName()));
        cmd.addAll(args);
        Process process;
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException | RuntimeException e) {
            temporary.close();
            throw e;
        }
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            port.completeExceptionally(new IOException("the server exited before listening: " + lines));
        }, "forked-server-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return new ForkedServer(process, port.get(60, TimeUnit.SECONDS), temporary, lines);
        } catch (Exception e) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            temporary.close();
            throw new IOException("the study server did not start: " + lines, e);
        }
    }

    int port() {
        return port;
    }

    /** The server's temporary folder (its java.io.tmpdir), which holds its Tomcat base while it runs. */
    Path temporaryFolder() {
        return temporary.path();
    }

    /** What the server has printed so far (stdout and stderr). */
    List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    long pid() {
        return process.pid();
    }

    /** USER_HZ: the unit of {@link #cpuTicks} and {@link #compilerTicks}. */
    static final double CLOCK_TICKS = ProcCpu.TICKS_PER_SECOND;

    /** The server's CPU time so far in clock ticks ({@link ProcCpu#ticks}); -1 where there is no /proc. */
    long cpuTicks() {
        try {
            return ProcCpu.ticks(pid());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Its JIT compiler threads' part of it ({@link ProcCpu.CompilerThreads}); -1 where there is no /proc. */
    long compilerTicks() {
        try {
            return compilerThreads.ticks();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Ends the server at once (SIGKILL), without Tomcat's graceful stop, which waits up to 5 s for the requests in
     * flight: for a test that measures another server on the same core next and has no use for the stop. The folder
     * it was given goes with it, the Tomcat base it could not delete included.
     */
    void kill() throws InterruptedException {
        forgetStopAtExit();
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } finally {
            temporary.close();
        }
    }

    /**
     * Stops the server: SIGTERM, whose shutdown hook drains and stops Tomcat, then SIGKILL after
     * {@link StudyServer#STOP_GRACE}. Interrupted, it kills the server at once and keeps the interrupt for the caller:
     * no server outlives the test or benchmark that started it.
     */
    @Override
    public void close() {
        forgetStopAtExit();
        stop();
    }

    /** {@link #close}'s work, also {@link #stopAtExit}'s. */
    private void stop() {
        // by its handle: Process.destroy() also closes the server's output, and what it said as it stopped was lost
        process.toHandle().destroy();
        try {
            if (!process.waitFor(StudyServer.STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            temporary.close();
        }
    }

    /** Stopped by its owner, the server needs no stop at the JVM's exit. */
    private void forgetStopAtExit() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // the JVM is ending: the hook stops it too, which is harmless twice
        }
    }
}
