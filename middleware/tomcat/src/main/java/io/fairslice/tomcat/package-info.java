/**
 * fairslice in a standalone Tomcat: the glue that ships inside the jar the installer puts into
 * {@code $CATALINA_BASE/lib}. {@link io.fairslice.tomcat.TomcatInitializer} is the container-wide initializer that
 * turns the middleware on for the configured web applications ({@link io.fairslice.tomcat.TomcatSettings});
 * {@link io.fairslice.tomcat.TomcatLayout} names the files the installer writes and this code reads;
 * {@link io.fairslice.tomcat.TcpPorts} and {@link io.fairslice.tomcat.IpLiterals} are the one rule each for a port and
 * an IP literal, which the installer and the metrics endpoint both read. The metrics endpoint is in {@code metrics},
 * the installer in {@code install}. docs/tomcat.md explains the packaging.
 */
package io.fairslice.tomcat;
