package io.fairslice.middleware.classify;

import io.fairslice.middleware.metrics.MeterNames;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Normalised paths to {@link Route}s, bounded: once {@code maxRoutes} routes exist, every new path shares the
 * {@code other} route, so a client sending endless distinct URLs grows neither memory nor metric series. Only the
 * first {@code maxPages} routes get their own {@code page} tag value.
 */
public final class RouteTable {

    private static final int MAX_SEGMENTS = 8;
    private static final int MAX_SEGMENT_LENGTH = 48;
    /**
     * Longer raw paths are normalised every time instead of cached: a client controls their length (up to the
     * container's request-line limit, 8 KB in Tomcat), and 4 x routes.max cached 8 KB paths would pin 32 MB at the
     * defaults (3.2 GB at routes.max = 100000). Real pages' paths are far shorter.
     */
    static final int MAX_CACHED_PATH_LENGTH = 256;

    private final int maxRoutes;
    private final int maxPages;
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    /** Raw path to route, so that a known path is not normalised again; bounded like the table. */
    private final Map<String, Route> byRawPath = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final Route other = new Route(MeterNames.PAGE_OTHER, MeterNames.PAGE_OTHER);
    private final LongAdder overflow = new LongAdder();

    public RouteTable(int maxRoutes, int maxPages) {
        if (maxRoutes < 1 || maxPages < 1 || maxPages > maxRoutes) {
            throw new IllegalArgumentException("need 1 <= maxPages <= maxRoutes, got maxRoutes=" + maxRoutes
                    + ", maxPages=" + maxPages);
        }
        this.maxRoutes = maxRoutes;
        this.maxPages = maxPages;
    }

    /** The route of a path inside the web application (servlet path plus path info). */
    public Route route(String path) {
        Route r = byRawPath.get(path);
        if (r != null) {
            return r;
        }
        String key = normalise(path);
        r = routes.get(key);
        if (r == null) {
            r = add(key);
        }
        if (r != other && path.length() <= MAX_CACHED_PATH_LENGTH && byRawPath.size() < maxRoutes * 4) {
            byRawPath.putIfAbsent(path, r);
        }
        return r;
    }

    private Route add(String key) {
        while (true) {
            int n = size.get();
            if (n >= maxRoutes) {
                overflow.increment();
                return other;
            }
            if (size.compareAndSet(n, n + 1)) {
                Route fresh = new Route(key, n < maxPages ? key : MeterNames.PAGE_OTHER);
                Route existing = routes.putIfAbsent(key, fresh);
                if (existing != null) {
                    size.decrementAndGet();
                    return existing;
                }
                return fresh;
            }
        }
    }

    /**
     * Collapses the parts of a path that identify an instance rather than a page: all-digit segments become
     * {n}, long hex or UUID-like segments {id}, over-long segments {x}; at most 8 segments are kept.
     */
    public static String normalise(String path) {
        if (path == null || path.isEmpty() || "/".equals(path)) {
            return "/";
        }
        StringBuilder out = new StringBuilder(path.length());
        int segments = 0;
        int i = path.charAt(0) == '/' ? 1 : 0;
        while (i <= path.length()) {
            int end = path.indexOf('/', i);
            if (end < 0) {
                end = path.length();
            }
            if (end > i) {
                if (++segments > MAX_SEGMENTS) {
                    out.append("/**");
                    break;
                }
                out.append('/').append(segment(path, i, end));
            }
            i = end + 1;
        }
        return out.length() == 0 ? "/" : out.toString();
    }

    private static String segment(String path, int from, int to) {
        int len = to - from;
        boolean digits = true;
        boolean hex = true;
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            digits &= c >= '0' && c <= '9';
            hex &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-';
        }
        if (digits) {
            return "{n}";
        }
        if (hex && len >= 16) {
            return "{id}";
        }
        if (len > MAX_SEGMENT_LENGTH) {
            return "{x}";
        }
        return path.substring(from, to);
    }

    /** Routes in the table (the shared {@code other} route not counted). */
    public int size() {
        return size.get();
    }

    /** Raw paths remembered for the fast path (at most 4 x maxRoutes, none longer than 256 characters). */
    int cachedPaths() {
        return byRawPath.size();
    }

    /** Requests whose new route did not fit. */
    public long overflowCount() {
        return overflow.sum();
    }

    public Route other() {
        return other;
    }

    public int maxRoutes() {
        return maxRoutes;
    }
}
