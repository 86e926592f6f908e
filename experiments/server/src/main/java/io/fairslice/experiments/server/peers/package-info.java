/**
 * The peers the overload study measures fairslice against, where they cannot be had as released servlet filters:
 * Netflix concurrency-limits' partitioned limiter, built on its core library ({@code concurrency-limits-core}).
 * Selected with {@code -Dfairslice.peer}; the harness's {@code netflix@...} configurations do that.
 */
package io.fairslice.experiments.server.peers;
