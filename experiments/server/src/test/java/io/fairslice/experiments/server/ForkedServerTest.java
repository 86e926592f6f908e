package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What OverheadCompare reads of a real forked study server: its CPU time and its JIT compiler threads' part of it;
 * and what a forked server leaves behind.
 */
class ForkedServerTest {

    /**
     * OverloadTest kills its servers (SIGKILL), which cannot delete their Tomcat base: each left a fairslice-tomcat-*
     * folder of 2 MB in /tmp. The folder the server was given as its java.io.tmpdir goes, the base with it.
     */
    @Test
    void shouldLeaveNoTemporaryFolderOnceKilled() throws Exception {
        ForkedServer server = ForkedServer.start(null, List.of("-XX:+UseSerialGC", "-Xmx256m"),
                List.of("--port", "0", "--policy", "none"));
        Path temporary = server.temporaryFolder();
        try (Stream<Path> bases = Files.list(temporary)) {
            assertThat(bases.map(p -> p.getFileName().toString())).as("in the running server's temporary folder")
                    .anyMatch(name -> name.startsWith("fairslice-tomcat-"));
        } finally {
            server.kill();
        }

        assertThat(temporary).as("the killed server's temporary folder").doesNotExist();
    }

    @Test
    void shouldReadTheCompilerThreadsCpuTimeAsPartOfTheServersCpuTime() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        try (ForkedServer server = ForkedServer.start(null, ServerOptions.JVM_OPTIONS,
                List.of("--port", "0", "--policy", "none"));
             ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            long cpu0 = server.cpuTicks();
            long jit0 = server.compilerTicks();
            load.clients("/light", 4);
            List<ClosedLoopLoad.Count> counts = load.measure(0, 3_000);
            long cpu = server.cpuTicks() - cpu0;
            long jit = server.compilerTicks() - jit0;

            assertThat(counts.get(0).ok()).as("light requests served").isPositive();
            // a JVM that has just started serving compiles its hot paths: its compiler threads were busy
            assertThat(jit).as("compiler ticks in 3 s of first load (server ticks %d)", cpu).isPositive();
            assertThat(jit).as("compiler ticks within the server's own").isLessThanOrEqualTo(cpu);
        }
    }

    /**
     * A server stopped while it starts (Ctrl-C during a large --document-size's writing) stops once started and leaves
     * no Tomcat base behind: its shutdown hook was registered only after the start, and the JVM exited without it.
     */
    @Test
    void shouldLeaveNoTomcatBaseWhenStoppedWhileStarting(@TempDir Path tmp) throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:+UseSerialGC", "-Xmx256m", "-Djava.io.tmpdir=" + tmp, "-cp",
                System.getProperty("java.class.path"), StudyServer.class.getName(), "--port", "0")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (StudyServerTest.tomcatFolders(tmp) == 0 && process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(StudyServerTest.tomcatFolders(tmp)).as("the server made its Tomcat base").isPositive();
            process.destroy(); // SIGTERM while it starts

            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped").isTrue();
            try (Stream<Path> left = Files.list(tmp)) {
                assertThat(left).as("left in its temporary folder").isEmpty();
            }
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * A benchmark (OverheadCompare, QuickCompare) ended by a SIGTERM to its own JVM, not its process group, left its
     * servers running: still listening, pinned to their CPU, their heap held. They stop with it now.
     */
    @Test
    void shouldStopTheServerWhenItsOwnerIsTerminated(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs a POSIX SIGTERM (Linux)");
        Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                Owner.class.getName()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long server = -1;
        try (BufferedReader said = new BufferedReader(new InputStreamReader(
                owner.getInputStream(), StandardCharsets.UTF_8))) {
            String line = said.readLine();
            assertThat(line).as("the owner's first line").startsWith("server ");
            server = Long.parseLong(line.substring("server ".length()));
            owner.destroy(); // SIGTERM to the owner alone

            assertThat(owner.waitFor(60, TimeUnit.SECONDS)).as("the owner ended").isTrue();
            assertThat(ProcessHandle.of(server).map(ProcessHandle::isAlive).orElse(false)).as("the server running")
                    .isFalse();
            try (Stream<Path> left = Files.list(tmp)) {
                assertThat(left).as("left in the owner's temporary folder").isEmpty();
            }
        } finally {
            owner.destroyForcibly();
            ProcessHandle.of(server).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** A benchmark's JVM in small: starts a server, says its pid, and waits to be ended. */
    static final class Owner {
        public static void main(String[] args) throws Exception {
            ForkedServer server = ForkedServer.start(null, List.of("-XX:+UseSerialGC", "-Xmx256m"),
                    List.of("--port", "0", "--policy", "none"));
            System.out.println("server " + server.pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
