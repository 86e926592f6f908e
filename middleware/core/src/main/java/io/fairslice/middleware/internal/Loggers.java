package io.fairslice.middleware.internal;

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
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(owner.getClassLoader());
        try {
            return Logger.getLogger(owner.getName());
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
