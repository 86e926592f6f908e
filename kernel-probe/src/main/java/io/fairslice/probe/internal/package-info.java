/**
 * Implementation details shared by the platforms and the middleware listener: allocation-free /proc text parsing,
 * the per-class attribution of scheduler counters, the self-limiting sampler thread, setting parsers and the no-op
 * probe. Not an API: anything here may change.
 */
package io.fairslice.probe.internal;
