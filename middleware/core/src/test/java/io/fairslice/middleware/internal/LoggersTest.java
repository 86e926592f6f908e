package io.fairslice.middleware.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * Tomcat's log manager files a logger under the thread's context class loader at the moment it is made (checked on
 * Tomcat 11.0.25's JULI for System.getLogger too: made under one loader, the logger is absent under another), so a
 * logger of a class in lib/ must be made under lib/'s loader, not under the application's that happens to be starting.
 * ReloadLoggingIT shows it on a real Tomcat; here, that the loader is the class's while the logger is made, and the
 * thread's own afterwards.
 */
class LoggersTest {

    @Test
    void shouldMakeTheLoggerUnderTheOwnersLoaderAndPutTheThreadsBack() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (URLClassLoader application = new URLClassLoader(new URL[0], before)) {
            thread.setContextClassLoader(application);

            ClassLoader seen = Loggers.underOwnLoader(LoggersTest.class, thread::getContextClassLoader);

            assertThat(seen).isSameAs(LoggersTest.class.getClassLoader()).isNotSameAs(application);
            assertThat(thread.getContextClassLoader()).isSameAs(application);
            assertThatThrownBy(() -> Loggers.underOwnLoader(LoggersTest.class, () -> {
                throw new IllegalStateException("no logger");
            })).hasMessage("no logger");
            assertThat(thread.getContextClassLoader()).as("after a failure too").isSameAs(application);
            assertThat(Loggers.system(LoggersTest.class).getName()).isEqualTo(LoggersTest.class.getName());
            assertThat(Loggers.of(LoggersTest.class).getName()).isEqualTo(LoggersTest.class.getName());
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
