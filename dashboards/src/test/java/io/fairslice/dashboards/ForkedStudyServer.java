package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The study server as `./fairslice serve` runs it: its own JVM, with the AspectJ agent weaving yield points into the
 * study application (in-process, nothing would be woven and the yield panels would stay empty). The class path is
 * this test's, which holds the server, the middleware, the kernel probe and the weaver.
 */
final class ForkedStudyServer implements AutoCloseable {

    /** The study application's package: the weaving scope `./fairslice serve` uses by default. */
    private static final String WEAVING_SCOPE = "io.fairslice.experiments.app..*";

    private final Process process;
    private final Path log;
    private final int port;

    private ForkedStudyServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts the server with these `serve` options (no --port: it picks a free one) and waits until it answers. */
    static ForkedStudyServer start(String... serveOptions) throws IOException, InterruptedException {
        Path dir = ModuleFiles.workDir("server-");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String weaver = Arrays.stream(classPath.split(File.pathSeparator))
                .filter(entry -> Path.of(entry).getFileName().toString().startsWith("aspectjweaver"))
                .findFirst()
                .orElseGet(() -> fail("no aspectjweaver jar on the test class path: " + classPath));
        Path aop = dir.resolve("aop.xml");
        Files.writeString(aop, "<aspectj><weaver><include within=\"" + WEAVING_SCOPE + "\"/></weaver></aspectj>\n");
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-Xms512m", "-Xmx1g",
                "-javaagent:" + weaver,
                "-Dorg.aspectj.weaver.loadtime.configuration=META-INF/aop.xml;file:" + aop,
                "-cp", classPath,
                "io.fairslice.experiments.server.StudyServer",
                "--port", Integer.toString(port)));
        command.addAll(List.of(serveOptions));
        Path log = dir.resolve("server.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ForkedStudyServer server = new ForkedStudyServer(process, log, port);
        try {
            server.awaitMetrics(Duration.ofSeconds(60));
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void awaitMetrics(Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                fail("the study server exited with " + process.exitValue() + " at start:\n" + logText());
            }
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(uri("/metrics"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        fail("the study server did not serve /metrics within " + timeout + ":\n" + logText());
    }

    int port() {
        return port;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: the server's shutdown hook stops Tomcat
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
