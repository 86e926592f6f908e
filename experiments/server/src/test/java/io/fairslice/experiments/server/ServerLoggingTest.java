package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * slf4j-api is on the server's class path because the Netflix limiters of the study's peer (concurrency-limits-core)
 * log through it; Micrometer uses it too when it is there. Without a provider SLF4J printed "No SLF4J providers were
 * found" at every start and dropped those messages. The server binds it to java.util.logging (slf4j-jdk14), where
 * Tomcat and fairslice log. And what the server logs as it stops reaches its output.
 */
class ServerLoggingTest {

    @Test
    void shouldStartWithoutSlf4jWarnings() throws Exception {
        try (ForkedServer server = ForkedServer.start(null, List.of("-XX:+UseSerialGC", "-Xmx256m"),
                List.of("--port", "0"))) {
            assertThat(server.output()).as("what the server printed until it listened").isNotEmpty()
                    .noneMatch(line -> line.startsWith("SLF4J"));
        }
    }

    /**
     * What the server logs as it stops reaches its output: the JDK's logging reset, a shutdown hook of its own that
     * runs beside the server's, removed the console handler while Tomcat stopped (ServerLogManager), and fairslice's
     * warning of the requests it refused at the stop was lost with Tomcat's lines.
     */
    @Test
    void shouldLogWhatTheServerSaysAsItStops() throws Exception {
        ForkedServer server = ForkedServer.start(null, List.of("-XX:+UseSerialGC", "-Xmx256m"),
                List.of("--port", "0"));
        server.close(); // SIGTERM, and wait for the JVM to end

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.output().stream().noneMatch(line -> line.contains("Stopping ProtocolHandler"))
                && System.nanoTime() < deadline) {
            Thread.sleep(20); // the output's reader may still be reading the last lines
        }
        assertThat(server.output()).as("the server's output").anyMatch(line -> line.contains("Pausing ProtocolHandler"))
                .anyMatch(line -> line.contains("Stopping ProtocolHandler"));
    }

    @Test
    void shouldLogTheNetflixLimitersThroughJavaUtilLogging() {
        Logger jul = Logger.getLogger(Gradient2Limit.class.getName());
        List<String> messages = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                messages.add(record.getLevel() + " " + record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        try {
            LoggerFactory.getLogger(Gradient2Limit.class).warn("limit {} reached", 7);
        } finally {
            jul.removeHandler(handler);
        }

        assertThat(messages).containsExactly("WARNING limit 7 reached");
    }
}
