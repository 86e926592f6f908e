package io.fairslice.dashboards;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A short closed-loop load on loopback: a few clients per page, each sending its next request when the previous one
 * is answered, until a deadline or a request budget runs out.
 */
final class StudyLoad {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, LongAdder> responses = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

    /**
     * Runs {@code clientsPerPage} clients against each page of {@code baseUri} for at most {@code duration} and at
     * most {@code maxRequestsPerClient} requests each; returns responses counted by "page status".
     */
    Map<String, Long> run(URI baseUri, Map<String, Integer> clientsPerPage, Duration duration,
                          int maxRequestsPerClient) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> clients = new ArrayList<>();
        clientsPerPage.forEach((page, count) -> {
            for (int i = 0; i < count; i++) {
                Thread client = new Thread(() -> loop(baseUri.resolve(page), page, deadline, maxRequestsPerClient),
                        "load " + page + " #" + i);
                client.setDaemon(true);
                clients.add(client);
            }
        });
        clients.forEach(Thread::start);
        for (Thread client : clients) {
            client.join(duration.plusSeconds(30).toMillis());
            if (client.isAlive()) {
                throw new IllegalStateException(client.getName() + " did not stop 30 s after the load's end");
            }
        }
        Map<String, Long> counts = new TreeMap<>();
        responses.forEach((key, adder) -> counts.put(key, adder.sum()));
        failures.forEach((key, adder) -> counts.put(key, adder.sum()));
        return counts;
    }

    private void loop(URI uri, String page, long deadline, int maxRequests) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build();
        for (int i = 0; i < maxRequests && System.nanoTime() < deadline; i++) {
            try {
                HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
                responses.computeIfAbsent(page + " " + response.statusCode(), k -> new LongAdder()).increment();
            } catch (IOException e) {
                failures.computeIfAbsent(page + " " + e.getClass().getSimpleName(), k -> new LongAdder())
                        .increment();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
