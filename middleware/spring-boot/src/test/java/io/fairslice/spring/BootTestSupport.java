package io.fairslice.spring;

import io.fairslice.middleware.metrics.MeterNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What the Spring Boot tests read, embedded or as a WAR: the middleware's request counts, a failure's messages, what a
 * logger logs.
 */
final class BootTestSupport {

    private BootTestSupport() {
    }

    /**
     * The requests of {@code className} counted, once the count is at least one or 5 s have passed: a request is
     * counted as its response completes, which the client may see first.
     */
    static long requests(MeterRegistry registry, String className) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            long count = registry.find(MeterNames.REQUESTS).tag(MeterNames.TAG_CLASS, className).timers().stream()
                    .mapToLong(Timer::count).sum();
            if (count > 0 || System.nanoTime() > deadline) {
                return count;
            }
            Thread.sleep(10);
        }
    }

    /** The messages of {@code e} and its causes, outermost first. */
    static List<String> messages(Throwable e) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }

    /**
     * Adds a handler to {@code logger} that collects its messages into {@code lines}; the caller removes it. Hold the
     * logger (a static field of the class that logs holds it): java.util.logging keeps only weak references.
     */
    static Handler logTo(Logger logger, List<String> lines) {
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        return handler;
    }
}
