package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `./fairslice prometheus`, as a user runs it: a Prometheus on loopback with the committed rules, scraping the given
 * target, that leaves neither a process nor its temporary storage behind when stopped.
 */
class LauncherPrometheusTest {

    private static final Pattern DATA_DIR = Pattern.compile("data in (\\S+), deleted on exit");

    @Test
    void shouldRunPrometheusWithTheDashboardRulesAndCleanUpOnStop() throws Exception {
        Tool.require("prometheus");
        Path launcher = ModuleFiles.moduleDir().getParent().resolve("fairslice");
        Path log = ModuleFiles.workDir("launcher-").resolve("launcher.log");
        int listen = freePort();
        String target = "127.0.0.1:" + freePort(); // nothing listens there: the scrape fails, the config is what counts
        Process launcherProcess = new ProcessBuilder("bash", launcher.toString(), "prometheus",
                "--target", target, "--listen", "127.0.0.1:" + listen, "--scrape-interval", "1s")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        List<ProcessHandle> children = List.of();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + listen);
            awaitReady(http, base, launcherProcess, log);
            children = launcherProcess.descendants().toList();

            // Prometheus reports its targets a few seconds after start (target discovery runs in batches)
            JsonNode targets = get(http, base.resolve("/api/v1/targets"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (targets.findValuesAsText("scrapeUrl").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(250);
                targets = get(http, base.resolve("/api/v1/targets"));
            }
            JsonNode rules = get(http, base.resolve("/api/v1/rules"));
            String config = get(http, base.resolve("/api/v1/status/config")).path("yaml").asText();

            assertThat(targets.findValuesAsText("scrapeUrl")).containsExactly("http://" + target + "/metrics");
            assertThat(targets.findValuesAsText("job")).contains("fairslice");
            assertThat(rules.findValuesAsText("name")).contains("FairsliceLatencyAboveSlo",
                    "FairsliceShareBelowTarget", "FairsliceSustainedRejections",
                    "instance_page_le:fairslice_requests_seconds_bucket:rate1m");
            assertThat(config).as("the job scrapes at the interval given").containsPattern(
                    "(?s)job_name: fairslice\\n.*?scrape_interval: 1s\\n");
        } finally {
            launcherProcess.destroy(); // SIGTERM, as a service manager would stop it
            assertThat(launcherProcess.waitFor(20, TimeUnit.SECONDS)).as("the launcher stops on SIGTERM").isTrue();
        }
        String output = Files.readString(log);
        Matcher dataDir = DATA_DIR.matcher(output);
        assertThat(dataDir.find()).as("the launcher names its storage folder:%n%s", output).isTrue();
        assertThat(Path.of(dataDir.group(1))).as("temporary storage after stop").doesNotExist();
        assertThat(children).as("processes the launcher started").isNotEmpty()
                .allSatisfy(child -> assertThat(child.isAlive()).as("%s alive after stop", child.info()).isFalse());
    }

    /** A standalone Tomcat with the bundle serves /fairslice/metrics: `--metrics-path` points the job there. */
    @Test
    void shouldScrapeTheMetricsPathGiven() throws Exception {
        Tool.require("prometheus");
        Path launcher = ModuleFiles.moduleDir().getParent().resolve("fairslice");
        Path log = ModuleFiles.workDir("launcher-").resolve("launcher.log");
        int listen = freePort();
        String target = "127.0.0.1:" + freePort();
        Process launcherProcess = new ProcessBuilder("bash", launcher.toString(), "prometheus",
                "--target", target, "--metrics-path", "/fairslice/metrics", "--listen", "127.0.0.1:" + listen)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + listen);
            awaitReady(http, base, launcherProcess, log);
            JsonNode targets = get(http, base.resolve("/api/v1/targets"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (targets.findValuesAsText("scrapeUrl").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(250);
                targets = get(http, base.resolve("/api/v1/targets"));
            }
            assertThat(targets.findValuesAsText("scrapeUrl"))
                    .containsExactly("http://" + target + "/fairslice/metrics");
            assertThat(Files.readString(log)).contains("scrapes http://" + target + "/fairslice/metrics");
        } finally {
            launcherProcess.destroy();
            assertThat(launcherProcess.waitFor(20, TimeUnit.SECONDS)).as("the launcher stops on SIGTERM").isTrue();
        }
    }

    /**
     * A checkout whose path YAML would read differently (" #" starts a comment, ": " a mapping) still gets the rules:
     * the launcher wrote that path into the config, and Prometheus started with no rule at all, without a word.
     */
    @Test
    void shouldLoadTheRulesFromACheckoutWhosePathIsNotPlainYaml() throws Exception {
        Tool.require("prometheus");
        Path checkout = ModuleFiles.workDir("launcher-").resolve("check #out: here");
        Path prometheusDir = checkout.resolve("dashboards").resolve("prometheus");
        Files.createDirectories(prometheusDir.resolve("rules"));
        Path modules = ModuleFiles.moduleDir().getParent();
        Files.copy(modules.resolve("fairslice"), checkout.resolve("fairslice"));
        Files.copy(modules.resolve("mvnw"), checkout.resolve("mvnw"), StandardCopyOption.COPY_ATTRIBUTES); // executable
        Files.copy(ModuleFiles.prometheusDir().resolve("prometheus.yml"), prometheusDir.resolve("prometheus.yml"));
        for (String rules : List.of("fairslice-recording.yml", "fairslice-alerts.yml")) {
            Files.copy(ModuleFiles.prometheusDir().resolve("rules").resolve(rules),
                    prometheusDir.resolve("rules").resolve(rules));
        }
        Path log = checkout.resolveSibling("launcher.log");
        int listen = freePort();
        Process launcherProcess = new ProcessBuilder("bash", checkout.resolve("fairslice").toString(), "prometheus",
                "--target", "127.0.0.1:" + freePort(), "--listen", "127.0.0.1:" + listen)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + listen);
            awaitReady(http, base, launcherProcess, log);
            assertThat(get(http, base.resolve("/api/v1/rules")).findValuesAsText("name"))
                    .contains("FairsliceShareBelowTarget", "instance_page_le:fairslice_requests_seconds_bucket:rate1m");
        } finally {
            launcherProcess.destroy();
            assertThat(launcherProcess.waitFor(20, TimeUnit.SECONDS)).as("the launcher stops on SIGTERM").isTrue();
        }
    }

    /** A path that would break the generated YAML, or is not a path, is refused before Prometheus starts. */
    @Test
    void shouldRefuseAMetricsPathThatIsNotAnAbsolutePath() throws Exception {
        Path launcher = ModuleFiles.moduleDir().getParent().resolve("fairslice");
        for (String path : List.of("metrics", "/a b", "/x\nscrape_interval: 1m")) {
            Process p = new ProcessBuilder("bash", launcher.toString(), "prometheus", "--metrics-path", path)
                    .redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(output).isNotZero();
            assertThat(output).contains("fairslice prometheus: --metrics-path must be an absolute URL path");
        }
    }

    /** The recording rules' one-minute windows see nothing with scrapes a minute apart: refused, not left empty. */
    @Test
    void shouldRefuseAScrapeIntervalTheRecordingRulesCannotUse() throws Exception {
        Path launcher = ModuleFiles.moduleDir().getParent().resolve("fairslice");
        Process p = new ProcessBuilder("bash", launcher.toString(), "prometheus", "--scrape-interval", "1m")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isNotZero();
        assertThat(output).contains("fairslice prometheus: --scrape-interval must be between 1ms and 15s")
                .contains("got '1m'");
    }

    private static void awaitReady(HttpClient http, URI base, Process launcher, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(launcher.isAlive()).as("launcher running; its output:%n%s", Files.readString(log)).isTrue();
            try {
                if (http.send(HttpRequest.newBuilder(base.resolve("/-/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Prometheus from the launcher not ready in 30 s:\n" + Files.readString(log));
    }

    private static JsonNode get(HttpClient http, URI uri) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s: %s", uri, response.body()).isEqualTo(200);
        return new ObjectMapper().readTree(response.body()).path("data");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
