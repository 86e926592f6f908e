package io.fairslice.middleware.spi;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;

/** What a {@link RequestListener} gets when the middleware starts. */
public interface ListenerContext {

    /** The configured request class names, in configuration order: the only values of a {@code class} tag. */
    List<String> requestClasses();

    /** The registry the middleware publishes to; listeners bind their meters here. */
    MeterRegistry meterRegistry();

    /** This listener's settings, keys without the {@code <name>.} prefix; only names it declared. */
    Map<String, String> settings();
}
