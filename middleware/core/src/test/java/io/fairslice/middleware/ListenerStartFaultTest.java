package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A request listener (the kernel probe's SPI) that fails to start must not take the application down. */
class ListenerStartFaultTest {

    @Test
    void shouldStartAndServeWhenAListenerFailsToStartWithoutASettingError() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/startfail", Map.of("fairslice.faulty.fail-start", "true"),
                registry).servlet("/x", new FaultToleranceTest.Hello(), false).start()) {
            assertThat(t.get("/x").statusCode()).as("the application is up").isEqualTo(200);
            assertThat(registry.get("fairslice.listener.failures").tag("listener", "faulty").functionCounter().count())
                    .as("the listener is disabled and counted").isEqualTo(1);
        }
    }
}
