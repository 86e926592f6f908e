package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The study's load against a server that sheds everything, as the harness runs it (its config's load parameters,
 * Gatling in a JVM of its own, the window read from simulation.log): every shed request is in the window's count as
 * rejected, none as failed, and the clients wait as told instead of hammering.
 */
class LoadGeneratorRejectionTest {

    @TempDir
    Path out;

    private HttpServer server;
    private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private void shed(String path, int status, String retryAfter) {
        server.createContext(path, exchange -> {
            try (exchange) {
                served.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
                exchange.getRequestBody().readAllBytes();
                if (retryAfter != null) {
                    exchange.getResponseHeaders().set("Retry-After", retryAfter);
                }
                byte[] body = "shed\n".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, body.length);
                exchange.getResponseBody().write(body);
            }
        });
    }

    @Test
    @Timeout(120)
    void shouldCountEveryShedRequestAsRejectedWhileTheClientsWaitAsTold() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        shed("/light", 503, "1");     // fairslice: 503 with Retry-After
        shed("/heavy", 429, null);    // Netflix's limiter: 429 without one, so retryAfterDefault
        server.start();
        StudyConfig config = StudyConfig.quick().with(Map.of("lightUsers", "2", "heavyUsers", "0, 2",
                "retryAfterDefault", "1500ms"));
        Map<String, String> parameters = config.loadParameters("http://127.0.0.1:" + server.getAddress().getPort(),
                2, Duration.ZERO, Duration.ofSeconds(3));
        assertThat(parameters).containsEntry("retryAfterDefault", "1500ms").containsEntry("retryAfterMax", "60000ms");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));

        Path log;
        try (Host host = new Host()) {
            log = new LoadGenerator(host, classpath, List.of("-Xmx256m")).run(parameters, Duration.ofSeconds(3),
                    out.resolve("gatling"), out.resolve("gatling.log"), "shed");
        }
        WindowAnalyzer.Window window = WindowAnalyzer.analyze(log, 0, 60_000);

        String why = "served " + served + "; Gatling's output:\n" + Files.readString(out.resolve("gatling.log"));
        ClassStats light = window.light();
        ClassStats heavy = window.heavy();
        // 2 users each, 1 s (light) and 1.5 s (heavy) between requests over 3 s: at most 3 and 2 each; at once,
        // hundreds
        assertThat(light.requests()).as(why).isBetween(2L, 6L);
        assertThat(heavy.requests()).as(why).isBetween(2L, 4L);
        for (ClassStats stats : List.of(light, heavy)) {
            assertThat(stats.rejected()).as(why).isEqualTo(stats.requests());
            assertThat(stats.ok()).isZero();
            assertThat(stats.failed()).as("shed requests are not failures").isZero();
        }
        assertThat(light.requests() + heavy.requests()).as("every request the server answered, in the window")
                .isEqualTo(served.get("/light").get() + served.get("/heavy").get());
    }
}
