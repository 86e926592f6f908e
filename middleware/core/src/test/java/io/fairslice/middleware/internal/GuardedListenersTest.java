package io.fairslice.middleware.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.LogCapture;
import io.fairslice.middleware.spi.ListenerContext;
import io.fairslice.middleware.spi.RequestListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whatever a listener throws stays out of the request, except the JVM's own failure. */
class GuardedListenersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t; // what Kotlin or Lombok's @SneakyThrows do: a checked exception the signature does not declare
    }

    /** A listener named {@code name} that runs {@code action} on every call. */
    private static RequestListener listener(String name, Consumer<String> action) {
        return listener(name, action, () -> true);
    }

    /**
     * A listener named {@code name} that runs {@code action} on every call; {@code start}: what its start does (says
     * whether it works, or throws).
     */
    private static RequestListener listener(String name, Consumer<String> action, BooleanSupplier start) {
        return new RequestListener() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean start(ListenerContext context) {
                return start.getAsBoolean();
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

    /**
     * The JVM failing in one listener's call does not keep the call from the listeners after it: the filter's cleanup
     * tells all of them the exit, so one left out of the enter would be told an exit it never entered (the kernel
     * probe would end a request's interval that it never began).
     */
    @Test
    void shouldTellTheOtherListenersBeforeTheJvmsOwnFailureGoesOnUp() {
        List<String> calls = new CopyOnWriteArrayList<>();
        GuardedListeners g = start(listener("deep", w -> {
            throw new StackOverflowError("deep " + w);
        }), listener("sneaky", w -> sneakyThrow(new IOException("sneaky " + w))), listener("after", calls::add));

        assertThatThrownBy(() -> g.enter("light")).isInstanceOf(StackOverflowError.class);
        g.move("light", "heavy");
        g.exit("heavy");

        assertThat(calls).containsExactly("enter", "move", "exit");
        assertThat(g.disabled(0)).isTrue();
        assertThat(g.disabled(1)).isTrue();
        assertThat(g.disabled(2)).isFalse();
        assertThat(failures("deep")).isEqualTo(1);
        assertThat(failures("sneaky")).isEqualTo(1);
    }

    /**
     * A start that throws anything but a setting error, an Error or a checked exception thrown undeclared too, leaves
     * the application running without that listener (only a RuntimeException was caught: an AssertionError stopped
     * the application's start and left the filter's scheduler and meters behind).
     */
    @Test
    void shouldRunWithoutAListenerWhoseStartThrowsAnErrorOrAnUndeclaredCheckedException() {
        List<String> calls = new CopyOnWriteArrayList<>();
        RequestListener asserting = listener("asserting", calls::add, () -> {
            throw new AssertionError("a probe's self-check");
        });
        RequestListener sneaky = listener("sneaky", calls::add, () -> {
            sneakyThrow(new IOException("no /proc"));
            return true;
        });

        GuardedListeners g = start(asserting, sneaky, listener("working", calls::add));
        g.enter("light");

        assertThat(g.disabled(0)).isTrue();
        assertThat(g.disabled(1)).isTrue();
        assertThat(g.disabled(2)).isFalse();
        assertThat(calls).containsExactly("enter");
        assertThat(failures("asserting")).isEqualTo(1);
        assertThat(failures("sneaky")).isEqualTo(1);
    }

    /**
     * A listener whose settings switch it off says so at its start: it is logged as off, not as started (the kernel
     * probe with kernel-probe.enabled=false was logged "started"), never called, and no failure is counted.
     */
    @Test
    void shouldLogAListenerThatIsOffAsOffAndNotCallIt() {
        List<String> calls = new CopyOnWriteArrayList<>();
        RequestListener off = listener("sleepy", calls::add, () -> false);
        List<String> logged = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(GuardedListeners.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try {
            GuardedListeners g = start(off, listener("busy", calls::add));
            g.enter("light");
            g.move("light", "heavy");
            g.exit("heavy");

            assertThat(g.disabled(0)).isTrue();
            assertThat(g.disabled(1)).isFalse();
            assertThat(calls).as("only the working listener is called").containsExactly("enter", "move", "exit");
            assertThat(failures("sleepy")).isZero();
            assertThat(logged).anyMatch(m -> m.contains("'sleepy' is off"))
                    .noneMatch(m -> m.contains("'sleepy' started")).anyMatch(m -> m.contains("'busy' started"));
        } finally {
            log.removeHandler(handler);
        }
    }

    /**
     * In a Tomcat whose applications all run fairslice, each starts its own listeners: the lines that say one started,
     * is off, or threw and is disabled named no application ({@code fairslice: request listener 'kernel-probe' is
     * off}), so an operator could not tell whose probe failed.
     */
    @Test
    void shouldNameTheApplicationInEveryLineAboutAListener() {
        RuntimeException failure = new IllegalStateException("boom");
        try (LogCapture log = LogCapture.of(GuardedListeners.class)) {
            GuardedListeners g = GuardedListeners.start(List.of(listener("sleepy", c -> { }, () -> false),
                    listener("busy", c -> { }), listener("broken", c -> {
                        throw failure;
                    })), FairsliceConfig.parse(Map.of()), registry, "/shop");
            g.enter("light");

            assertThat(log.lines()).hasSize(4)
                    .allMatch(line -> line.matches("(INFO|WARNING) fairslice\\[/shop]: request listener '.*"))
                    .contains("INFO fairslice[/shop]: request listener 'sleepy' is off (its settings, or it cannot"
                            + " work here)", "WARNING fairslice[/shop]: request listener 'broken' threw in enter and is"
                            + " disabled from now on");
        }
    }

    /**
     * A listener that is not of this copy's type (the container's, seen from a WAR that packs its own copy of the
     * middleware) is a ServiceConfigurationError, an Error the filter's startup did not turn into its message.
     */
    @Test
    void shouldRefuseAListenerOfAnotherCopyWithAMessageNotAnError(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("META-INF/services/" + RequestListener.class.getName());
        Files.createDirectories(services.getParent());
        // not a RequestListener of this copy (a class of the class path: ServiceLoader passes over the JDK's)
        Files.writeString(services, getClass().getName() + "\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                getClass().getClassLoader())) {
            assertThatThrownBy(() -> GuardedListeners.discover(loader)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a request listener could not be loaded")
                    .hasMessageContaining(getClass().getName())
                    .hasMessageContaining("a copy of fairslice in WEB-INF/lib");
        }
    }
}
