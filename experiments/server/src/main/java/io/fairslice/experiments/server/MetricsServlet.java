package io.fairslice.experiments.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Set;

/**
 * Serves the registry in the format the scraper asks for (Prometheus text, OpenMetrics or protobuf). Like Prometheus's
 * own exporters it takes {@code name[]} parameters that select metric families
 * ({@code ?name%5B%5D=fairslice_requests_cpu_seconds} for the samples {@code fairslice_requests_cpu_seconds_total}):
 * the study's harness reads one meter every second.
 */
final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final transient PrometheusMeterRegistry registry;
    private final transient ExpositionFormats formats = ExpositionFormats.init();

    MetricsServlet(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ExpositionFormatWriter writer = formats.findWriter(request.getHeader("Accept"));
        response.setContentType(writer.getContentType());
        response.setHeader("Cache-Control", "no-store");
        String[] names = request.getParameterValues("name[]");
        Set<String> included = names == null ? null : Set.copyOf(Arrays.asList(names));
        try (OutputStream out = response.getOutputStream()) {
            writer.write(out, included == null ? registry.getPrometheusRegistry().scrape()
                    : registry.getPrometheusRegistry().scrape(included::contains));
        }
    }
}
