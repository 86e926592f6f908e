package io.fairslice.middleware.spi;

import java.util.Set;

/**
 * Told on the serving thread when it starts and stops serving a request of a class. The kernel probe uses it to
 * attribute OS scheduler statistics to request classes, and its actuators to change a thread's nice or slice
 * while it serves a class.
 *
 * <p>Implementations are found with {@link java.util.ServiceLoader} ({@code META-INF/services}) and started once per
 * web application. {@link #enter} and {@link #exit} run on the request thread for every request: they must not
 * block, should not allocate, and must not throw (the middleware catches and logs a throwing listener once, then
 * disables it, so that a listener can never break a request).
 */
public interface RequestListener {

    /**
     * A short name, such as {@code kernel-probe}. The listener's settings are the middleware configuration keys
     * {@code <name>.<setting>}; the middleware rejects any such key not listed by {@link #settingNames()}.
     */
    String name();

    /** The settings this listener accepts, without the {@code <name>.} prefix. */
    default Set<String> settingNames() {
        return Set.of();
    }

    /**
     * Once, when the middleware starts. Throw {@link IllegalArgumentException} naming the setting, the rule and the
     * value to fail web application startup on a bad setting.
     */
    default void start(ListenerContext context) {
    }

    /** The current thread starts, or resumes after an async dispatch, serving a request of {@code requestClass}. */
    void enter(String requestClass);

    /** The current thread stops serving the request it {@link #enter entered}. */
    void exit(String requestClass);

    /** Once, when the middleware stops (web application undeployed): release threads and native resources. */
    default void stop() {
    }
}
