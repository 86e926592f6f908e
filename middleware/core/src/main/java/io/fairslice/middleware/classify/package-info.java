/**
 * Classification: which class a request belongs to. Ordered {@link io.fairslice.middleware.classify.Rule}s first,
 * then the adaptive mode (a route's own CPU time per request: the cheapest of its first requests decides first, so
 * a cold JVM's slow first requests make a cheap route heavy only if all of them are slow; then an EWMA with
 * hysteresis), then the default class. Paths are normalised into a bounded
 * {@link io.fairslice.middleware.classify.RouteTable}, so neither memory nor metric series grow with the number of
 * distinct URLs a client sends. A path joins the table only once a request on it has been served (status below
 * 400, to a method other than OPTIONS and TRACE, which the container answers for any path): until then its requests in
 * flight share a candidate route that learns like any other, so a scan of URLs that answer 404 takes no route or page
 * tag from the real pages reached later.
 */
package io.fairslice.middleware.classify;
