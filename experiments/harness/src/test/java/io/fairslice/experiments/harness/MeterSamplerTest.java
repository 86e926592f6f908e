package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.fairslice.experiments.server.ProcCpu;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The meter sampler against a stand-in for the study server's /metrics; the process it reads /proc of is this one. */
class MeterSamplerTest {

    /**
     * A /metrics line it cannot read (no page label) ended the sampler's thread without a word, and every later
     * window's light and heavy CPU read NaN: now it says so once and goes on sampling.
     */
    @Test
    @Timeout(30)
    void shouldSayOnceWhatItCouldNotReadAndGoOnSampling() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        HttpServer metrics = metrics(exchange -> {
            int n = scrapes.incrementAndGet();
            String body = n <= 2 ? "fairslice_requests_cpu_seconds_total{class=\"light\"} 1.0\n"
                    : n <= 4 ? "not here\n" // then two answered 404: said already, not again
                    : "fairslice_requests_cpu_seconds_total{class=\"light\",page=\"/light\"} " + (0.01 * n) + "\n";
            answer(exchange, n > 2 && n <= 4 ? 404 : 200, body);
        });
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        try (MeterSampler sampler = sampler(metrics, warnings)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            waitFor(scrapes, 5, deadline);
            long from = System.currentTimeMillis(); // a window after the scrapes it could not read
            // its end once the tenth scrape has begun, when the ninth's sample is taken (the sampler scrapes one at a
            // time): ended as the ninth began, a window whose ninth scrape a loaded machine answered late (300 ms)
            // had that sample after its end, its samples spanned less than the half part() needs, and it read NaN
            waitFor(scrapes, 10, deadline);
            long to = System.currentTimeMillis();

            assertThat(scrapes.get()).as("scrapes after four it could not read").isGreaterThanOrEqualTo(10);
            // not NaN first: isPositive() lets NaN by (AssertJ compares with Double.compare, which puts NaN above 0)
            assertThat(sampler.part(from, to, List.of("/light"))).as("the light page's part").isNotNaN().isPositive();
        } finally {
            metrics.stop(0);
        }
        String said = warnings.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("the meter sampler could not read").contains("no page label in the /metrics line: "
                + "fairslice_requests_cpu_seconds_total{class=\"light\"} 1.0");
        assertThat(said.lines()).as("said once").hasSize(1);
    }

    /**
     * A page the load names twice ({@code lightPaths = /light,/light,/light2}, /light weighed double) is one page of
     * the server's: its CPU was summed once per name, and the light pages' part read twice /light's.
     */
    @Test
    @Timeout(30)
    void shouldCountAPageNamedTwiceOnce() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        HttpServer metrics = metrics(exchange -> {
            int n = scrapes.incrementAndGet();
            String body = "fairslice_requests_cpu_seconds_total{class=\"light\",page=\"/light\"} " + (0.01 * n)
                    + "\nfairslice_requests_cpu_seconds_total{class=\"light\",page=\"/light2\"} " + (0.02 * n) + "\n";
            answer(exchange, 200, body);
        });
        try (MeterSampler sampler = sampler(metrics, new ByteArrayOutputStream())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long from = System.currentTimeMillis();
            waitFor(scrapes, 5, deadline);
            long to = System.currentTimeMillis();
            // the scrape under way at the window's end may take its sample inside it: the next has begun once it has
            waitFor(scrapes, scrapes.get() + 1, deadline);

            double once = sampler.part(from, to, List.of("/light", "/light2"));
            assertThat(once).as("the light pages' part").isNotNaN().isPositive();
            assertThat(sampler.part(from, to, List.of("/light", "/light", "/light2"))).isEqualTo(once);
        } finally {
            metrics.stop(0);
        }
    }

    /**
     * The server's CPU is read in /proc's ticks at the host's rate, the one the CPU sampler uses: the meter sampler
     * took 100 a second whatever getconf CLK_TCK said, and on a 250 Hz USER_HZ read the pages' part 2.5 times low.
     */
    @Test
    void shouldReadTheServersTicksAtTheGivenRate() {
        MeterSampler.Sample first = new MeterSampler.Sample(0, Map.of("/light", 1.0, "/heavy", 2.0), 1000);
        MeterSampler.Sample last = new MeterSampler.Sample(1000, Map.of("/light", 1.5, "/heavy", 2.2), 1250);

        assertThat(MeterSampler.part(first, last, List.of("/light"), 250)).as("0.5 s of the server's 1 s")
                .isCloseTo(0.5, within(1e-9));
        assertThat(MeterSampler.part(first, last, List.of("/heavy"), 100)).as("0.2 s of the server's 2.5 s")
                .isCloseTo(0.08, within(1e-9));
    }

    /** A /metrics that answered another status than 200 (404: a server without it) was passed over in silence. */
    @Test
    @Timeout(30)
    void shouldSayWhenTheMetricsAnswerAnotherStatus() throws Exception {
        AtomicInteger scrapes = new AtomicInteger();
        HttpServer metrics = metrics(exchange -> {
            scrapes.incrementAndGet();
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        try (MeterSampler sampler = sampler(metrics, warnings)) {
            waitFor(scrapes, 3, System.nanoTime() + TimeUnit.SECONDS.toNanos(15));
        } finally {
            metrics.stop(0);
        }
        String said = warnings.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("the meter sampler could not read").contains("it answered 404");
        assertThat(said.lines()).as("said once").hasSize(1);
    }

    /** A stand-in for the study server's /metrics on loopback, started, answering with {@code answer}. */
    private static HttpServer metrics(HttpHandler answer) throws IOException {
        HttpServer metrics = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        metrics.createContext("/metrics", answer);
        metrics.start();
        return metrics;
    }

    /** Answers a scrape with {@code status} and {@code body}. */
    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A sampler of this process and {@code metrics}, its warnings written to {@code warnings}. */
    private static MeterSampler sampler(HttpServer metrics, ByteArrayOutputStream warnings) {
        return new MeterSampler(ProcessHandle.current().pid(), "http://127.0.0.1:" + metrics.getAddress().getPort(),
                ProcCpu.TICKS_PER_SECOND, new PrintStream(warnings, true, StandardCharsets.UTF_8));
    }

    /**
     * Waits until {@code count} reaches {@code target} or the deadline passes, using a little CPU as it goes (10 ms of
     * every 100): the samples divide by this process's CPU time, which must grow between them.
     */
    private static void waitFor(AtomicInteger count, int target, long deadline) throws InterruptedException {
        while (count.get() < target && System.nanoTime() < deadline) {
            long busyUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
            while (System.nanoTime() < busyUntil) {
                Thread.onSpinWait();
            }
            Thread.sleep(90);
        }
    }
}
