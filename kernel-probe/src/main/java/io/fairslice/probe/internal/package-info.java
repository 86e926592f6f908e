/**
 * Implementation details shared by the platforms and the middleware listener: allocation-free /proc text parsing,
 * the per-class attribution of scheduler counters, the self-limiting sampler thread, setting parsers, the no-op
 * probe, and the snapshot of every thread's record that the FreeBSD and Windows probes read from. Not an API:
 * anything here may change.
 */
package io.fairslice.probe.internal;
