/**
 * Internals: the global yield gate behind {@link io.fairslice.middleware.Fairslice#yieldPoint()} (a volatile
 * armed count and the current thread's request), the guard that keeps request listeners from breaking requests, and
 * the loggers that stay Tomcat's when the application that first used them reloads.
 */
package io.fairslice.middleware.internal;
