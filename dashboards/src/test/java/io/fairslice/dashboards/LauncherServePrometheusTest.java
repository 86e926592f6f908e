package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * `./fairslice serve --prometheus` stopped by a signal to the launcher (SIGTERM from a service manager or `kill`,
 * SIGINT from Ctrl-C): the study server's JVM and the local Prometheus both stop, the launcher exits, and Prometheus's
 * temporary storage is gone. The launcher is a copy of the real one in a scratch checkout, as in experiments/server's
 * LauncherTest, so that it neither builds nor needs the packaged jars: its `./mvnw` only leaves the jar it looks for,
 * and its JDK's java runs the real java with this test's class path (server, middleware). The server and Prometheus
 * are real, on free loopback ports.
 */
class LauncherServePrometheusTest {

    private static final Pattern DATA_DIR = Pattern.compile("data in (\\S+), deleted on exit");

    @ParameterizedTest(name = "SIG{0}")
    @ValueSource(strings = {"TERM", "INT"})
    void shouldStopTheServerAndPrometheusAndDeleteTheStorageWhenTheLauncherIsSignalled(String signal)
            throws Exception {
        Tool.require("prometheus");
        Path checkout = scratchCheckout();
        Path tmp = Files.createDirectories(checkout.resolve("tmp"));
        Path log = checkout.resolve("launcher.log");
        int serverPort = freePort();
        int prometheusPort = freePort();
        // env --default-signal: a launcher started from a terminal has SIGINT at its default; one inherited from a
        // background job would have it ignored, and bash cannot trap a signal ignored at its start
        ProcessBuilder builder = new ProcessBuilder("env", "--default-signal=INT", checkout.resolve("fairslice")
                .toString(), "serve", "--prometheus", "--port", Integer.toString(serverPort), "--policy", "none")
                .directory(checkout.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("FAIRSLICE_"));
        environment.put("JAVA_HOME", checkout.resolve("jdk").toString());
        environment.put("TMPDIR", tmp.toString());
        environment.put("FAIRSLICE_PROMETHEUS_LISTEN", "127.0.0.1:" + prometheusPort);
        // after the launcher's own -Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch, so these count
        environment.put("FAIRSLICE_JAVA_OPTS", "-Xms64m -Xmx256m -Xmn32m -XX:-AlwaysPreTouch");
        Process launcher = builder.start();
        Map<ProcessHandle, String> children = Map.of();
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            URI metrics = URI.create("http://127.0.0.1:" + serverPort + "/metrics");
            URI ready = URI.create("http://127.0.0.1:" + prometheusPort + "/-/ready");
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (status(http, metrics) != 200 || status(http, ready) != 200) {
                assertThat(launcher.isAlive()).as("launcher running; its output:%n%s", text(log)).isTrue();
                assertThat(System.nanoTime()).as("server and Prometheus answering within 60 s; launcher output:%n%s",
                        text(log)).isLessThan(deadline);
                Thread.sleep(200);
            }
            children = launcher.descendants()
                    .collect(Collectors.toMap(p -> p, LauncherServePrometheusTest::commandLine));
            assertThat(children.values()).as("what the launcher runs")
                    .anyMatch(command -> command.contains("io.fairslice.experiments.server.StudyServer"))
                    .anyMatch(command -> command.startsWith("prometheus "));
            Matcher dataDir = DATA_DIR.matcher(text(log));
            assertThat(dataDir.find()).as("the launcher names its storage folder:%n%s", text(log)).isTrue();
            Path storage = Path.of(dataDir.group(1));
            assertThat(storage).as("Prometheus's storage while it runs").isDirectory();

            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(launcher.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -s " + signal).isTrue();

            assertThat(launcher.waitFor(20, TimeUnit.SECONDS))
                    .as("the launcher stops on SIG%s within 20 s; output:%n%s", signal, text(log)).isTrue();
            assertThat(children).as("processes the launcher started").allSatisfy((child, command) ->
                    assertThat(child.isAlive()).as("alive after the launcher ended: %s", shortened(command)).isFalse());
            assertThat(answers(serverPort)).as("the server's port after the stop").isFalse();
            assertThat(answers(prometheusPort)).as("Prometheus's port after the stop").isFalse();
            assertThat(storage).as("Prometheus's temporary storage after the stop").doesNotExist();
            try (var left = Files.list(tmp)) {
                assertThat(left).as("what is left in the launcher's TMPDIR").isEmpty();
            }
        } finally {
            // only what this test started, by its process ids
            children.keySet().forEach(ProcessHandle::destroyForcibly);
            if (launcher.isAlive()) {
                launcher.destroyForcibly();
            }
        }
    }

    /**
     * A checkout with the real launcher, Prometheus's configuration (a link to this module's), the source folders its
     * build check lists, a `./mvnw` that leaves an empty server jar, and a JDK whose java runs the real one with this
     * test's class path.
     */
    private static Path scratchCheckout() throws IOException {
        Path checkout = ModuleFiles.workDir("serve-prometheus-");
        Files.copy(ModuleFiles.moduleDir().getParent().resolve("fairslice"), checkout.resolve("fairslice"));
        executable(checkout.resolve("fairslice"));
        Files.writeString(checkout.resolve("pom.xml"), "");
        for (String module : List.of("experiments/server", "experiments/study-app", "middleware/core",
                "kernel-probe")) {
            Files.createDirectories(checkout.resolve(module));
        }
        Files.createDirectories(checkout.resolve("dashboards"));
        Files.createSymbolicLink(checkout.resolve("dashboards/prometheus"), ModuleFiles.prometheusDir());
        Files.writeString(checkout.resolve("mvnw"), """
                #!/usr/bin/env bash
                mkdir -p experiments/server/target
                : > experiments/server/target/fairslice-study-server-0.1.0-SNAPSHOT.jar
                """);
        executable(checkout.resolve("mvnw"));
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path realJava = Path.of(System.getProperty("java.home"), "bin", "java");
        Files.createDirectories(checkout.resolve("jdk/bin"));
        // exec: the launcher's server pid is the JVM's
        Files.writeString(checkout.resolve("jdk/bin/java"), """
                #!/usr/bin/env bash
                args=("$@")
                for ((i = 0; i < ${#args[@]}; i++)); do
                  [[ "${args[i]}" == -cp ]] && args[i + 1]='%s'
                done
                exec '%s' "${args[@]}"
                """.formatted(classPath, realJava));
        executable(checkout.resolve("jdk/bin/java"));
        return checkout;
    }

    private static int status(HttpClient http, URI uri) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1; // not listening yet
        }
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The whole command line from /proc: ProcessHandle.Info gives none past 4096 bytes (the server's class path). */
    private static String commandLine(ProcessHandle process) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    private static String shortened(String command) {
        return command.length() > 300 ? command.substring(0, 150) + " ... " + command.substring(command.length() - 150)
                : command;
    }

    private static String text(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
