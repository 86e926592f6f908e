/**
 * Classification: which class a request belongs to. Ordered {@link io.fairslice.middleware.classify.Rule}s first,
 * then the adaptive mode (a route's own CPU time per request: the cheapest of its first requests decides first, so
 * a cold JVM's slow first requests make a cheap route heavy only if all of them are slow; then an EWMA with
 * hysteresis), then the default class. Paths are normalised into a bounded
 * {@link io.fairslice.middleware.classify.RouteTable}, so neither memory nor metric series grow with the number of
 * distinct URLs a client sends.
 */
package io.fairslice.middleware.classify;
