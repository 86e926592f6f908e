package io.fairslice.middleware.internal;

import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Loggers for fairslice's classes, bound to the loader that holds the class. Tomcat's log manager (JULI) files a
 * logger under the thread's context class loader when it is made: a static logger of a class in Tomcat's lib/ made
 * while an application started was that application's, and once it stopped (a reload, a redeployed WAR) Tomcat reset
 * its loggers, and every later fairslice line (started, a configuration error, a change through JMX) went nowhere.
 */
public final class Loggers {

    private Loggers() {
    }

    /** The logger named after {@code owner}, filed under {@code owner}'s own class loader. */
    public static Logger of(Class<?> owner) {
        return underOwnLoader(owner, () -> Logger.getLogger(owner.getName()));
    }

    /**
     * The platform logger named after {@code owner}, filed the same way (the kernel probe's, also in lib/). Under
     * Tomcat, whose logging configuration makes the JDK create a platform logger's backing logger at once, that
     * backing logger is made here, under {@code owner}'s loader.
     */
    public static System.Logger system(Class<?> owner) {
        return underOwnLoader(owner, () -> System.getLogger(owner.getName()));
    }

    /** {@code make}'s result, made with the thread's context class loader set to {@code owner}'s, then put back. */
    static <T> T underOwnLoader(Class<?> owner, Supplier<T> make) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(owner.getClassLoader());
        try {
            return make.get();
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
