package io.fairslice.middleware.spi;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Told on the serving thread when it starts and stops serving a request of a class, and when the request it serves
 * changes class; and on a thread of the application's that runs a task of a request ({@code Fairslice.task}: work the
 * request handed to an executor) as the task starts and ends. The kernel probe uses it to attribute OS scheduler
 * statistics to request classes, and its actuators to change a thread's nice or slice while it serves a class.
 *
 * <p>Implementations are found with {@link java.util.ServiceLoader} ({@code META-INF/services}) and started once per
 * web application. {@link #enter}, {@link #exit}, {@link #move}, {@link #taskEnter} and {@link #taskExit} run on the
 * thread concerned (the request's, or the task's): they must not block,
 * should not allocate, and must not throw (the middleware catches and logs a throwing listener once, then disables
 * it, so that a listener can never break a request).
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
     * Checks this listener's settings (keys without the {@code <name>.} prefix) as {@link #start} would, without
     * starting anything, so that a host can refuse a bad one before the web application starts: Spring Boot's
     * auto-configuration calls it while it builds the filter's registration. Throw {@link IllegalArgumentException}
     * naming the setting, the rule and the value. The default checks nothing; what only a start can find out (whether
     * the platform allows a setting) stays with {@link #start}, which is called with the same settings.
     */
    default void check(Map<String, String> settings, List<String> requestClasses) {
    }

    /**
     * Once, when the middleware starts. Throw {@link IllegalArgumentException} naming the setting, the rule and the
     * value to fail web application startup on a bad setting.
     *
     * @return whether the listener works: false when its settings switch it off or it cannot work here (say why
     *         where the operator will read it); the middleware then logs it as off and calls nothing else but
     *         {@link #stop}
     */
    default boolean start(ListenerContext context) {
        return true;
    }

    /** The current thread starts, or resumes after an async dispatch, serving a request of {@code requestClass}. */
    void enter(String requestClass);

    /** The current thread stops serving the request it {@link #enter entered}, under its class at that moment. */
    void exit(String requestClass);

    /**
     * The current thread, one that does not serve the request (an application's executor, the common pool, a
     * container thread of {@code AsyncContext.start}), starts running a task of a request of {@code requestClass}:
     * work of the request, not a request of its own. The default is {@link #enter}, right for a listener that tracks
     * the class a thread serves; one that counts requests should override it, {@link #taskExit} and {@link #move}
     * (which a task's thread is told too, and whose default is exit and enter). A task run in place on a thread that
     * serves another request is not told: that thread serves the other request.
     */
    default void taskEnter(String requestClass) {
        enter(requestClass);
    }

    /** The task the current thread {@link #taskEnter entered} ends, under its class at that moment. */
    default void taskExit(String requestClass) {
        exit(requestClass);
    }

    /**
     * The request the current thread serves belongs to class {@code to} from now on, no longer to {@code from}: the
     * adaptive classifier decided its page while it ran (a new page's first requests start in the default class and
     * move at a yield point once the page is learnt heavy). Called on the request thread between {@link #enter} and
     * {@link #exit}, or on a task's thread between {@link #taskEnter} and {@link #taskExit} (a task moves with its
     * request); the exit that follows names {@code to}. Same rules as {@link #enter}.
     *
     * <p>The default ends the request in one class and starts it in the other ({@code exit(from); enter(to)}), which
     * is right for a listener that only tracks the class a thread serves; one that counts requests should override
     * it, or it counts a moved request twice.
     */
    default void move(String from, String to) {
        exit(from);
        enter(to);
    }

    /**
     * Once, when the middleware stops (web application undeployed), and when its start fails (a setting another
     * listener refused): release threads and native resources; it may come without a start, or after a failed one.
     */
    default void stop() {
    }
}
