/**
 * Internals: the global yield gate behind {@link io.fairslice.middleware.Fairslice#yieldPoint()} (a volatile
 * armed count and the current thread's request) and the guard that keeps request listeners from breaking requests.
 */
package io.fairslice.middleware.internal;
