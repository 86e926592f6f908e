package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * OverloadStudy's clients against a real HTTP server on loopback that sheds every request, with Gatling in a JVM of
 * its own as the study harness runs it. The server records when each request arrived, so the pauses are read where
 * they matter (between requests) and asserted from below only: a pause is never shorter than asked, but a busy
 * machine may make it longer. Two more runs check where requests go: under a base URL's context path, and nowhere
 * when a parameter's name is misspelt.
 */
class OverloadStudyRejectionTest {

    @TempDir
    Path dir;

    private HttpServer server;
    private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** Answers every request 503; with {@code retryAfter} as the Retry-After header unless it is null. */
    private void shed(String path, String retryAfter) {
        server.createContext(path, exchange -> {
            arrivals.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
            answer(exchange, retryAfter);
        });
    }

    private static void answer(HttpExchange exchange, String retryAfter) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            if (retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", retryAfter);
            }
            byte[] body = "shed\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    @Test
    @Timeout(120)
    void shouldWaitRetryAfterOrTheDefaultBeforeTheNextRequestAndCountEveryRejection() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        shed("/retry-1s", "1");
        shed("/no-header", null);
        shed("/retry-1h", "3600");
        server.start();

        // the light user alternates: a 503 that says 1 s, then one with no Retry-After (retryAfterDefault 2s); the
        // heavy user is told an hour, which the run's end cuts short. Nothing is served: requireSuccess=false, as the
        // harness runs it, lets the run succeed
        long started = System.nanoTime();
        SimulationRun run = gatling(Map.of(
                "lightUsers", "1", "heavyUsers", "1", "lightPaths", "/retry-1s,/no-header", "heavyPath", "/retry-1h",
                "warmUp", "0s", "duration", "4s", "retryAfterDefault", "2s", "requireSuccess", "false"));
        double wallSeconds = (System.nanoTime() - started) / 1e9;

        assertThat(run.status()).as(run.output()).isZero();
        List<Long> retry1s = arrivals.getOrDefault("/retry-1s", List.of());
        List<Long> noHeader = arrivals.getOrDefault("/no-header", List.of());
        List<Long> retry1h = arrivals.getOrDefault("/retry-1h", List.of());
        // retrying at once, the user sends thousands in 4 s; waiting 1 s and 2 s in turn: at 0, 1, 3 (and maybe 4) s
        assertThat(retry1s.size()).as("requests to /retry-1s\n" + run.output()).isBetween(1, 3);
        assertThat(noHeader.size()).as("requests to /no-header\n" + run.output()).isBetween(1, 2);
        List<long[]> light = merged(retry1s, noHeader);
        // what the run measured, for the record (target/surefire-reports/*-output.txt)
        System.out.printf("light arrivals (s after the first; 0 = Retry-After: 1, 1 = none): %s; heavy: %d;"
                + " Gatling took %.1f s%n", light.stream().map(a -> String.format("%.3f/%d",
                (a[0] - light.get(0)[0]) / 1e9, a[1])).toList(), retry1h.size(), wallSeconds);
        for (int i = 1; i < light.size(); i++) {
            double gap = (light.get(i)[0] - light.get(i - 1)[0]) / 1e9;
            boolean afterRetry1s = light.get(i - 1)[1] == 0;
            assertThat(gap).as("seconds between light requests %d and %d, after %s", i - 1, i,
                    afterRetry1s ? "Retry-After: 1" : "no Retry-After")
                    .isGreaterThanOrEqualTo(afterRetry1s ? 0.9 : 1.9);
        }
        assertThat(retry1h).as("the heavy user waits out the run after its first 503").hasSize(1);
        assertThat(wallSeconds).as("the hour's pause ends with the run (4 s plus Gatling's start and stop)")
                .isLessThan(85);

        // every 503 is in Gatling's count, failed with the message the harness reads as a rejection
        long sent = retry1s.size() + noHeader.size() + retry1h.size();
        long[] last = globalTotalAndFailed(run);
        assertThat(last[0]).as("requests Gatling counted\n" + run.output()).isEqualTo(sent);
        assertThat(last[1]).as("of which failed\n" + run.output()).isEqualTo(sent);
        assertThat(run.output()).containsPattern("found 503\\s+" + sent + "\\s+\\(100%\\)");
    }

    /**
     * A server that drops every connection unanswered (one that stopped, or restarts): the user waits the default
     * pause after each failure rather than looping at once (with no think time it sent thousands a second).
     */
    @Test
    @Timeout(120)
    void shouldWaitTheDefaultPauseAfterARequestThatGotNoAnswer() throws Exception {
        List<Long> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket dropping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!dropping.isClosed()) {
                    try (Socket s = dropping.accept()) {
                        accepted.add(System.nanoTime()); // closed unanswered
                    } catch (IOException e) {
                        return; // the test closed the socket
                    }
                }
            }, "dropping-server");
            acceptor.setDaemon(true);
            acceptor.start();

            // requireSuccess=false, as the harness runs it: a run that got no answer at all would fail
            SimulationRun run = gatling(dropping.getLocalPort(), Map.of("lightUsers", "1", "heavyUsers", "0",
                    "lightPaths", "/page", "warmUp", "0s", "duration", "3s", "retryAfterDefault", "1s",
                    "requireSuccess", "false"));

            assertThat(run.status()).as(run.output()).isZero();
            // one request a second for 3 s (a client may try a dropped request once more on a new connection)
            assertThat(accepted.size()).as("connections in 3 s\n" + run.output()).isBetween(1, 8);
            long[] last = globalTotalAndFailed(run);
            assertThat(last[1]).as("every request failed, and counted\n" + run.output()).isEqualTo(last[0])
                    .isBetween(1L, 4L);
        }
    }

    /**
     * An error answer (404, 500) is the server's work, not a shed: the user goes on after its think time (none here),
     * where a shed or unanswered request waits the default second. At a second a request, each page would get about
     * two requests in 2 s; it gets many.
     */
    @Test
    @Timeout(120)
    void shouldFollowAnErrorAnswerWithTheThinkTimeNotTheRetryPause() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        for (String path : List.of("/missing", "/broken")) {
            server.createContext(path, exchange -> {
                arrivals.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
                try (exchange) {
                    exchange.sendResponseHeaders(path.equals("/missing") ? 404 : 500, -1);
                }
            });
        }
        server.start();

        SimulationRun run = gatling(Map.of("lightUsers", "1", "heavyUsers", "1", "lightPaths", "/missing",
                "heavyPath", "/broken", "warmUp", "0s", "duration", "2s", "thinkTime", "0ms", "retryAfterDefault",
                "1s", "requireSuccess", "false"));

        assertThat(run.status()).as(run.output()).isZero();
        assertThat(arrivals.get("/missing")).as("404s in 2 s, no pause after them\n" + run.output())
                .hasSizeGreaterThan(8);
        assertThat(arrivals.get("/broken")).as("500s in 2 s, no pause after them\n" + run.output())
                .hasSizeGreaterThan(8);
    }

    /**
     * A misspelt parameter ({@code heavyPaths} for {@code heavyPath}) ran the load against the default /heavy, whose
     * 404s Gatling counted as errors of a run that "succeeded"; it now stops the run before any request.
     */
    @Test
    @Timeout(120)
    void shouldRefuseAMisspeltParameterBeforeAnyRequest() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        shed("/", "1");
        server.start();

        SimulationRun run = gatling(Map.of("lightUsers", "1", "heavyUsers", "1", "heavyPaths", "/report",
                "warmUp", "0s", "duration", "1s"));

        assertThat(run.status()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("heavyPaths is not a parameter; did you mean heavyPath? (without it, "
                + "heavyPath keeps its default)");
        assertThat(arrivals).as("requests sent").isEmpty();
    }

    /**
     * The user guide's case: an application under a context path, {@code baseUrl} ending in it and the pages given
     * relative to it. Every request must arrive at /shop/page: not /page (the context path dropped), not /shop//page
     * (a slash doubled where they are joined), which the application would both answer 404.
     */
    @Test
    @Timeout(120)
    void shouldSendEveryRequestUnderTheBaseUrlsContextPath() throws Exception {
        List<String> paths = new CopyOnWriteArrayList<>();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getRawPath();
                paths.add(path);
                byte[] body = "page\n".getBytes(StandardCharsets.UTF_8);
                boolean known = path.equals("/shop/catalog") || path.equals("/shop/report");
                exchange.sendResponseHeaders(known ? 200 : 404, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.start();
        String baseUrl = "http://127.0.0.1:" + server.getAddress().getPort() + "/shop";

        SimulationRun run = gatling(Map.of("baseUrl", baseUrl, "lightPaths", "/catalog", "heavyPath", "/report",
                "lightUsers", "1", "heavyUsers", "1", "warmUp", "0s", "duration", "1s", "thinkTime", "200ms"));

        assertThat(run.status()).as(run.output()).isZero();
        assertThat(run.output()).as("what the run printed it goes by").contains("fairslice loadgen: OverloadStudy with "
                + "baseUrl=" + baseUrl + ", lightPaths=/catalog, heavyPath=/report, lightUsers=1, heavyUsers=1,");
        assertThat(paths).as("paths requested\n" + run.output()).contains("/shop/catalog", "/shop/report")
                .allMatch(path -> path.equals("/shop/catalog") || path.equals("/shop/report"));
    }

    /**
     * A think time longer than the run: each user sends one request, thinks until the run's end and stops there. The
     * pause ran out in full, so a 2 s run with a 60 s think time lasted a minute.
     */
    @Test
    @Timeout(120)
    void shouldEndTheThinkTimeAtTheUsersEnd() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> {
            try (exchange) {
                arrivals.computeIfAbsent(exchange.getRequestURI().getPath(), p -> new CopyOnWriteArrayList<>())
                        .add(System.nanoTime());
                exchange.sendResponseHeaders(200, -1);
            }
        });
        server.start();
        long start = System.nanoTime();

        SimulationRun run = gatling(Map.of("lightPaths", "/light", "heavyPath", "/heavy", "lightUsers", "1",
                "heavyUsers", "1", "warmUp", "0s", "duration", "2s", "thinkTime", "60s"));

        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertThat(run.status()).as(run.output()).isZero();
        assertThat(seconds).as("the run's length, the JVM's start included\n" + run.output()).isLessThan(40);
        assertThat(arrivals.get("/light")).as("one request, then thinking to the end").hasSize(1);
        assertThat(arrivals.get("/heavy")).hasSize(1);
    }

    /** Arrivals of two paths in time order, each as {nanoTime, 0 for the first path or 1 for the second}. */
    private static List<long[]> merged(List<Long> first, List<Long> second) {
        List<long[]> all = new ArrayList<>();
        first.forEach(t -> all.add(new long[] {t, 0}));
        second.forEach(t -> all.add(new long[] {t, 1}));
        all.sort((a, b) -> Long.compare(a[0], b[0]));
        return all;
    }

    /** Runs OverloadStudy against the server in a JVM of its own, as the study harness does (LoadGenerator). */
    private SimulationRun gatling(Map<String, String> parameters) throws Exception {
        return gatling(server.getAddress().getPort(), parameters);
    }

    /** Runs OverloadStudy against the server on {@code port}. */
    private SimulationRun gatling(int port, Map<String, String> parameters) throws Exception {
        Map<String, String> all = new HashMap<>(parameters);
        all.putIfAbsent("baseUrl", "http://127.0.0.1:" + port);
        return SimulationRun.of(OverloadStudy.class, all, dir);
    }

    /**
     * The requests Gatling counted and how many failed, from the last line of its console summary, "> Global | total |
     * OK | KO" (the summary at the end, not one printed while it ran).
     */
    private static long[] globalTotalAndFailed(SimulationRun run) {
        Matcher global = Pattern.compile("> Global\\s+\\|\\s+(\\d+) \\|\\s+(\\d+) \\|\\s+(\\d+)").matcher(run.output());
        long[] last = null;
        while (global.find()) {
            last = new long[] {Long.parseLong(global.group(1)), Long.parseLong(global.group(3))};
        }
        assertThat(last).as(run.output()).isNotNull();
        return last;
    }
}
