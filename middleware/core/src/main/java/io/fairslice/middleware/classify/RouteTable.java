package io.fairslice.middleware.classify;

import io.fairslice.middleware.config.Durations;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.metrics.MeterNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Normalised paths to {@link Route}s, bounded: once {@code maxRoutes} routes exist, a new path shares the
 * {@code other} route unless it can take the place of an idle one (below), so a client sending endless distinct URLs
 * grows neither memory nor metric series. Only the first {@code maxPages} routes get their own {@code page} tag value.
 *
 * <p>A route joins the table only once a request on it has been served ({@link #end}): until then it is a
 * <em>candidate</em>, kept outside the table while requests of its key are in flight and shared by them, so that
 * it learns like any route (a new page's concurrent first requests can make it heavy before they end,
 * {@link RequestClassifier#check}). The first of them to be served puts the candidate itself into the table, with
 * what it learnt; when the last of them ends and none was served, the candidate is dropped. A scan of thousands of
 * URLs that answer 404 therefore takes neither routes nor page tags from the pages a later request reaches: it
 * leaves no trace beyond its requests in flight (at most one candidate each).
 *
 * <p>A full table gives a place to a new page only by taking it from a route that has had no request start or end
 * for {@code routes.evict-after} (0: never), the least recently used of {@link #EVICT_LOOKS} routes looked at, never
 * one of the first {@code maxPages} (their page tags, and so their meters, stay) nor one learnt heavy (a rare
 * expensive page would otherwise lose its class to a crawl's churn, and need its first requests again to be learnt).
 * Without such a route the new page shares {@code other}, and new paths get {@code other} at once for
 * {@link #EVICT_RETRY_NANOS}, as a table that never evicts gives it them: a scan of served URLs then costs no
 * candidate per request, and the pages in use keep their places. An evicted route's requests in flight end with it; a
 * later request of its path starts a candidate, which learns again.
 *
 * <p>{@link #route} and {@link #end} pair like a lock and its release: every route a request was given must be
 * ended once. Known routes cost no lock either way; a path not in the table takes the candidate map's lock for its
 * key twice (per-key {@code compute} of a {@link ConcurrentHashMap}).
 */
public final class RouteTable {

    private static final int MAX_SEGMENTS = 8;
    private static final int MAX_SEGMENT_LENGTH = 48;
    private static final HexFormat HEX = HexFormat.of().withUpperCase();
    /**
     * Longer raw paths are normalised every time instead of cached: a client controls their length (up to the
     * container's request-line limit, 8 KB in Tomcat), and 4 x routes.max cached 8 KB paths would pin 32 MB at the
     * defaults (3.2 GB at routes.max = 100000). Real pages' paths are far shorter.
     */
    static final int MAX_CACHED_PATH_LENGTH = 256;

    /** Routes a full table looks at for the one to give a new page's place ({@link #evict}), picked at random. */
    static final int EVICT_LOOKS = 16;
    /** After a full table found no route to evict, new paths get {@code other} at once for this long. */
    static final long EVICT_RETRY_NANOS = 1_000_000_000L;

    private final int maxRoutes;
    private final int maxPages;
    /** How long a route beyond the page tags must have been unused before its place may go to a new page; 0: never. */
    private final long evictAfterNanos;
    private final LongSupplier nanoClock;
    /** Routes in the table by the slot each took ({@link #reserve}'s index), where {@link #evict} looks. */
    private final AtomicReferenceArray<Route> slots;
    private final LongAdder evictions = new LongAdder();
    /** Evictions when the raw-path cache was last emptied of the paths of evicted routes. */
    private volatile long evictionsAtClear;
    /** When a full table last found no route to evict (nanoTime), if {@link #noVictim}. */
    private volatile long noVictimAtNanos;
    private volatile boolean noVictim;
    private final List<RoutePattern> patterns;
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    /** Raw path to route, so that a known path is not normalised again; bounded like the table. */
    private final Map<String, Route> byRawPath = new ConcurrentHashMap<>();
    /**
     * Key to the candidate its requests in flight hold (each candidate here has at least one holder). All changes to
     * a candidate's holders, to the table's entry for its key and to its joining happen in {@code compute} for its
     * key, so that two first requests of a page end with one route.
     */
    private final Map<String, Route> candidates = new ConcurrentHashMap<>();
    /** Routes in the table; a slot is taken before a route is put in, so it never exceeds maxRoutes. */
    private final AtomicInteger size = new AtomicInteger();
    /** Never learns; decided from the start, so that its requests are sampled once per interval (Route.shared). */
    private final Route other = Route.shared(MeterNames.PAGE_OTHER);
    private final LongAdder overflow = new LongAdder();
    /** Whether the table's filling up has been logged (once: every later new page shares {@code other} as well). */
    private final AtomicBoolean fullLogged =
            new AtomicBoolean();
    /** How the table's log lines name their application: {@code "fairslice[/shop]: "}, or {@code "fairslice: "}. */
    private final String logPrefix;

    public RouteTable(int maxRoutes, int maxPages) {
        this(maxRoutes, maxPages, List.of());
    }

    /** A table whose paths are keyed by the first of {@code patterns} that matches them, else by {@link #normalise}. */
    public RouteTable(int maxRoutes, int maxPages, List<RoutePattern> patterns) {
        this(maxRoutes, maxPages, patterns, null);
    }

    /** As {@link #RouteTable(int, int, List)}, its log lines naming {@code application} (null: none). */
    public RouteTable(int maxRoutes, int maxPages, List<RoutePattern> patterns, String application) {
        this(maxRoutes, maxPages, patterns, application, 0, System::nanoTime);
    }

    /**
     * As {@link #RouteTable(int, int, List, String)}, a full table evicting routes that have had no request for
     * {@code evictAfterNanos} (0: never), by {@code nanoClock} (System.nanoTime, or a test's clock).
     */
    public RouteTable(int maxRoutes, int maxPages, List<RoutePattern> patterns, String application,
            long evictAfterNanos, LongSupplier nanoClock) {
        if (maxRoutes < 1 || maxPages < 1 || maxPages > maxRoutes || evictAfterNanos < 0) {
            throw new IllegalArgumentException("need 1 <= maxPages <= maxRoutes and evictAfterNanos >= 0, got"
                    + " maxRoutes=" + maxRoutes + ", maxPages=" + maxPages + ", evictAfterNanos=" + evictAfterNanos);
        }
        this.maxRoutes = maxRoutes;
        this.maxPages = maxPages;
        this.patterns = List.copyOf(patterns);
        this.logPrefix = ApplicationNames.logPrefix(application);
        this.evictAfterNanos = maxRoutes > maxPages ? evictAfterNanos : 0; // the page routes are never evicted
        this.nanoClock = nanoClock;
        this.slots = new AtomicReferenceArray<>(maxRoutes);
    }

    /**
     * The route of a path inside the web application (servlet path plus path info), held by the calling request
     * until it ends ({@link #end}): the table's route for a known path; {@code other} when the path is not in the full
     * table; otherwise the path's candidate, shared with the requests of its key in flight.
     */
    public Route route(String path) {
        return route(path, nanoClock.getAsLong());
    }

    /** As {@link #route(String)} for a request that starts at {@code nowNanos} (the table's clock). */
    public Route route(String path, long nowNanos) {
        Route r = byRawPath.get(path);
        if (r != null && !r.evicted()) {
            r.touch(nowNanos);
            return r;
        }
        if (r != null) {
            byRawPath.remove(path, r);
        }
        String key = key(path);
        r = routes.get(key);
        if (r == null) {
            // once full, a new path joins only in place of an idle route: while none is found, a candidate is pointless
            return size.get() >= maxRoutes && !mayEvict(nowNanos) ? other : hold(key);
        }
        r.touch(nowNanos);
        if (path.length() <= MAX_CACHED_PATH_LENGTH) {
            if (byRawPath.size() < maxRoutes * 4) {
                byRawPath.putIfAbsent(path, r);
            } else {
                long evicted = evictions.sum();
                if (evicted > evictionsAtClear) { // some of it may be evicted routes' paths: start again
                    evictionsAtClear = evicted;
                    byRawPath.clear();
                }
            }
        }
        return r;
    }

    /** Whether a full table may find a route to evict now: it evicts, and has not failed to in the last second. */
    private boolean mayEvict(long nowNanos) {
        return evictAfterNanos > 0 && !(noVictim && nowNanos - noVictimAtNanos < EVICT_RETRY_NANOS);
    }

    private Route hold(String key) {
        Route held = candidates.compute(key, (k, c) -> {
            if (c == null) {
                if (routes.containsKey(k)) {
                    return null; // joined the table since route() looked
                }
                c = new Route(k);
            }
            c.holders++;
            return c;
        });
        return held != null ? held : routes.getOrDefault(key, other); // other: evicted again in between
    }

    /**
     * A request given {@code route} by {@link #route} has ended, {@code served} or not (see
     * {@link RequestClassifier#end} for which requests are served). Returns the route its CPU sample and meters go
     * to: a route in the table stays itself, served or not; a candidate joins the table when its request was served
     * and it fits (if its key joined meanwhile, the table's route is returned), or {@code other} when it does not fit
     * (counted in {@link #overflowCount}); a candidate whose request was not served gives {@code other}, and is
     * dropped once none of its requests is in flight.
     */
    public Route end(Route route, boolean served) {
        return end(route, served, nanoClock.getAsLong());
    }

    /** As {@link #end(Route, boolean)} for a request that ends at {@code nowNanos} (the table's clock). */
    public Route end(Route route, boolean served, long nowNanos) {
        if (route == other) {
            if (served) {
                overflow.increment();
                logFull(null); // a new path once the table was full: route() gave it other at once
            }
            return other;
        }
        if (route.inTable()) { // every known route: two volatile reads
            route.touch(nowNanos); // a long request keeps its route in use until it ends
            return route;
        }
        Route[] into = {other};
        boolean[] full = {false};
        candidates.compute(route.key(), (k, c) -> {
            if (route.inTable()) { // another of its requests was served since
                into[0] = route;
                return c;
            }
            if (c != route) { // a dropped candidate: only a request ended twice gets here; leave the map alone
                into[0] = routes.getOrDefault(k, other);
                return c;
            }
            route.holders--;
            if (served) {
                int n = reserve();
                if (n < 0) {
                    n = evict(nowNanos);
                }
                if (n >= 0) {
                    route.join(n < maxPages ? k : MeterNames.PAGE_OTHER, nowNanos);
                    routes.put(k, route); // before its slot: evict() finds in a slot only routes it can remove
                    slots.set(n, route);
                    into[0] = route;
                    return null; // in the table now, no longer a candidate
                }
                overflow.increment();
                full[0] = true;
            }
            return route.holders > 0 ? route : null;
        });
        if (full[0]) {
            logFull(route.key()); // not inside compute: a handler that takes its time would hold the key's bin
        }
        return into[0];
    }

    /**
     * Logs, once, that a served page found the table full: it and every new page after it are counted and classified as
     * {@code other} until a route has been idle for {@code routes.evict-after} (a crawl of slugs that all answer 200
     * fills the table), or, without eviction, until the application restarts; the
     * {@code fairslice.classify.routes.overflow} counter alone showed it. {@code key}: the page, where known.
     */
    private void logFull(String key) {
        if (!fullLogged.get() && fullLogged.compareAndSet(false, true)) {
            Loggers.of(RouteTable.class).warning(() -> logPrefix + "the route table is"
                    + " full (routes.max=" + maxRoutes + "): "
                    + (key == null ? "a page served now" : printable(key) + ", served,")
                    + " and every new page after it share page=\"other\", which is not learnt, "
                    + (evictAfterNanos > 0 ? "until a route beyond the first routes.max-pages has had no request for"
                            + " routes.evict-after (" + Durations.format(Duration.ofNanos(evictAfterNanos))
                            + ")"
                            : "until the application restarts")
                    + "; raise routes.max, or give the paths of one page one route with route.<n>"
                    + " (docs/configuration.md)");
        }
    }

    /**
     * Frees the slot of the least recently used of {@link #EVICT_LOOKS} routes beyond the page tags and not heavy,
     * picked at random, if it has had no request start or end for {@code evictAfterNanos}: returns the slot, or -1
     * (none such was found in three looks; new paths then get {@code other} for {@link #EVICT_RETRY_NANOS}). The
     * route leaves the map; its requests in flight end with it ({@link #end}: it stays {@link Route#inTable}).
     */
    private int evict(long now) {
        if (evictAfterNanos == 0) { // also when every place is a page tag's (the constructor)
            return -1;
        }
        int span = maxRoutes - maxPages;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 3; attempt++) { // again when another page took the route looked at first
            Route oldest = null;
            int at = -1;
            for (int i = 0; i < Math.min(EVICT_LOOKS, span); i++) {
                int n = maxPages + (span <= EVICT_LOOKS ? i : random.nextInt(span));
                Route r = slots.get(n);
                if (r != null && !r.heavy() && now - r.lastUsedNanos() >= evictAfterNanos
                        && (oldest == null || r.lastUsedNanos() - oldest.lastUsedNanos() < 0)) {
                    oldest = r;
                    at = n;
                }
            }
            if (oldest == null) {
                break;
            }
            if (slots.compareAndSet(at, oldest, null)) {
                oldest.evict(); // first: from now on route() passes it by, wherever it finds it
                routes.remove(oldest.key(), oldest);
                evictions.increment();
                noVictim = false;
                return at;
            }
        }
        noVictimAtNanos = now;
        noVictim = true;
        return -1;
    }

    /** Takes a slot in the table: its index, or -1 when the table is full. */
    private int reserve() {
        while (true) {
            int n = size.get();
            if (n >= maxRoutes) {
                return -1;
            }
            if (size.compareAndSet(n, n + 1)) {
                return n;
            }
        }
    }

    /** {@code path} without one trailing {@code /} ("/" stays as it is); {@code path} itself when it ends otherwise. */
    static String withoutTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /**
     * The route key of a path: the glob of the first configured route that matches it (with or without one trailing
     * {@code /}, which the normalisation drops too), else its normal form.
     */
    String key(String path) {
        if (!patterns.isEmpty()) {
            String bare = withoutTrailingSlash(path);
            for (RoutePattern p : patterns) {
                if (p.matches(path) || (bare != path && p.matches(bare))) {
                    return p.glob();
                }
            }
        }
        return normalise(path);
    }

    /**
     * A route key as text for people (the JMX listing, the log): a key comes from the request's decoded path, so a
     * client chooses its characters; control characters, spaces, {@code ;} and {@code %} are percent-encoded (UTF-8),
     * so that a key cannot break a log line nor blur the listing's {@code "; "} and {@code ": "} separators.
     */
    public static String printable(String key) {
        StringBuilder out = null;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            // whitespace: the space, tabs and Unicode's line and paragraph separators too
            if (Character.isISOControl(c) || Character.isWhitespace(c) || c == ';' || c == '%') {
                if (out == null) {
                    out = new StringBuilder(key.length() + 8).append(key, 0, i);
                }
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    out.append('%').append(HEX.toHexDigits(b));
                }
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? key : out.toString();
    }

    /**
     * Collapses the parts of a path that identify an instance rather than a page: segments of digits, alone or with
     * the separators of dates, times and versions ({@code - _ . :}), become {n}, long hex or UUID-like segments {id},
     * over-long segments {x}; at most 8 segments are kept.
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
        boolean anyDigit = false;
        boolean numeric = true;
        boolean hex = true;
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            boolean digit = c >= '0' && c <= '9';
            anyDigit |= digit;
            numeric &= digit || c == '-' || c == '_' || c == '.' || c == ':';
            hex &= digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-';
        }
        if (numeric && anyDigit) { // 12345, and dates, times, versions: 2026-11-28, 10:30, 1.2.3
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

    /** Routes in the table (neither candidates nor the shared {@code other} route counted). */
    public int size() {
        return size.get();
    }

    /** Raw paths remembered for the fast path (at most 4 x maxRoutes, none longer than 256 characters). */
    int cachedPaths() {
        return byRawPath.size();
    }

    /** Candidates held by requests in flight (at most one per such request). */
    public int candidates() {
        return candidates.size();
    }

    /** Served requests whose route was not in the table and did not fit: the table was full. */
    public long overflowCount() {
        return overflow.sum();
    }

    /** Routes whose place in the full table went to a new page ({@code routes.evict-after}). */
    public long evictionCount() {
        return evictions.sum();
    }

    public Route other() {
        return other;
    }

    /** The routes in the table now, in no order (candidates and {@code other} left out); a copy. */
    public List<Route> routes() {
        return new ArrayList<>(routes.values());
    }

    public int maxRoutes() {
        return maxRoutes;
    }
}
