/**
 * Configuration: the list of keys ({@link io.fairslice.middleware.config.ConfigKeys}, checked against
 * docs/configuration.md by a test), the parser that validates them into one immutable
 * {@link io.fairslice.middleware.FairsliceConfig}, and the sources it merges (properties file, context and filter
 * parameters, system properties). {@link io.fairslice.middleware.config.BootPropertyFiles} finds the
 * {@code fairslice.*} keys of a WAR's Spring Boot property files, which none of those sources is, for the filter's
 * warning when nothing hands them over.
 */
package io.fairslice.middleware.config;
