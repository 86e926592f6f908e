package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No request lost under overload, reconciled exactly: an open-model client (Poisson arrivals, it does not slow down
 * when the server does), and separately closed-loop clients as in the study, drive the real study server, in its
 * own JVM, past capacity with small class caps and queues so that both classes see 503s. Every request the client sent
 * is answered 200 or 503, and the server's fairslice metrics count the same requests and rejections, class by class.
 */
class NoRequestLostTest {

    private static final long LOAD_MS = 12_000;
    /**
     * The open model keeps 1 100-1 250 requests in flight, each on a connection of its own, on two cores it shares with
     * the server: past Tomcat's accept backlog a connection waits in the kernel's SYN retries (1, 3, 7, 15 s), and
     * with a 10 s connect timeout two CI runs of 2026-11-27 counted such connections, sent 9.3 s into the load, as
     * lost. A browser waits longer; so does this client. What it asserts is unchanged: every request is answered.
     */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);
    private static final Map<String, Double> RATE_PER_S = Map.of("/light", 250.0, "/light2", 50.0, "/heavy", 90.0);

    private static final List<String> SERVER_ARGS = List.of("--port", "0", "--policy", "share",
            "--document-size", "1MB",
            // classes fixed by rule, so that a page's class (and its 503s' class) cannot move during the run
            "--fairslice", "rule.1=heavy path=/heavy", "--fairslice", "adaptive=false",
            "--fairslice", "class.heavy.max-concurrency=2", "--fairslice", "class.heavy.queue-size=3",
            "--fairslice", "class.heavy.queue-timeout=300ms",
            "--fairslice", "class.light.max-concurrency=6", "--fairslice", "class.light.queue-size=6",
            "--fairslice", "class.light.queue-timeout=200ms");
    private static final List<String> SERVER_JVM = List.of("-XX:+UseSerialGC", "-Xms1g", "-Xmx1g");

    @Test
    void everyRequestOfAnOpenModelOverloadIsServedOrRejectedAndTheServerCountsTheSame() throws Exception {
        try (ForkedServer server = ForkedServer.start(null, SERVER_JVM, SERVER_ARGS)) {
            String base = "http://127.0.0.1:" + server.port();
            HttpClient client = newClient();
            Map<String, Counts> byPage = pages();
            List<String> errors = Collections.synchronizedList(new ArrayList<>());
            servePagesOnce(client, base, byPage, errors);
            AtomicInteger outstanding = new AtomicInteger();
            AtomicInteger peak = new AtomicInteger();

            // open model: one Poisson arrival stream over all pages, each arrival sent without waiting for others
            double total = RATE_PER_S.values().stream().mapToDouble(Double::doubleValue).sum();
            SplittableRandom random = new SplittableRandom(8);
            long start = System.nanoTime();
            long next = start;
            while (next - start < TimeUnit.MILLISECONDS.toNanos(LOAD_MS)) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                String page = pick(random, total);
                Counts c = byPage.get(page);
                c.sent.increment();
                outstanding.incrementAndGet();
                HttpRequest request = HttpRequest.newBuilder(URI.create(base + page)).timeout(RESPONSE_TIMEOUT)
                        .build();
                peak.accumulateAndGet(outstanding.get(), Math::max);
                long sentAt = System.nanoTime();
                client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                    // a failure says when it was sent, how long it took and how many were in flight: enough to tell
                    // a starved client or server from a lost request should one recur (one CI run, 2026-11-27)
                    record(c, e == null ? page : String.format("%s (sent at %d ms, failed after %d ms, %d in flight)",
                            page, (sentAt - start) / 1_000_000, (System.nanoTime() - sentAt) / 1_000_000,
                            outstanding.get()), r, e, errors);
                    outstanding.decrementAndGet();
                });
                next += (long) (-Math.log(1 - random.nextDouble()) / total * 1e9);
            }
            long sentMs = (System.nanoTime() - start) / 1_000_000;
            long deadline = System.nanoTime() + RESPONSE_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(10);
            while (outstanding.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(outstanding.get()).as("responses still missing 70 s after the last request").isZero();
            reconcile("open-model overload (at most " + peak.get() + " requests in flight)", sentMs, byPage, errors,
                    scrape(client, base + "/metrics"));
        }
    }

    @Test
    void everyRequestOfAClosedModelOverloadIsServedOrRejectedAndTheServerCountsTheSame() throws Exception {
        // closed model, as the study's clients: each client sends its next request when the last one is answered
        Map<String, Integer> clients = Map.of("/light", 24, "/light2", 6, "/heavy", 20);
        try (ForkedServer server = ForkedServer.start(null, SERVER_JVM, SERVER_ARGS)) {
            String base = "http://127.0.0.1:" + server.port();
            HttpClient client = newClient();
            Map<String, Counts> byPage = pages();
            List<String> errors = Collections.synchronizedList(new ArrayList<>());
            servePagesOnce(client, base, byPage, errors);
            long start = System.nanoTime();
            long end = start + TimeUnit.MILLISECONDS.toNanos(LOAD_MS / 2);
            List<Thread> threads = new ArrayList<>();
            for (var e : clients.entrySet()) {
                for (int i = 0; i < e.getValue(); i++) {
                    String page = e.getKey();
                    Counts c = byPage.get(page);
                    Thread t = new Thread(() -> {
                        HttpRequest request = HttpRequest.newBuilder(URI.create(base + page))
                                .timeout(RESPONSE_TIMEOUT).build();
                        while (System.nanoTime() < end) {
                            c.sent.increment();
                            try {
                                record(c, page, client.send(request, HttpResponse.BodyHandlers.discarding()), null,
                                        errors);
                            } catch (IOException ex) {
                                record(c, page, null, ex, errors);
                            } catch (InterruptedException ex) {
                                record(c, page, null, ex, errors);
                                return;
                            }
                        }
                    }, "closed-client-" + page + "-" + i);
                    threads.add(t);
                    t.start();
                }
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as("%s still waiting for a response", t.getName()).isFalse();
            }
            long sentMs = (System.nanoTime() - start) / 1_000_000;
            reconcile("closed-model overload (24 + 6 light, 20 heavy clients)", sentMs, byPage, errors,
                    scrape(client, base + "/metrics"));
        }
    }

    /**
     * One request per page before the load, counted with it: a page's route joins the table (and gets its page tag)
     * as its first request is served, and requests on a page not yet served, 503s of the first overload wave
     * included, count under page="other". Served once first, every page's requests reconcile page by page.
     */
    private static void servePagesOnce(HttpClient client, String base, Map<String, Counts> byPage,
                                       List<String> errors) throws IOException, InterruptedException {
        for (var e : byPage.entrySet()) {
            e.getValue().sent.increment();
            record(e.getValue(), e.getKey(), client.send(HttpRequest.newBuilder(URI.create(base + e.getKey()))
                    .timeout(RESPONSE_TIMEOUT).build(), HttpResponse.BodyHandlers.discarding()), null, errors);
        }
    }

    private static HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT)
                .build();
    }

    private static Map<String, Counts> pages() {
        Map<String, Counts> byPage = new TreeMap<>();
        RATE_PER_S.keySet().forEach(p -> byPage.put(p, new Counts()));
        return byPage;
    }

    /** One answer (or failure) as the client saw it. */
    private static void record(Counts c, String page, HttpResponse<?> r, Throwable e, List<String> errors) {
        if (e != null) {
            c.failed.increment();
            errors.add(page + ": " + e);
        } else if (r.statusCode() == 200) {
            c.ok.increment();
        } else if (r.statusCode() == 503) {
            c.rejected.increment();
            if (r.headers().firstValue("Retry-After").isEmpty()) {
                errors.add(page + ": 503 without Retry-After");
            }
        } else {
            c.failed.increment();
            errors.add(page + ": status " + r.statusCode());
        }
    }

    /**
     * Client sent = 200 + 503 per page; the server's success and rejected counts per page, the class of every
     * request, and the rejections per class all equal the client's; nothing in flight afterwards.
     */
    private static void reconcile(String what, long sentMs, Map<String, Counts> byPage, List<String> errors,
                                  Map<String, Double> metrics) {
        long clientSent = 0;
        StringBuilder table = new StringBuilder();
        for (var e : byPage.entrySet()) {
            Counts c = e.getValue();
            clientSent += c.sent.sum();
            table.append(String.format("  %-7s sent %5d = 200 %5d + 503 %5d (+ failed %d); server: success %5.0f,"
                            + " rejected %5.0f%n", e.getKey(), c.sent.sum(), c.ok.sum(), c.rejected.sum(),
                    c.failed.sum(), metrics.getOrDefault(key("success", e.getKey()), 0.0),
                    metrics.getOrDefault(key("rejected", e.getKey()), 0.0)));
        }
        System.out.printf("%s, %d requests in %d ms (%.0f/s):%n%s  server rejections by class: %s%n", what,
                clientSent, sentMs, clientSent * 1000.0 / sentMs, table, rejectionsByClass(metrics));

        assertThat(errors).as("requests neither served nor rejected").isEmpty();
        long light503 = 0;
        long heavy503 = 0;
        for (var e : byPage.entrySet()) {
            Counts c = e.getValue();
            String page = e.getKey();
            assertThat(c.ok.sum() + c.rejected.sum()).as("%s: 200 + 503 = sent", page).isEqualTo(c.sent.sum());
            assertThat(metrics.getOrDefault(key("success", page), 0.0)).as("%s: server successes", page)
                    .isEqualTo((double) c.ok.sum());
            assertThat(metrics.getOrDefault(key("rejected", page), 0.0)).as("%s: server rejections", page)
                    .isEqualTo((double) c.rejected.sum());
            for (String other : List.of("client_error", "server_error")) {
                assertThat(metrics.getOrDefault(key(other, page), 0.0)).as("%s %s", page, other).isZero();
            }
            if (page.equals("/heavy")) {
                heavy503 += c.rejected.sum();
            } else {
                light503 += c.rejected.sum();
            }
        }
        for (String page : RATE_PER_S.keySet()) {
            String cls = page.equals("/heavy") ? "heavy" : "light";
            assertThat(metrics.getOrDefault("class " + cls + " " + page, 0.0)).as("%s requests of class %s", page,
                    cls).isEqualTo((double) byPage.get(page).sent.sum());
        }
        Map<String, Double> rejections = rejectionsByClass(metrics);
        assertThat(rejections.getOrDefault("heavy", 0.0)).as("fairslice_rejections_total, heavy")
                .isEqualTo((double) heavy503);
        assertThat(rejections.getOrDefault("light", 0.0)).as("fairslice_rejections_total, light")
                .isEqualTo((double) light503);
        assertThat(heavy503).as("the heavy class was overloaded (else this proves little)").isPositive();
        assertThat(metrics.getOrDefault("inflight heavy", -1.0)).as("heavy requests in flight after the run")
                .isZero();
        assertThat(metrics.getOrDefault("inflight light", -1.0)).as("light requests in flight after the run (the "
                + "scrape itself is served outside the application, not through the filter)").isZero();
    }

    static final class Counts {
        final LongAdder sent = new LongAdder();
        final LongAdder ok = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder failed = new LongAdder();
    }

    private static String pick(SplittableRandom random, double total) {
        double x = random.nextDouble() * total;
        for (var e : new TreeMap<>(RATE_PER_S).entrySet()) {
            x -= e.getValue();
            if (x < 0) {
                return e.getKey();
            }
        }
        return "/light";
    }

    private static String key(String outcome, String page) {
        return outcome + " " + page;
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)\\{([^}]*)}\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");

    /**
     * The server's counts from its Prometheus text: "outcome page" from fairslice_requests_seconds_count, "reject
     * class" from fairslice_rejections_total, "inflight class" from fairslice_requests_inflight.
     */
    private static Map<String, Double> scrape(HttpClient client, String url) throws IOException, InterruptedException {
        String text = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<String, Double> out = new ConcurrentHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new TreeMap<>();
            Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            double v = Double.parseDouble(m.group(3));
            switch (m.group(1)) {
                case "fairslice_requests_seconds_count" -> {
                    out.merge(key(labels.get("outcome"), labels.get("page")), v, Double::sum);
                    out.merge("class " + labels.get("class") + " " + labels.get("page"), v, Double::sum);
                }
                case "fairslice_rejections_total" -> out.merge("reject " + labels.get("class"), v, Double::sum);
                case "fairslice_requests_inflight" -> out.merge("inflight " + labels.get("class"), v, Double::sum);
                default -> {
                }
            }
        }
        return out;
    }

    private static Map<String, Double> rejectionsByClass(Map<String, Double> metrics) {
        Map<String, Double> out = new TreeMap<>();
        metrics.forEach((k, v) -> {
            if (k.startsWith("reject ")) {
                out.put(k.substring(7), v);
            }
        });
        return out;
    }
}
