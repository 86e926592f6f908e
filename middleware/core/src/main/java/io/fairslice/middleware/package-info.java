/**
 * The middleware's API: {@link io.fairslice.middleware.Fairslice#yieldPoint()} for application code,
 * {@link io.fairslice.middleware.FairsliceFilter} and {@link io.fairslice.middleware.FairsliceInitializer} for the
 * container, and {@link io.fairslice.middleware.FairsliceConfig} with its exception. Implementations live in the
 * subpackages: config, classify, schedule, metrics, jmx, internal; extension points in spi.
 */
package io.fairslice.middleware;
