package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Prometheus (the system's binary) on loopback with storage in a scratch folder, running the committed
 * prometheus.yml with the test's target and a short scrape and evaluation interval. Closing it kills the process
 * and deletes its data.
 */
final class LocalPrometheus implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path dir;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LocalPrometheus(Process process, Path dir, Path log, int port) {
        this.process = process;
        this.dir = dir;
        this.log = log;
        this.port = port;
    }

    /**
     * Starts Prometheus scraping {@code target} (host:port) every {@code interval} and evaluating the committed rules
     * as often; returns once it answers /-/ready.
     */
    static LocalPrometheus start(String target, String interval) throws IOException, InterruptedException {
        Tool prometheus = Tool.require("prometheus");
        Path dir = ModuleFiles.workDir("prometheus-");
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, configFor(target, interval));
        copyRules(dir.resolve("rules"));
        Path log = dir.resolve("prometheus.log");
        int port = freePort();
        Process process = new ProcessBuilder(prometheus.executable().toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LocalPrometheus started = new LocalPrometheus(process, dir, log, port);
        try {
            started.awaitReady(Duration.ofSeconds(30));
        } catch (RuntimeException | Error e) {
            started.close();
            throw e;
        }
        return started;
    }

    /**
     * The committed prometheus.yml with the target and the intervals replaced; its rule paths stay relative, read
     * from the copy of the rules beside it (as the launcher does: a folder's path in the YAML could change what it
     * says). Every replaced text must be there exactly once, so a change to the committed file cannot silently leave
     * the test on the defaults.
     */
    static String configFor(String target, String interval) throws IOException {
        Path committed = ModuleFiles.prometheusDir().resolve("prometheus.yml");
        String config = Files.readString(committed);
        record Replacement(String text, String with, boolean once) {
        }
        List<Replacement> replacements = List.of(
                new Replacement("scrape_interval: 5s", "scrape_interval: " + interval, true),
                new Replacement("evaluation_interval: 5s", "evaluation_interval: " + interval, true),
                new Replacement("\"127.0.0.1:8080\"", "\"" + target + "\"", true),
                new Replacement("- rules/", "- rules/", false));
        for (Replacement replacement : replacements) {
            int count = config.split(Pattern.quote(replacement.text()), -1).length - 1;
            if (count == 0 || (replacement.once() && count > 1)) {
                fail(committed + " should contain '" + replacement.text() + "' "
                        + (replacement.once() ? "exactly once" : "at least once") + ", found it " + count
                        + " times: update LocalPrometheus and the launcher's `prometheus` command with it");
            }
            config = config.replace(replacement.text(), replacement.with());
        }
        return config;
    }

    private static void copyRules(Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> rules = Files.list(ModuleFiles.prometheusDir().resolve("rules"))) {
            for (Path rule : rules.toList()) {
                Files.copy(rule, to.resolve(rule.getFileName()));
            }
        }
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                fail("prometheus exited with " + process.exitValue() + " at start:\n" + logText());
            }
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/-/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        fail("prometheus was not ready within " + timeout + ":\n" + logText());
    }

    /** GET an API path with form parameters; returns the {@code data} field, failing on an API error. */
    JsonNode api(String path, Map<String, String> params) throws IOException, InterruptedException {
        String query = params.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(path + "?" + query))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(response.body());
        if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
            throw new PrometheusQueryException(path + " " + params + " -> HTTP " + response.statusCode() + ": "
                    + body.path("errorType").asText() + ": " + body.path("error").asText());
        }
        return body.path("data");
    }

    /** The values of a label over the series matching a selector (what Grafana's label_values() shows). */
    List<String> labelValues(String selector, String label, long startSeconds, long endSeconds)
            throws IOException, InterruptedException {
        JsonNode data = api("/api/v1/series", Map.of("match[]", selector, "start", Long.toString(startSeconds),
                "end", Long.toString(endSeconds)));
        return Stream.iterate(0, i -> i < data.size(), i -> i + 1)
                .map(i -> data.get(i).path(label))
                .filter(JsonNode::isTextual).map(JsonNode::asText)
                .distinct().sorted().toList();
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> paths = Files.walk(dir.resolve("data"))) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // the scratch folder is under target/: mvn clean removes what is left
        }
    }

    /** Prometheus answered a query with an error (bad PromQL, for instance). */
    static final class PrometheusQueryException extends IOException {
        private static final long serialVersionUID = 1L;

        PrometheusQueryException(String message) {
            super(message);
        }
    }
}
