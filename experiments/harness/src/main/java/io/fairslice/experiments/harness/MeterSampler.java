package io.fairslice.experiments.harness;

import io.fairslice.experiments.server.ProcCpu;
import io.fairslice.experiments.server.RequestCpu;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Samples, every second, fairslice's CPU meter by page ({@link RequestCpu}: the request threads' CPU inside its
 * filter) from the server's /metrics, and the server's CPU time from /proc, so that the light and the heavy pages' part
 * of the server's CPU in a window can be computed once the window is known (as {@link CpuSampler} does for the
 * core's shares). It asks for that one meter only ({@code name[]}); a scrape costs the server about 1.5 ms of CPU
 * all the same (2.6 ms against 1.1 ms for a request of a missing page, each on a new connection, 2026-11-26; a whole
 * scrape 3.7 ms): 0.15 % of its core. Scrapes go to the server's /metrics context, which fairslice neither measures
 * nor queues.
 */
final class MeterSampler implements AutoCloseable {

    /** The meter's family (its samples are {@code ..._total}); Tomcat refuses an unencoded {@code []}. */
    static final String QUERY = "?name%5B%5D=fairslice_requests_cpu_seconds";
    private static final long PERIOD_MILLIS = 1000;

    /** A sample's time and server CPU are the midpoints of the scrape's. */
    record Sample(long epochMillis, Map<String, Double> pages, double serverTicks) {
    }

    private final long pid;
    private final long ticksPerSecond;
    private final URI uri;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private final PrintStream warnings;
    /** Whether a failed scrape was reported: once per sampler, not once a second. */
    private boolean warned;
    private volatile boolean running = true;

    /** {@code ticksPerSecond}: the unit of /proc's CPU times ({@link ProcCpu#TICKS_PER_SECOND}). */
    MeterSampler(long pid, String baseUrl, long ticksPerSecond) {
        this(pid, baseUrl, ticksPerSecond, System.err);
    }

    /** A sampler that reports a scrape it could not read to {@code warnings}. */
    MeterSampler(long pid, String baseUrl, long ticksPerSecond, PrintStream warnings) {
        this.pid = pid;
        this.ticksPerSecond = ticksPerSecond;
        this.warnings = warnings;
        this.uri = URI.create(baseUrl + "/metrics" + QUERY);
        this.thread = new Thread(this::loop, "fairslice-meter-sampler");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            try {
                long t0 = System.currentTimeMillis();
                long ticks0 = ProcCpu.ticks(pid);
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                        .header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
                long ticks1 = ProcCpu.ticks(pid);
                long t1 = System.currentTimeMillis();
                if (response.statusCode() == 200) {
                    Map<String, Double> pages = RequestCpu.byPage(response.body());
                    synchronized (samples) {
                        samples.add(new Sample((t0 + t1) / 2, pages, (ticks0 + ticks1) / 2.0));
                    }
                } else {
                    warnOnce("it answered " + response.statusCode());
                }
                Thread.sleep(PERIOD_MILLIS);
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return;
                }
                // a /metrics line RequestCpu cannot read (IllegalArgumentException, naming it): uncaught, it ended
                // the thread without a word, and every later window's page CPU read NaN; a timeout, a refused
                // connection (a server that died) left the same gaps without a word
                warnOnce(e.toString());
                try {
                    Thread.sleep(PERIOD_MILLIS); // the server is gone or busy: the windows it spoils read NaN
                } catch (InterruptedException ie) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void warnOnce(String why) {
        if (!warned) {
            warned = true;
            warnings.println("fairslice study: the meter sampler could not read " + uri + ": " + why
                    + " (the windows without a sample have no light / heavy CPU; it goes on sampling)");
        }
    }

    /**
     * The pages' CPU over the server's in [from, to) (epoch ms), between the first and the last sample inside it; NaN
     * without fairslice's meter (the baseline, a peer), or when those samples span less than half the window. A page
     * named twice counts once: {@code lightPaths = /light,/light,/light2} weighs the load towards /light, and summed
     * per name the light pages' part counted /light's CPU twice (above the server's whole CPU with one light page).
     */
    double part(long fromEpochMillis, long toEpochMillis, List<String> pages) {
        List<Sample> ends = CpuSampler.ends(samples, Sample::epochMillis, fromEpochMillis, toEpochMillis);
        if (ends.isEmpty()) {
            return Double.NaN;
        }
        Sample first = ends.get(0);
        Sample last = ends.get(1);
        if (2 * (last.epochMillis - first.epochMillis) < toEpochMillis - fromEpochMillis) {
            return Double.NaN;
        }
        return part(first, last, pages, ticksPerSecond);
    }

    /**
     * The pages' CPU between two samples over the server's, its ticks read at {@code ticksPerSecond}; NaN without the
     * meter or the server's CPU.
     */
    static double part(Sample first, Sample last, List<String> pages, long ticksPerSecond) {
        if (first.pages.isEmpty() || last.pages.isEmpty() || last.serverTicks <= first.serverTicks) {
            return Double.NaN;
        }
        double seconds = 0;
        for (String page : new LinkedHashSet<>(pages)) {
            seconds += last.pages.getOrDefault(page, 0.0) - first.pages.getOrDefault(page, 0.0);
        }
        return seconds / ((last.serverTicks - first.serverTicks) / ticksPerSecond);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
