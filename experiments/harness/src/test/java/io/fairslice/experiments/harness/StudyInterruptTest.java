package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * `./fairslice study` stopped by SIGTERM (a service manager, `kill`; Ctrl-C takes the same path): the real entry point,
 * StudyMain, in a JVM of its own with a two-configuration run of one short point each, stopped while the second
 * configuration's server and Gatling run. Nothing the run started may survive it, and the results folder is that of
 * an interrupted run (docs/study.md, "Interrupted runs"): the first configuration kept, the second not recorded, as
 * failed or otherwise; nothing is left in the temporary folder (the killed server's Tomcat base was, 2 MB at the
 * study's document size). No rr-* configuration: those change the whole machine's SCHED_RR quantum (HostShutdownTest
 * checks that the hook puts it back).
 */
class StudyInterruptTest {

    private static final Pattern LISTENING = Pattern.compile("listening on http://([^/:\\s]+):(\\d+)/");

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void shouldStopTheServerAndGatlingAndKeepOnlyTheFinishedConfigurationOnSigterm() throws Exception {
        // on every JVM the run starts, so that a survivor is found by its command line even after it was orphaned
        String marker = "-Dstudy.interrupt.test=" + UUID.randomUUID();
        Path config = Files.writeString(dir.resolve("tiny.properties"), """
                configurations = none@default, share@default
                heavyUsers = 0
                lightUsers = 2
                warmUp = 1s
                measure = 3s
                jitWarmUp = 0s
                jitSettle = 0s
                drainTimeout = 1s
                retries = 0
                documentSize = 64KB
                serverJvmOptions = -XX:+UseSerialGC -Xms128m -Xmx256m %1$s
                gatlingJvmOptions = -Xmx256m %1$s
                """.formatted(marker));
        Path out = dir.resolve("run");
        Path log = dir.resolve("study.log");
        Path temporary = Files.createDirectory(dir.resolve("tmp")); // the study's java.io.tmpdir
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process study = new ProcessBuilder(StudyServerProcess.javaExecutable(), "-Xmx256m",
                "-Djava.io.tmpdir=" + temporary, "-cp", classpath, StudyMain.class.getName(), "--config",
                config.toString(), "--out", out.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Map<Long, Child> started = new LinkedHashMap<>();
        try {
            Path serverLog = out.resolve("logs/share-default-server.log");
            long deadline = System.nanoTime() + Duration.ofSeconds(75).toNanos();
            while (!running(started, "GatlingLauncher", "share-default")) {
                assertThat(study.isAlive()).as("the study runs; its output:%n%s", text(log)).isTrue();
                if (System.nanoTime() > deadline) {
                    fail("share@default's Gatling did not start within 75 s:\n" + text(log));
                }
                // each poll: a child is first seen as taskset, which then becomes the JVM
                study.descendants().forEach(p -> started.computeIfAbsent(p.pid(), pid -> new Child(p)).look());
                TimeUnit.MILLISECONDS.sleep(100);
            }
            Matcher listening = LISTENING.matcher(text(serverLog));
            assertThat(listening.find()).as("share@default's server log:%n%s", text(serverLog)).isTrue();
            int port = Integer.parseInt(listening.group(2));
            assertThat(running(started, "StudyServer", "")).as("share@default's server runs").isTrue();
            assertThat(tomcatBases(temporary)).as("share@default's Tomcat base, in the study's temporary folder")
                    .isNotEmpty();

            study.destroy(); // SIGTERM

            assertThat(study.waitFor(20, TimeUnit.SECONDS)).as("the study stops on SIGTERM").isTrue();
            assertThat(study.exitValue()).as("the JVM's status for SIGTERM; output:%n%s", text(log)).isEqualTo(143);
            assertThat(started.values()).as("processes the study started")
                    .anySatisfy(c -> assertThat(c.commandLine).contains("StudyServer"))
                    .anySatisfy(c -> assertThat(c.commandLine).contains("GatlingLauncher"))
                    .allSatisfy(c -> assertThat(c.handle.isAlive()).as("%s alive after the study ended", c)
                            .isFalse());
            assertThat(marked(marker)).as("processes of this run alive anywhere").isEmpty();
            assertThat(answers(port)).as("share@default's server on port " + port).isFalse();
            assertThat(temporary).as("the study's temporary folder, once it has ended").isEmptyDirectory();

            assertThat(Files.readString(out.resolve(ResultsFiles.RUN_PROPERTIES)))
                    .contains("settings.completed=1 of 2 configurations");
            List<String> outcomes = Files.readAllLines(out.resolve("outcomes.csv"));
            assertThat(outcomes).as("outcomes.csv; the study's output:%n%s", text(log)).hasSize(2);
            assertThat(outcomes.get(1)).startsWith("none@default,MEASURED");
        } finally {
            if (study.isAlive()) {
                study.destroyForcibly();
            }
            // only what this run started: its JVMs carry the marker
            for (ProcessHandle p : marked(marker)) {
                p.destroyForcibly();
            }
            started.values().forEach(c -> c.handle.destroyForcibly());
        }
    }

    /** A process the study started, with its command line as last seen (it has none once it has gone). */
    private static final class Child {
        final ProcessHandle handle;
        String commandLine = "";

        Child(ProcessHandle handle) {
            this.handle = handle;
        }

        Child look() {
            String now = commandLine(handle);
            if (!now.isEmpty()) {
                commandLine = now;
            }
            return this;
        }

        @Override
        public String toString() {
            // the end of the command line, which names the main class and its arguments (the class path is long)
            return handle.pid() + " " + (commandLine.length() > 300 ? "..." + commandLine.substring(
                    commandLine.length() - 300) : commandLine);
        }
    }

    /** Whether one of the processes seen runs and its command line holds both words. */
    private static boolean running(Map<Long, Child> processes, String word, String other) {
        return processes.values().stream().anyMatch(c -> c.handle.isAlive() && c.commandLine.contains(word)
                && c.commandLine.contains(other));
    }

    private static List<ProcessHandle> marked(String marker) {
        return ProcessHandle.allProcesses().filter(p -> commandLine(p).contains(marker)).toList();
    }

    /**
     * The whole command line from /proc: ProcessHandle.Info gives none past 4096 bytes, and a class path from the local
     * Maven repository is longer.
     */
    private static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return ""; // gone, or not ours to read
        }
    }

    /** The study servers' Tomcat bases (fairslice-tomcat-*) in the folder the harness gave them, in {@code tmp}. */
    private static List<Path> tomcatBases(Path tmp) throws IOException {
        try (Stream<Path> all = Files.walk(tmp, 2)) {
            return all.filter(p -> p.getFileName().toString().startsWith("fairslice-tomcat-")).toList();
        }
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String text(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "(no " + file + ")";
    }
}
