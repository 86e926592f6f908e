package io.fairslice.middleware.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.spi.RequestListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Whatever a listener throws stays out of the request, except the JVM's own failure. */
class GuardedListenersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t; // what Kotlin or Lombok's @SneakyThrows do: a checked exception the signature does not declare
    }

    /** A listener named {@code name} that runs {@code action} on every call. */
    private static RequestListener listener(String name, Consumer<String> action) {
        return new RequestListener() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void enter(String requestClass) {
                action.accept("enter");
            }

            @Override
            public void exit(String requestClass) {
                action.accept("exit");
            }

            @Override
            public void move(String from, String to) {
                action.accept("move");
            }
        };
    }

    private GuardedListeners start(RequestListener... listeners) {
        return GuardedListeners.start(List.of(listeners), FairsliceConfig.parse(Map.of()), registry, "/");
    }

    private double failures(String name) {
        return registry.get("fairslice.listener.failures").tag("listener", name).functionCounter().count();
    }

    @Test
    void shouldDisableAListenerThatThrowsAnErrorOrAnUndeclaredCheckedException() {
        GuardedListeners g = start(listener("sneaky", w -> sneakyThrow(new IOException("sneaky " + w))),
                listener("asserting", w -> {
                    throw new AssertionError("asserting " + w);
                }));

        g.enter("light");
        g.move("light", "heavy");
        g.exit("heavy");

        assertThat(g.disabled(0)).isTrue();
        assertThat(g.disabled(1)).isTrue();
        assertThat(failures("sneaky")).isEqualTo(1);
        assertThat(failures("asserting")).isEqualTo(1);
    }

    @Test
    void shouldLetTheJvmsOwnFailureThroughAfterDisablingTheListener() {
        GuardedListeners g = start(listener("deep", w -> {
            throw new StackOverflowError("deep " + w);
        }));

        assertThatThrownBy(() -> g.enter("light")).isInstanceOf(StackOverflowError.class);
        assertThat(g.disabled(0)).isTrue();
        g.exit("light"); // disabled: not called again
    }
}
