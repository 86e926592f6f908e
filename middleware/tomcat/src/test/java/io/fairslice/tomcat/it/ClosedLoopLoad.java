package io.fairslice.tomcat.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Closed-loop clients without think time, as in the overload study: each client thread sends its next request as
 * soon as the previous one is answered. Counts answers by page and status while a window is open, so that one run
 * of clients can be measured in several windows (policies switched between them).
 */
final class ClosedLoopLoad implements AutoCloseable {

    /** Counts for one page. */
    static final class Counts {
        final LongAdder ok = new LongAdder();
        final LongAdder failed = new LongAdder();
    }

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private volatile Counts lightCounts = new Counts();
    private volatile Counts heavyCounts = new Counts();

    ClosedLoopLoad(int port, String lightPath, int lightClients, String heavyPath, int heavyClients) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        for (int i = 0; i < lightClients; i++) {
            threads.add(client(http, port, lightPath, true, i));
        }
        for (int i = 0; i < heavyClients; i++) {
            threads.add(client(http, port, heavyPath, false, i));
        }
        threads.forEach(Thread::start);
    }

    private Thread client(HttpClient http, int port, String path, boolean light, int n) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).GET().build();
        Thread t = new Thread(() -> {
            while (running.get()) {
                Counts counts = light ? lightCounts : heavyCounts;
                try {
                    HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
                    (r.statusCode() == 200 ? counts.ok : counts.failed).increment();
                } catch (IOException e) {
                    if (running.get()) {
                        counts.failed.increment();
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, (light ? "light-" : "heavy-") + n);
        t.setDaemon(true);
        return t;
    }

    /** Result of one window. */
    record Window(long lightOk, long lightFailed, long heavyOk, long heavyFailed, double seconds) {
        double lightPerSecond() {
            return lightOk / seconds;
        }

        double heavyPerSecond() {
            return heavyOk / seconds;
        }
    }

    /** Counts what completes in the next {@code seconds} seconds. */
    Window measure(double seconds) throws InterruptedException {
        Counts light = new Counts();
        Counts heavy = new Counts();
        lightCounts = light;
        heavyCounts = heavy;
        long start = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        lightCounts = new Counts();
        heavyCounts = new Counts();
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Window(light.ok.sum(), light.failed.sum(), heavy.ok.sum(), heavy.failed.sum(), elapsed);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(70_000);
        }
    }
}
