package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * slf4j-api is on the server's class path because the Netflix limiters of the study's peer (concurrency-limits-core)
 * log through it; Micrometer uses it too when it is there. Without a provider SLF4J printed "No SLF4J providers were
 * found" at every start and dropped those messages. The server binds it to java.util.logging (slf4j-jdk14), where
 * Tomcat and fairslice log.
 */
class ServerLoggingTest {

    @Test
    void shouldStartWithoutSlf4jWarnings() throws Exception {
        try (ForkedServer server = ForkedServer.start(null, List.of("-XX:+UseSerialGC", "-Xmx256m"),
                List.of("--port", "0"))) {
            assertThat(server.startOutput()).as("what the server printed until it listened").isNotEmpty()
                    .noneMatch(line -> line.startsWith("SLF4J"));
        }
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
