/**
 * Configuration: the list of keys ({@link io.fairslice.middleware.config.ConfigKeys}, checked against
 * docs/configuration.md by a test), the parser that validates them into one immutable
 * {@link io.fairslice.middleware.FairsliceConfig}, and the sources it merges (properties file, context and filter
 * parameters, system properties).
 */
package io.fairslice.middleware.config;
