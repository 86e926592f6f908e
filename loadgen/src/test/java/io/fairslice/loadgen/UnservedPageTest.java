package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run in which a page got no successful response fails (requireSuccess, on by default), naming the page and what it
 * got, in one line. A user's walk-through found both cases ending with BUILD SUCCESS: the wrong port (every connection
 * refused) and a misspelt page (every answer 404). A real HTTP server on loopback, Gatling in a JVM of its own.
 */
class UnservedPageTest {

    @TempDir
    Path dir;

    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /**
     * Answers /shop/catalog and /shop/report 200, /shop/slow 200 after 2.5 s, /shop/shed 503 with Retry-After: 1,
     * /shop/moved 302 to /shop/shed, anything else 404.
     */
    private String start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getRawPath();
                if (path.equals("/shop/slow")) {
                    try {
                        Thread.sleep(2500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                int status = switch (path) {
                    case "/shop/catalog", "/shop/report", "/shop/slow" -> 200;
                    case "/shop/shed" -> 503;
                    case "/shop/moved" -> 302;
                    default -> 404;
                };
                if (status == 503) {
                    exchange.getResponseHeaders().set("Retry-After", "1");
                }
                if (status == 302) {
                    exchange.getResponseHeaders().set("Location", "/shop/shed");
                }
                byte[] body = "page\n".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(status, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/shop";
    }

    private SimulationRun study(String baseUrl, Map<String, String> parameters) throws Exception {
        Map<String, String> all = new HashMap<>(Map.of("baseUrl", baseUrl, "lightUsers", "1", "heavyUsers", "1",
                "warmUp", "0s", "duration", "2s", "thinkTime", "100ms"));
        all.putAll(parameters);
        return SimulationRun.of(OverloadStudy.class, all, dir);
    }

    /**
     * A page that redirects is not followed: each request is one answer, the redirect's, which is no success. Followed,
     * a redirect to a page answering 503 counted as served (Gatling's default check passed the 302 hop) and the run
     * ended 0, every request counted twice.
     */
    @Test
    @Timeout(120)
    void shouldNotFollowARedirectAndFailTheRunNamingIt() throws Exception {
        SimulationRun run = study(start(), Map.of("lightPaths", "/catalog", "heavyPath", "/moved"));

        assertThat(run.status()).as(run.output()).isNotZero();
        assertThat(run.output()).containsPattern("(?m)^fairslice loadgen: heavy:/moved got no successful response: "
                + "of (\\d+) requests, \\1 answered 302 \\(a redirect, which the load generator does not follow:"
                + " give the path it redirects to\\)$");
        assertThat(run.output()).as("the redirect's target is never asked for").doesNotContain("answered 503");
    }

    /**
     * Light users go through their pages in turn, each from its own: when every user started at the first page, a
     * first page slower than the run (2.5 s against 1 s) left the second one never requested, and the run failed with
     * only Gatling's "Could not find stats matching assertion path".
     */
    @Test
    @Timeout(120)
    void shouldReachEveryLightPageWhenTheFirstOneOutlastsTheRun() throws Exception {
        SimulationRun run = study(start(), Map.of("lightUsers", "2", "heavyUsers", "0", "lightPaths",
                "/slow,/catalog", "duration", "1s", "thinkTime", "0ms"));

        assertThat(run.status()).as(run.output()).isZero();
        assertThat(run.output()).doesNotContain("got no successful response").doesNotContain("never requested");
    }

    @Test
    @Timeout(120)
    void shouldFailTheRunNamingAMisspeltPageAndItsStatus() throws Exception {
        SimulationRun run = study(start(), Map.of("lightPaths", "/catalgo", "heavyPath", "/report"));

        assertThat(run.status()).as(run.output()).isNotZero();
        assertThat(run.output()).containsPattern("(?m)^fairslice loadgen: light:/catalgo got no successful response: "
                + "of (\\d+) requests, \\1 answered 404$");
        assertThat(run.output()).as("the page that was served").doesNotContain("heavy:/report got no");
    }

    @Test
    @Timeout(120)
    void shouldFailTheRunNamingEveryPageWhenNothingListensOnThePort() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // free again once closed: connections to it are refused
        }

        SimulationRun run = study("http://127.0.0.1:" + closed + "/shop", Map.of("lightPaths", "/catalog",
                "heavyPath", "/report"));

        assertThat(run.status()).as(run.output()).isNotZero();
        for (String page : new String[] {"light:/catalog", "heavy:/report"}) {
            assertThat(run.output()).containsPattern("(?m)^fairslice loadgen: " + page + " got no successful "
                    + "response: of (\\d+) requests, \\1 got no answer \\(the connection refused or dropped");
        }
    }

    @Test
    @Timeout(120)
    void shouldFailARunWhosePageWasOnlyShedUnlessRequireSuccessIsFalse() throws Exception {
        String baseUrl = start();

        SimulationRun shed = study(baseUrl, Map.of("lightPaths", "/catalog", "heavyPath", "/shed"));
        SimulationRun accepted = study(baseUrl, Map.of("lightPaths", "/catalog", "heavyPath", "/shed",
                "requireSuccess", "false"));

        assertThat(shed.status()).as(shed.output()).isNotZero();
        assertThat(shed.output()).containsPattern("(?m)^fairslice loadgen: heavy:/shed got no successful response: "
                + "of (\\d+) requests, \\1 answered 503 \\(shed: the server's overload rejection; "
                + "requireSuccess=false accepts it\\)$");
        assertThat(accepted.status()).as(accepted.output()).isZero();
        assertThat(accepted.output()).doesNotContain("got no successful response");
    }

    @Test
    @Timeout(120)
    void shouldFailASpikeRunWhosePageGotOnly404s() throws Exception {
        SimulationRun run = SimulationRun.of(OverloadSpike.class, Map.of("baseUrl", start(), "lightPaths", "/catalgo",
                "lightRate", "5", "heavyRate", "0", "duration", "1s", "burstStart", "0s", "burstDuration", "0s"), dir);

        assertThat(run.status()).as(run.output()).isNotZero();
        assertThat(run.output()).containsPattern("(?m)^fairslice loadgen: light:/catalgo got no successful response: "
                + "of (\\d+) requests, \\1 answered 404$");
    }
}
