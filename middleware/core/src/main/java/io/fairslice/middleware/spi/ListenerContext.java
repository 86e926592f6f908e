package io.fairslice.middleware.spi;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;

/** What a {@link RequestListener} gets when the middleware starts. */
public interface ListenerContext {

    /** The configured request class names, in configuration order: the only values of a {@code class} tag. */
    List<String> requestClasses();

    /**
     * The registry the middleware publishes to; listeners bind their meters here, each tagged
     * {@code application=}{@link #application()}, and remove them in {@link RequestListener#stop()}: in a standalone
     * Tomcat several applications share this registry.
     */
    MeterRegistry meterRegistry();

    /**
     * The web application's name: its servlet context path, {@code /} for the root context, unless another running
     * application in this JVM has that name already (another host's, a parallel deployment: then {@code host/path} or
     * {@code path#2}, as the filter logs); the value of the {@code application} tag
     * ({@code io.fairslice.middleware.metrics.MeterNames.TAG_APPLICATION}) on every meter.
     */
    String application();

    /** This listener's settings, keys without the {@code <name>.} prefix; only names it declared. */
    Map<String, String> settings();
}
