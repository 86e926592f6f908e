package io.fairslice.middleware.internal;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.metrics.MeterNames;
import io.fairslice.middleware.spi.ListenerContext;
import io.fairslice.middleware.spi.RequestListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The installed {@link RequestListener}s, each wrapped so that it cannot break a request: the first throw is logged
 * with its stack trace, counted, and the listener is disabled for good. Only the JVM's own failures
 * ({@link VirtualMachineError}) go on up, once the other listeners have been told, and the filter still completes the
 * request around them.
 */
public final class GuardedListeners implements AutoCloseable {

    private static final Logger LOG = Loggers.of(GuardedListeners.class);
    private static final Call ENTER = new Call("enter", (l, c, unused) -> l.enter(c));
    private static final Call EXIT = new Call("exit", (l, c, unused) -> l.exit(c));
    private static final Call TASK_ENTER = new Call("taskEnter", (l, c, unused) -> l.taskEnter(c));
    private static final Call TASK_EXIT = new Call("taskExit", (l, c, unused) -> l.taskExit(c));
    private static final Call MOVE = new Call("move", RequestListener::move);

    private final RequestListener[] listeners;
    private final boolean[] disabled;
    private final AtomicLong[] failures;
    private final List<Meter> meters = new ArrayList<>();
    private MeterRegistry registry;
    /**
     * The application's name, in each line logged: in a Tomcat whose applications all run fairslice, a listener that
     * failed or is off must say whose it is.
     */
    private String application;

    private GuardedListeners(List<RequestListener> listeners) {
        this.listeners = listeners.toArray(new RequestListener[0]);
        this.disabled = new boolean[this.listeners.length];
        this.failures = new AtomicLong[this.listeners.length];
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new AtomicLong();
        }
    }

    /** Finds listeners with ServiceLoader in {@code loader}; a name used twice is a configuration error. */
    public static List<RequestListener> discover(ClassLoader loader) {
        List<RequestListener> found = new ArrayList<>();
        Set<String> names = new HashSet<>();
        try {
            for (RequestListener l : ServiceLoader.load(RequestListener.class, loader)) {
                if (!names.add(l.name())) {
                    throw FairsliceConfigException.of("<listener>", "names must be unique (two listeners are called '"
                            + l.name() + "')", l.getClass().getName());
                }
                found.add(l);
            }
        } catch (ServiceConfigurationError e) {
            // a listener of another copy of the middleware (a WAR that packs one beside the container's) is not a
            // subtype of this copy's RequestListener; an Error would stop the application without fairslice's message
            throw new IllegalArgumentException("a request listener could not be loaded (" + e.getMessage()
                    + "); does the application pack a copy of fairslice in WEB-INF/lib beside the container's?", e);
        }
        return found;
    }

    /** Each listener's name and declared settings, for the configuration parser. */
    public static Map<String, Set<String>> declaredSettings(List<RequestListener> listeners) {
        Map<String, Set<String>> m = new HashMap<>();
        for (RequestListener l : listeners) {
            m.put(l.name(), Set.copyOf(l.settingNames()));
        }
        return m;
    }

    /**
     * Checks every listener's settings without starting it ({@link RequestListener#check}), for a host that validates
     * the configuration before the filter starts.
     *
     * @throws IllegalArgumentException a listener refused one; {@link #settingNamedIn} finds the key it names
     */
    public static void check(List<RequestListener> listeners, FairsliceConfig config) {
        for (RequestListener l : listeners) {
            try {
                l.check(config.listenerSettings().getOrDefault(l.name(), Map.of()), config.classNames());
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException | LinkageError e) {
                // not a refusal: the listener's start meets it again and runs the application without it
            }
        }
    }

    /**
     * The listener setting ({@code <name>.<setting>}) that a listener's refusal {@code message} names, the longest if
     * several match, or null: so that the refusal can say where the value was set.
     */
    public static String settingNamedIn(FairsliceConfig config, String message) {
        String named = null;
        for (Map.Entry<String, Map<String, String>> l : config.listenerSettings().entrySet()) {
            for (String setting : l.getValue().keySet()) {
                String key = l.getKey() + "." + setting;
                if (message != null && message.contains(key) && (named == null || key.length() > named.length())) {
                    named = key;
                }
            }
        }
        return named;
    }

    /**
     * Starts every listener; an {@link IllegalArgumentException} (a bad setting, or a meter the registry refuses)
     * fails startup, any other failure disables that listener (counted in {@code fairslice.listener.failures}) and
     * the application runs without it.
     *
     * @param application the {@link MeterNames#TAG_APPLICATION} value, on the failure counters and handed to the
     *                    listeners for theirs
     */
    public static GuardedListeners start(List<RequestListener> listeners, FairsliceConfig config,
                                         MeterRegistry registry, String application) {
        GuardedListeners g = new GuardedListeners(listeners);
        g.registry = registry;
        g.application = application;
        List<String> classes = config.classNames();
        for (int i = 0; i < g.listeners.length; i++) {
            RequestListener l = g.listeners[i];
            Map<String, String> settings = config.listenerSettings().getOrDefault(l.name(), Map.of());
            ListenerContext context = new ListenerContext() {
                @Override
                public List<String> requestClasses() {
                    return classes;
                }

                @Override
                public MeterRegistry meterRegistry() {
                    return registry;
                }

                @Override
                public String application() {
                    return application;
                }

                @Override
                public Map<String, String> settings() {
                    return settings;
                }
            };
            boolean works = false;
            try {
                works = l.start(context);
            } catch (IllegalArgumentException e) {
                g.close(); // stops the listeners started before, removes their counters
                throw e; // a bad setting or a refused meter: the operator must fix the configuration
            } catch (VirtualMachineError e) {
                g.close();
                throw e; // the JVM itself fails: nothing to run without
            } catch (Throwable e) {
                // anything else (a native library missing, an AssertionError, a checked exception thrown undeclared):
                // run without it, as when it throws on a request
                g.disable(i, "start", e);
            }
            try {
                g.meters.add(FunctionCounter.builder(MeterNames.LISTENER_FAILURES, g.failures[i], AtomicLong::get)
                        .tag(MeterNames.TAG_APPLICATION, application).tag(MeterNames.TAG_LISTENER, l.name())
                        .description("listeners disabled because they threw").register(registry));
            } catch (RuntimeException e) { // a strict registry refused it: the start fails, nothing left running
                g.close();
                throw e;
            }
            if (works) {
                LOG.info(() -> ApplicationNames.logPrefix(application) + "request listener '" + l.name() + "' started ("
                        + l.getClass().getName() + ")");
            } else if (!g.disabled[i]) {
                g.disabled[i] = true; // not a failure: nothing to count, nothing to call
                LOG.info(() -> ApplicationNames.logPrefix(application) + "request listener '" + l.name() + "' is off"
                        + " (its settings, or it cannot work here)");
            }
        }
        return g;
    }

    public void enter(String requestClass) {
        tell(ENTER, requestClass, null);
    }

    public void exit(String requestClass) {
        tell(EXIT, requestClass, null);
    }

    public void taskEnter(String requestClass) {
        tell(TASK_ENTER, requestClass, null);
    }

    public void taskExit(String requestClass) {
        tell(TASK_EXIT, requestClass, null);
    }

    public void move(String from, String to) {
        tell(MOVE, from, to);
    }

    /**
     * Makes {@code call} on every listener still on. One that throws is disabled and the others are told all the same;
     * only the JVM itself failing in one (out of memory, a stack overflow) fails the request too, after the others
     * have been told (the first such failure goes on up): a listener left out of an {@code enter} would still be told
     * the {@code exit} the filter's cleanup makes.
     */
    private void tell(Call call, String first, String second) {
        VirtualMachineError fatal = null;
        for (int i = 0; i < listeners.length; i++) {
            if (!disabled[i]) {
                try {
                    call.action().call(listeners[i], first, second);
                } catch (Throwable e) { // an Error or a checked exception thrown undeclared too
                    disable(i, call.name(), e);
                    if (e instanceof VirtualMachineError jvm && fatal == null) {
                        fatal = jvm;
                    }
                }
            }
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    private synchronized void disable(int i, String where, Throwable e) {
        if (!disabled[i]) {
            disabled[i] = true;
            failures[i].incrementAndGet();
            LOG.log(Level.WARNING, ApplicationNames.logPrefix(application) + "request listener '" + listeners[i].name()
                    + "' threw in " + where + " and is disabled from now on", e);
        }
    }

    /** Whether listener {@code index} is not called: it failed, or it said at its start that it is off. */
    public boolean disabled(int index) {
        return disabled[index];
    }

    public int size() {
        return listeners.length;
    }

    /** Stops every listener and removes the failure counters (web application stopped). */
    @Override
    public void close() {
        VirtualMachineError fatal = null;
        for (RequestListener l : listeners) {
            try {
                l.stop(); // also after a failed start: it may have started part of what it holds
            } catch (Throwable e) { // whatever it is, the others are stopped and the counters removed
                LOG.log(Level.WARNING, ApplicationNames.logPrefix(application) + "request listener '" + l.name()
                        + "' failed to stop", e);
                if (e instanceof VirtualMachineError jvm && fatal == null) {
                    fatal = jvm;
                }
            }
        }
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
        if (fatal != null) {
            throw fatal;
        }
    }

    /** One of the listener calls, with its name for the log; a constant, so telling the listeners allocates nothing. */
    private record Call(String name, Action action) {
    }

    @FunctionalInterface
    private interface Action {
        void call(RequestListener listener, String first, String second);
    }
}
