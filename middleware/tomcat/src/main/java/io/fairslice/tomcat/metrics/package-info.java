/**
 * Prometheus metrics for a standalone Tomcat: {@link io.fairslice.tomcat.metrics.BundleMetrics} is the one
 * registry in Tomcat's common class loader that the middleware of every web application feeds (through
 * Micrometer's global registry, relocated inside the bundle jar), and
 * {@link io.fairslice.tomcat.metrics.MetricsServlet} serves it in fairslice's own small web application, only to
 * clients on this host unless a connector port is opened for it.
 */
package io.fairslice.tomcat.metrics;
