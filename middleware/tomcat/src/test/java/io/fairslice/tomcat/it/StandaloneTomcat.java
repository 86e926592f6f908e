package io.fairslice.tomcat.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Tomcat from its distribution, run the way operators run it: a fresh instance directory made by Tomcat's own
 * {@code bin/makebase.sh}, started with {@code bin/catalina.sh run} and stopped with {@code bin/catalina.sh stop}
 * (the shutdown port). Only the ports change in server.xml (free ports, HTTP bound to 127.0.0.1), plus a
 * one-second background processor so that deployment changes are seen quickly, and Tomcat's manager application (a
 * second application, which fairslice must leave alone). Remote JMX on loopback gives the tests Tomcat's MBeans,
 * among them its leak detection. Everything it starts, it stops.
 */
final class StandaloneTomcat implements AutoCloseable {

    private final Path home;
    private final Path base;
    private final int httpPort;
    private final int shutdownPort;
    private final int jmxPort;
    private final Path console;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;

    private StandaloneTomcat(Path home, Path base) throws IOException {
        this.home = home;
        this.base = base;
        this.httpPort = freePort();
        this.shutdownPort = freePort();
        this.jmxPort = freePort();
        this.console = base.resolve("logs/console.log");
    }

    /** Makes a fresh CATALINA_BASE at {@code base} (deleted first) from the distribution at {@code home}. */
    static StandaloneTomcat create(Path home, Path base) throws IOException, InterruptedException {
        return create(home, base, false);
    }

    /**
     * ... with the HTTP connector serving every request on a virtual thread of its own ({@code useVirtualThreads},
     * Java 21+) when {@code virtualThreads}.
     */
    static StandaloneTomcat create(Path home, Path base, boolean virtualThreads)
            throws IOException, InterruptedException {
        deleteRecursively(base);
        Files.createDirectories(base.getParent());
        Process make = new ProcessBuilder("bash", home.resolve("bin/makebase.sh").toString(), base.toString())
                .redirectErrorStream(true).start();
        String out = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!make.waitFor(60, TimeUnit.SECONDS) || make.exitValue() != 0) {
            throw new IllegalStateException("makebase.sh failed: " + out);
        }
        StandaloneTomcat tomcat = new StandaloneTomcat(home, base);
        tomcat.configure(virtualThreads);
        return tomcat;
    }

    private void configure(boolean virtualThreads) throws IOException {
        Path serverXml = base.resolve("conf/server.xml");
        String xml = Files.readString(serverXml);
        xml = replaceOnce(xml, "<Server port=\"8005\"", "<Server port=\"" + shutdownPort + "\"");
        xml = replaceOnce(xml, "<Connector port=\"8080\" protocol=\"HTTP/1.1\"",
                "<Connector port=\"" + httpPort + "\" address=\"127.0.0.1\" protocol=\"HTTP/1.1\""
                        + " maxKeepAliveRequests=\"-1\"" + (virtualThreads ? " useVirtualThreads=\"true\"" : ""));
        xml = replaceOnce(xml, "<Engine name=\"Catalina\" defaultHost=\"localhost\">",
                "<Engine name=\"Catalina\" defaultHost=\"localhost\" backgroundProcessorDelay=\"1\">");
        Files.writeString(serverXml, xml);

        Path descriptors = base.resolve("conf/Catalina/localhost");
        Files.createDirectories(descriptors);
        Files.writeString(descriptors.resolve("manager.xml"),
                "<Context docBase=\"${catalina.home}/webapps/manager\" privileged=\"true\"/>\n");
    }

    private static String replaceOnce(String text, String from, String to) {
        int at = text.indexOf(from);
        if (at < 0 || text.indexOf(from, at + 1) >= 0) {
            throw new IllegalStateException("expected exactly one '" + from + "' in Tomcat's configuration");
        }
        return text.replace(from, to);
    }

    Path home() {
        return home;
    }

    Path base() {
        return base;
    }

    int httpPort() {
        return httpPort;
    }

    /** The JMX service URL of the running Tomcat (remote JMX on loopback, no authentication: tests only). */
    String jmxUrl() {
        return "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi";
    }

    /** Starts {@code catalina.sh run} with {@code extraOpts} in CATALINA_OPTS; returns once HTTP answers. */
    void start(String extraOpts) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/catalina.sh").toString(), "run")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
        Map<String, String> env = pb.environment();
        env.put("CATALINA_HOME", home.toString());
        env.put("CATALINA_BASE", base.toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.remove("JAVA_OPTS");
        env.remove("JRE_HOME");
        env.put("CATALINA_OPTS", extraOpts
                + " -Dcom.sun.management.jmxremote.port=" + jmxPort
                + " -Dcom.sun.management.jmxremote.rmi.port=" + jmxPort
                + " -Dcom.sun.management.jmxremote.host=127.0.0.1 -Djava.rmi.server.hostname=127.0.0.1"
                + " -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false");
        process = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Tomcat exited with " + process.exitValue() + " while starting:\n"
                        + logs());
            }
            try {
                get("/", Map.of());
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("Tomcat did not answer on port " + httpPort + " within 120 s:\n" + logs());
    }

    /** {@code catalina.sh stop}; returns Tomcat's exit status, or throws if it did not stop within 60 s. */
    int stop() throws IOException, InterruptedException {
        if (process == null) {
            return 0;
        }
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/catalina.sh").toString(), "stop")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
        pb.environment().put("CATALINA_HOME", home.toString());
        pb.environment().put("CATALINA_BASE", base.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("CATALINA_OPTS");
        Process stopper = pb.start();
        stopper.waitFor(60, TimeUnit.SECONDS);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Tomcat did not stop within 60 s of catalina.sh stop");
        }
        int status = process.exitValue();
        process = null;
        return status;
    }

    /** The process id of Tomcat's JVM ({@code catalina.sh run} execs java). */
    long pid() {
        return process.pid();
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    record Response(int status, String body) {
    }

    Response get(String path, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .timeout(Duration.ofSeconds(30)).GET();
        headers.forEach(request::header);
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.body());
    }

    /** Everything Tomcat logged so far: the console and the files in logs/. */
    String logs() {
        StringBuilder out = new StringBuilder();
        try (Stream<Path> files = Files.list(base.resolve("logs"))) {
            for (Path f : files.sorted().toList()) {
                out.append("==> ").append(f.getFileName()).append(" <==\n")
                        .append(Files.readString(f, StandardCharsets.ISO_8859_1)).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** The lines of Tomcat's logs that contain any of {@code needles}. */
    List<String> logLines(String... needles) {
        List<String> hits = new ArrayList<>();
        for (String line : logs().split("\n")) {
            for (String n : needles) {
                if (line.contains(n)) {
                    hits.add(line);
                    break;
                }
            }
        }
        return hits;
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            try {
                stop();
            } finally {
                if (process != null && process.isAlive()) {
                    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
