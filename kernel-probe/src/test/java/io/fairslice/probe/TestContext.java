package io.fairslice.probe;

import io.fairslice.middleware.spi.ListenerContext;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;

/** What the middleware hands a listener, built by hand. */
record TestContext(List<String> requestClasses, MeterRegistry meterRegistry, Map<String, String> settings,
                   String application) implements ListenerContext {

    /** For the root application ({@code /}). */
    TestContext(List<String> requestClasses, MeterRegistry meterRegistry, Map<String, String> settings) {
        this(requestClasses, meterRegistry, settings, "/");
    }
}
