package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.metrics.MeterNames;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/dashboards.md, "The meters", names the metric families the middleware exports, as Prometheus scrapes them:
 * what dashboards, recording rules and alerts query. The filter runs in an embedded Tomcat on a Prometheus registry
 * (the kind the Tomcat bundle serves at /fairslice/metrics), serves a request of each class, one of them with a task
 * on another thread ({@code Fairslice.task}), refuses one with a 503, and the families of the scrape must be the
 * table's names, both ways. Until 2026-12-02 it matched the meter names of MeterNames against the table with any
 * unit suffix, so a meter could lose its base unit unnoticed: {@code fairslice_requests_cpu_total} exported where the
 * docs, the dashboards and the alerts say {@code fairslice_requests_cpu_seconds_total}. This short run exports every
 * family, so none is left out of the comparison: all meters but a page's are registered as the application starts
 * (the listener failure counters for the test class path's request listeners), a page's as its first request of a
 * class ends.
 */
class MeterDocumentationTest {

    /** The light page: a task of the request on another thread, joined before it answers. */
    static final class WithTask extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Thread worker = new Thread(Fairslice.task(() -> FairsliceFilterTest.burnCpu(1)));
            worker.start();
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            resp.getWriter().write("done");
        }
    }

    @Test
    void shouldExportExactlyTheFamiliesTheDashboardsGuideNames() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FairsliceFilterTest.Blocking heavy = new FairsliceFilterTest.Blocking(); // holds heavy's one permit
        try (EmbeddedTomcat t = new EmbeddedTomcat("/meters", Map.of("fairslice.rule.1", "heavy path=/heavy",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0"), registry)
                .servlet("/light", new WithTask(), false).servlet("/heavy", heavy, false).start()) {
            assertThat(t.get("/light").statusCode()).isEqualTo(200);
            CompletableFuture<HttpResponse<String>> held = NewThread.supply(
                    () -> FairsliceFilterTest.get(t, "/heavy"));
            assertThat(heavy.entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(t.get("/heavy").statusCode()).as("heavy's permit held, no queue").isEqualTo(503);
            heavy.release.countDown();
            assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            FairsliceFilterTest.eventually(() -> assertThat(registry.find(MeterNames.REQUESTS).timers().stream()
                    .mapToLong(Timer::count).sum()).as("the three requests counted").isEqualTo(3));

            assertThat(families(registry.scrape()))
                    .as("families in the scrape (actual) against docs/dashboards.md's table of meters")
                    .containsExactlyInAnyOrderElementsOf(documentedFamilies());
        }
    }

    /** The family names of a scrape in Prometheus's text format: those of its TYPE lines. */
    private static Set<String> families(String scrape) {
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^# TYPE (\\S+) \\S+$").matcher(scrape);
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).as("a scrape with families").isNotEmpty();
        return names;
    }

    /** The names in the first column of the table in the section "The meters" of docs/dashboards.md. */
    private static Set<String> documentedFamilies() throws IOException {
        String doc = Files.readString(Path.of("..", "..", "docs", "dashboards.md"));
        int start = doc.indexOf("## The meters");
        assertThat(start).as("docs/dashboards.md has a section \"The meters\"").isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        Set<String> names = new TreeSet<>();
        Pattern name = Pattern.compile("`(fairslice_[a-z_]+)`");
        for (String row : doc.substring(start, end < 0 ? doc.length() : end).lines().toList()) {
            if (row.startsWith("| `")) {
                Matcher m = name.matcher(row.substring(1, row.indexOf('|', 1)));
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        assertThat(names).as("names in the table").hasSizeGreaterThan(20);
        return names;
    }
}
