package io.fairslice.experiments.harness;

/**
 * One request class (light or heavy) in one measurement window.
 *
 * @param requests          requests that ended in the window
 * @param ok                of which answered successfully
 * @param rejected          of which refused by the server with 503 or 429 (shedding, not breakage)
 * @param failed            of which failed otherwise (other status, timeout, connection error)
 * @param throughput        successful requests per second of window
 * @param p50Millis         latency percentiles of the successful requests, in ms (-1 when there are none)
 * @param p90Millis         see p50Millis
 * @param p99Millis         see p50Millis
 * @param maxMillis         see p50Millis
 * @param meanMillis        mean latency of the successful requests (-1 when there are none)
 * @param oldestOpenMillis  age, at the window's end, of the oldest request still unanswered then (0 if none):
 *                          at a few light requests per second p99 rests on few samples, this does not
 */
public record ClassStats(long requests, long ok, long rejected, long failed, double throughput, long p50Millis,
                         long p90Millis, long p99Millis, long maxMillis, double meanMillis, long oldestOpenMillis) {

    public static final ClassStats EMPTY = new ClassStats(0, 0, 0, 0, 0, -1, -1, -1, -1, -1, 0);
}
