package io.fairslice.middleware.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogManager;
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

    /**
     * Under Tomcat's log manager (JULI, a JVM of its own), a logger that {@link Loggers#of} or {@link Loggers#system}
     * makes while an application's loader is the thread's is filed under the owner's loader: found once the thread's
     * loader is the owner's again. The check above holds only {@code underOwnLoader}; it passed with both methods
     * calling the JDK directly.
     */
    @Test
    void shouldFileBothKindsOfLoggerUnderTheOwnersLoaderUnderTomcatsLogManager() throws Exception {
        Process java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager", "-cp",
                System.getProperty("java.class.path"), UnderJuli.class.getName()).redirectErrorStream(true).start();
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(out.lines()).as(out).contains("manager org.apache.juli.ClassLoaderLogManager", "of true",
                "system true");
    }

    /** Makes the two loggers under an application's loader, then looks for them under the owner's. */
    static final class UnderJuli {
        public static void main(String[] args) throws IOException {
            Thread thread = Thread.currentThread();
            ClassLoader own = thread.getContextClassLoader();
            try (URLClassLoader application = new URLClassLoader(new URL[0], own)) {
                thread.setContextClassLoader(application);
                Loggers.of(UnderJuli.class);
                Loggers.system(Owner.class);
                thread.setContextClassLoader(own);
            }
            LogManager manager = LogManager.getLogManager();
            for (String line : List.of("manager " + manager.getClass().getName(),
                    "of " + (manager.getLogger(UnderJuli.class.getName()) != null),
                    "system " + (manager.getLogger(Owner.class.getName()) != null))) {
                System.out.println(line);
            }
        }
    }

    /** The platform logger's owner: a name no other logger of the JVM has. */
    static final class Owner {
    }
}
