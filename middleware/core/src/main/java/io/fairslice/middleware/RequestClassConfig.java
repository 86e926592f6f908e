package io.fairslice.middleware;

import io.fairslice.middleware.config.Durations;
import java.time.Duration;

/**
 * One request class: its name (a metric tag value), its CPU share weight and its admission limits.
 *
 * @param name           the class name
 * @param share          CPU share weight (1..1000), relative to the other classes' weights
 * @param maxConcurrency requests of the class that may hold a permit at once; 0 means no cap
 * @param queueSize      requests that may wait for admission at once; beyond it, 503
 * @param queueTimeout   the longest a request waits for admission; beyond it, 503
 */
public record RequestClassConfig(String name, int share, int maxConcurrency, int queueSize, Duration queueTimeout) {

    @Override
    public String toString() {
        return name + "{share=" + share + ", max-concurrency=" + maxConcurrency + ", queue-size=" + queueSize
                + ", queue-timeout=" + Durations.format(queueTimeout) + "}";
    }
}
