package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.StudyServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The study server (experiments/server's StudyServer) in a JVM of its own, pinned and scheduled as configured. */
final class StudyServerProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on http://([^/:\\s]+):(\\d+)/");

    /** The server refused the configuration: this checkout's server does not have that middleware. */
    static final class NotAvailableException extends Exception {
        private static final long serialVersionUID = 1L;

        NotAvailableException(String message) {
            super(message);
        }
    }

    private final Host host;
    private final Process process;
    final String baseUrl;
    final Path log;

    private StudyServerProcess(Host host, Process process, String baseUrl, Path log) {
        this.host = host;
        this.process = process;
        this.baseUrl = baseUrl;
        this.log = log;
    }

    /**
     * Why a server that exited before listening refused its configuration, when that means this checkout or machine
     * does not have the middleware (a listener, a peer, an option, a privilege); null when it failed otherwise.
     */
    static NotAvailableException refusal(String output, Middleware middleware) {
        if (output.contains("is not a fairslice configuration key")) {
            // fairslice rejects settings no installed listener declares: here the kernel probe's
            return new NotAvailableException("the study server has no listener for " + middleware.jvmOptions()
                    + " (is the kernel probe on its class path?): "
                    + firstLine(output, "is not a fairslice configuration key"));
        }
        if (output.contains("cannot be applied and restored on this machine")
                && output.contains("CAP_SYS_NICE")) { // the probe's hint for EPERM and EACCES
            // the kernel probe's actuator check: lowering a thread's nice back needs a privilege this user lacks
            // (any other actuator failure, a slice's included, is a fault, reported as failed)
            return new NotAvailableException("this user cannot lower a thread's nice back after raising it (run as "
                    + "root, or allow it with ulimit -e): " + firstLine(output, "cannot be applied"));
        }
        if (output.contains("unknown option") || output.contains("Unknown option")
                || output.contains("unknown policy") || output.contains("unknown peer")) {
            return new NotAvailableException("the study server does not support "
                    + String.join(" ", middleware.serverArguments()) + ": " + firstLine(output, "nknown"));
        }
        return null;
    }

    long pid() {
        return process.pid();
    }

    static StudyServerProcess start(Host host, Configuration configuration, StudyConfig config, String classpath,
                                    List<String> extraJvmOptions, List<String> weavingJvmOptions, Path log)
            throws IOException, NotAvailableException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.addAll(configuration.scheduler().launchPrefix());
        command.addAll(host.pin(host.serverCore()));
        command.add(javaExecutable());
        command.addAll(OWN_JVM_OPTIONS);
        command.add(host.serverTemporaryFolderOption()); // before the configuration's options, which may set another
        command.addAll(config.serverJvmOptions());
        command.addAll(extraJvmOptions);
        if (configuration.middleware().yieldPoints()) {
            command.addAll(weavingJvmOptions);
        }
        command.addAll(configuration.middleware().jvmOptions());
        command.addAll(List.of("-cp", classpath, "io.fairslice.experiments.server.StudyServer",
                "--port", "0", "--max-threads", Integer.toString(config.maxThreads()),
                "--document-size", config.documentSize()));
        if (config.virtualThreads()) {
            command.add("--virtual-threads");
        }
        command.addAll(configuration.middleware().serverArguments());
        Files.createDirectories(log.getParent());
        Files.writeString(log.resolveSibling(log.getFileName() + ".cmd"), String.join(" ", command) + "\n");
        Process process = host.start(command, log);
        long deadline = System.currentTimeMillis() + 120_000;
        while (System.currentTimeMillis() < deadline) {
            String output = Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
            Matcher m = LISTENING.matcher(output);
            if (m.find()) {
                StudyServerProcess server = new StudyServerProcess(host, process,
                        "http://" + m.group(1) + ":" + m.group(2), log);
                if (configuration.middleware().peer() && !output.contains("fairslice peer: ")) {
                    // an older server ignores -Dfairslice.peer: measuring it would pass the baseline off as the peer
                    server.close();
                    throw new NotAvailableException("this checkout's study server does not install peers "
                            + "(no 'fairslice peer:' line for " + configuration.middleware().jvmOptions() + ")");
                }
                return server;
            }
            if (!process.isAlive()) {
                String tail = tail(output, 15);
                NotAvailableException refused = refusal(output, configuration.middleware());
                if (refused != null) {
                    throw refused;
                }
                throw new IOException("the study server exited with status " + process.exitValue()
                        + " before listening; its log " + log + " ends with:\n" + tail);
            }
            Thread.sleep(100);
        }
        host.stop(process, 2000);
        throw new IOException("the study server did not start listening within 120 s; see " + log);
    }

    /** The server's /metrics in Prometheus text, or an empty string if it cannot be read. */
    String scrapeMetrics() {
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(baseUrl + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).header("Accept", "text/plain").build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** A page the server did not serve: its path and the status it answered with. */
    record Unserved(String path, int status) {
    }

    /**
     * The first of {@code paths} the server does not answer once with a status the load generator counts as a success
     * (Gatling's default check: 200-209 or 304; a redirect is not followed, as the load does not follow it), or null
     * when every one does. A typo in {@code lightPaths} had every light request of the study fail, and the run
     * measured nothing but 404s for its whole length and ended with status 0.
     */
    Unserved unservedPage(List<String> paths) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER).build();
        for (String path : paths) {
            // a heavy page's first request parses its document in a cold JVM: seconds, not minutes
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.discarding());
            int status = response.statusCode();
            if ((status < 200 || status > 209) && status != 304) {
                return new Unserved(path, status);
            }
        }
        return null;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGTERM, then SIGKILL once the server's drain and Tomcat's stop had their time. */
    @Override
    public void close() {
        host.stop(process, StudyServer.STOP_GRACE.toMillis());
    }

    /** The options every server's JVM starts with before the study's (serverJvmOptions, --server-jvm-option). */
    static final List<String> OWN_JVM_OPTIONS = List.of("--enable-native-access=ALL-UNNAMED");

    /** How long {@link #jvmRefusal} waits for the JVM: it starts and exits in a tenth of a second. */
    static final Duration OPTIONS_CHECK_TIMEOUT = Duration.ofSeconds(30);

    /**
     * What the study's java, the servers' and Gatling's, says when it does not start with {@code options}, or null
     * when it does (or has not answered within {@code timeout}: the run then shows what happens). One {@code java
     * OPTIONS -version}: a JVM option it refused failed every configuration's server or Gatling, one after the other,
     * and the run ended with exit 1. Agents (-javaagent, -agentlib, -agentpath) are left out, since they would start
     * (a debugger's, with suspend=y, waits for one), and -XX:-AlwaysPreTouch follows the options: touching the
     * study's 4 GB heap takes seconds.
     */
    static String jvmRefusal(List<String> options, Duration timeout) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaExecutable()));
        options.stream().filter(o -> !o.startsWith("-javaagent:") && !o.startsWith("-agentlib:")
                && !o.startsWith("-agentpath:")).forEach(command::add);
        command.addAll(List.of("-XX:-AlwaysPreTouch", "-version"));
        Path output = Files.createTempFile("fairslice-jvm-options", ".log");
        try {
            Process jvm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            jvm.getOutputStream().close();
            if (!jvm.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                jvm.destroyForcibly().waitFor();
                return null;
            }
            return jvm.exitValue() == 0 ? null
                    : complaint(Files.readString(output, StandardCharsets.ISO_8859_1), jvm.exitValue());
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * The line of a JVM's output that says why it did not start: its first but the generic ones around it ("Error:
     * Could not create the Java Virtual Machine.") and warnings; the complaint is on standard output for some options
     * (-Xms over -Xmx, two collectors), on standard error for others.
     */
    static String complaint(String output, int status) {
        String warning = null;
        for (String line : output.split("\n")) {
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("Error: Could not create the Java Virtual Machine")
                    || text.startsWith("Error: A fatal exception has occurred")
                    || text.startsWith("Error occurred during initialization of")) {
                continue;
            }
            if (!text.contains("warning:")) {
                return text;
            }
            warning = warning == null ? text : warning;
        }
        return warning != null ? warning : "exit status " + status;
    }

    static String javaExecutable() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return Files.isExecutable(java) ? java.toString() : "java";
    }

    static String tail(String text, int lines) {
        String[] all = text.split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, all.length - lines); i < all.length; i++) {
            sb.append(all[i]).append('\n');
        }
        return sb.toString();
    }

    private static String firstLine(String text, String containing) {
        for (String line : text.split("\n")) {
            if (line.contains(containing)) {
                return line.trim();
            }
        }
        return text.trim();
    }
}
