/**
 * The study application in embedded Tomcat 11 with Prometheus metrics: {@code ./fairslice serve}, and the server
 * process the study harness starts for each configuration.
 */
package io.fairslice.experiments.server;
