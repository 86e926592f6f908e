/**
 * What the middleware publishes through Micrometer: {@link io.fairslice.middleware.metrics.MeterNames} holds every
 * meter name and tag (dashboards are built from it); the binder registers the meters once per web application and
 * the hot paths record through pre-registered meters only.
 */
package io.fairslice.middleware.metrics;
