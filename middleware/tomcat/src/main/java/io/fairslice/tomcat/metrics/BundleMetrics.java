package io.fairslice.tomcat.metrics;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The one Prometheus registry of a standalone Tomcat, created on first use and added to the (relocated) global
 * registry, where the middleware of every selected web application registers its meters. It lives in Tomcat's
 * common class loader for as long as Tomcat runs, so it outlives redeployments and holds no web application's
 * classes. With the JVM meters the embedded study server also publishes, so that dashboards work on both.
 */
public final class BundleMetrics {

    private static PrometheusMeterRegistry registry;

    private BundleMetrics() {
    }

    /** The registry, created (and bound to the global registry) on the first call. */
    public static synchronized PrometheusMeterRegistry prometheus() {
        if (registry == null) {
            PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new JvmMemoryMetrics().bindTo(r);
            new JvmGcMetrics().bindTo(r);
            new JvmThreadMetrics().bindTo(r);
            new ProcessorMetrics().bindTo(r);
            Metrics.addRegistry(r);
            registry = r;
        }
        return registry;
    }
}
