package io.fairslice.middleware.classify;

import io.fairslice.middleware.FairsliceConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.LogCapture;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    /** A key comes from the decoded path: what a client may put there must not break a log line or a listing. */
    @Test
    void shouldPercentEncodeWhatCouldBreakALogLineOrTheListingInAPrintableKey() {
        assertThat(RouteTable.printable("/orders/{n}/report")).isEqualTo("/orders/{n}/report");
        assertThat(RouteTable.printable("/a; b: class=heavy")).isEqualTo("/a%3B%20b:%20class=heavy");
        assertThat(RouteTable.printable("/x\nWARNING: forged\r\t")).isEqualTo("/x%0AWARNING:%20forged%0D%09");
        assertThat(RouteTable.printable("/50%")).as("the escape itself").isEqualTo("/50%25");
        assertThat(RouteTable.printable("/p\u2028q\u0085")).as("Unicode's line separator, a C1 control: UTF-8 bytes")
                .isEqualTo("/p%E2%80%A8q%C2%85");
        assertThat(RouteTable.printable("/caf\u00e9")).as("other characters as they are").isEqualTo("/caf\u00e9");
    }

    @Test
    void shouldCollapseInstanceSegmentsIntoOneRoute() {
        assertThat(RouteTable.normalise("/orders/12345")).isEqualTo("/orders/{n}");
        assertThat(RouteTable.normalise("/u/3f2a9c1e-77aa-4bcd-9e01-aa00ff112233/avatar")).isEqualTo("/u/{id}/avatar");
        assertThat(RouteTable.normalise("/a/" + "x".repeat(60))).isEqualTo("/a/{x}");
        assertThat(RouteTable.normalise("/1/2/3/4/5/6/7/8/9/10")).isEqualTo("/{n}/{n}/{n}/{n}/{n}/{n}/{n}/{n}/**");
        assertThat(RouteTable.normalise("")).isEqualTo("/");
        assertThat(RouteTable.normalise("/heavy")).isEqualTo("/heavy");
        assertThat(RouteTable.normalise("//a//b/")).isEqualTo("/a/b");
    }

    @Test
    void shouldCollapseDatesTimesAndVersionsLikeNumbers() {
        assertThat(RouteTable.normalise("/news/2026-11-28/summary")).isEqualTo("/news/{n}/summary");
        assertThat(RouteTable.normalise("/slots/10:30")).isEqualTo("/slots/{n}");
        assertThat(RouteTable.normalise("/api/1.2.3/items")).isEqualTo("/api/{n}/items");
        assertThat(RouteTable.normalise("/runs/2026_11_28")).isEqualTo("/runs/{n}");
        // a separator alone, a word with digits and a file name are kept
        assertThat(RouteTable.normalise("/a/-/b")).isEqualTo("/a/-/b");
        assertThat(RouteTable.normalise("/api/v2")).isEqualTo("/api/v2");
        assertThat(RouteTable.normalise("/files/2026.pdf")).isEqualTo("/files/2026.pdf");
    }

    /**
     * A catalogue of slugs the normalisation keeps apart: without a configured route each product is a route of its
     * own and fills the table; with {@code route.<n> = /products/*} they are one route that learns, and the first
     * matching pattern wins.
     */
    @Test
    void shouldKeyPathsByTheFirstConfiguredRouteThatMatches() {
        RouteTable plain = new RouteTable(100, 10);
        for (int i = 0; i < 1000; i++) {
            request(plain, "/products/kettle-model-" + Integer.toString(i, 36), true);
        }
        assertThat(plain.size()).as("without a configured route").isEqualTo(100);
        assertThat(plain.overflowCount()).isEqualTo(900);

        RouteTable table = new RouteTable(100, 10, List.of(
                RoutePattern.parse("route.1", 1, "/products/*/reviews"),
                RoutePattern.parse("route.2", 2, "/products/**")));
        Set<Route> routes = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 1000; i++) {
            routes.add(request(table, "/products/kettle-model-" + Integer.toString(i, 36), true));
        }
        assertThat(routes).hasSize(1);
        Route products = routes.iterator().next();
        assertThat(products.key()).isEqualTo("/products/**");
        assertThat(products.page()).isEqualTo("/products/**");
        assertThat(request(table, "/products/blue-kettle/reviews", true).key()).isEqualTo("/products/*/reviews");
        assertThat(request(table, "/products", true)).as("** also matches no segment").isSameAs(products);
        assertThat(request(table, "/products/blue-kettle/reviews/", true).key()).as("a trailing slash, as normalised")
                .isEqualTo("/products/*/reviews");
        assertThat(request(table, "/orders/12345", true).key()).as("the rest is normalised").isEqualTo("/orders/{n}");
        assertThat(table.size()).isEqualTo(3);
        assertThat(table.overflowCount()).isZero();
    }

    /** A request on {@code path} that ends with {@code served}, as the filter runs it: the route it is counted on. */
    private static Route request(RouteTable table, String path, boolean served) {
        return table.end(table.route(path), served);
    }

    @Test
    void shouldStayBoundedUnderAHundredThousandDistinctServedUrls() {
        RouteTable table = new RouteTable(1000, 50);
        Set<String> pages = new HashSet<>();
        Set<Route> routes = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 100_000; i++) {
            Route r = request(table, "/attack/p" + Integer.toString(i, 36) + "x/q", true);
            pages.add(r.page());
            routes.add(r);
        }
        assertThat(table.size()).isEqualTo(1000);
        assertThat(routes).as("distinct route objects").hasSize(1001);
        assertThat(pages).as("distinct page tag values").hasSize(51).contains("other");
        assertThat(table.overflowCount()).as("served requests that did not fit").isEqualTo(99_000);
        assertThat(table.candidates()).isZero();
        assertThat(table.route("/attack/fresh-one")).isSameAs(table.other());
    }

    /**
     * A vulnerability scan (thousands of distinct URLs that answer 404) before a real page is first reached: the page
     * still gets a route of its own and its own page tag, and the scan leaves nothing behind.
     */
    @Test
    void shouldGiveAPageFirstReachedAfterTenThousandNotFoundUrlsItsOwnRouteAndPageTag() {
        RouteTable table = new RouteTable(1000, 50);
        for (int i = 0; i < 10_000; i++) {
            Route r = request(table, "/scan/p" + i + "x.php", false);
            assertThat(r).as("a path never served is counted as other").isSameAs(table.other());
        }
        assertThat(table.size()).as("routes taken by the scan").isZero();
        assertThat(table.candidates()).as("candidates left by the scan").isZero();
        assertThat(table.cachedPaths()).as("raw paths cached for the scan").isZero();
        assertThat(table.overflowCount()).as("no served route was refused").isZero();

        Route report = table.route("/reports/yearly");
        assertThat(report).isNotSameAs(table.other());
        assertThat(table.end(report, true)).as("the candidate itself joins").isSameAs(report);
        assertThat(table.size()).isEqualTo(1);
        assertThat(report.page()).isEqualTo("/reports/yearly");
        assertThat(table.route("/reports/yearly")).as("known now").isSameAs(report);
        assertThat(table.cachedPaths()).isEqualTo(1);
        assertThat(table.end(report, false)).as("a known route stays itself, served or not").isSameAs(report);
    }

    @Test
    void shouldGiveThePageTagsToTheFirstPagesServedNotTheFirstPathsSeen() {
        RouteTable table = new RouteTable(10, 2);
        Route first = table.route("/first");
        Route second = table.route("/second");
        Route third = table.route("/third");
        assertThat(first.page()).as("a candidate is tagged other").isEqualTo("other");
        table.end(third, true);
        table.end(first, false);
        table.end(second, true);
        assertThat(List.of(third.page(), second.page())).containsExactly("/third", "/second");
        Route late = request(table, "/first", true);
        assertThat(late).isNotSameAs(first).isNotSameAs(table.other());
        assertThat(late.page()).as("the third page served, beyond routes.max-pages").isEqualTo("other");
        assertThat(table.size()).isEqualTo(3);
    }

    /**
     * A full table gives a new page the place of the route that has had no request for longest, once that is
     * routes.evict-after or more: never a page-tagged one, never one in use; without such a route the new page is
     * {@code other}, and so are new paths for a second, as in a table that never evicts.
     */
    @Test
    void shouldGiveANewPageThePlaceOfTheRouteIdleLongestOnceItIsIdleForEvictAfter() {
        AtomicLong clock = new AtomicLong(-5_000_000_000L);
        RouteTable table = new RouteTable(4, 1, List.of(), null, TimeUnit.SECONDS.toNanos(60), clock::get);
        Route home = request(table, "/home", true); // the page tag's route
        Route a = request(table, "/a", true);
        Route b = request(table, "/b", true);
        Route c = request(table, "/c", true);
        assertThat(table.end(table.route("/b"), true)).as("known, and its path cached").isSameAs(b);
        seconds(clock, 30);
        assertThat(request(table, "/a", true)).isSameAs(a);
        assertThat(request(table, "/c", true)).isSameAs(c);
        seconds(clock, 1);
        Route inFlight = table.route("/c"); // a request of /c starts and runs on
        seconds(clock, 34); // /home and /b idle for 65 s, /a for 35 s
        Route report = request(table, "/report", true);
        assertThat(report).isNotIn(table.other(), home, a, b, c);
        assertThat(table.routes()).containsExactlyInAnyOrder(home, a, c, report);
        assertThat(table.evictionCount()).isOne();
        assertThat(table.size()).isEqualTo(4);
        assertThat(report.page()).as("a place beyond the page tags").isEqualTo("other");

        Route again = table.route("/b");
        assertThat(again).as("the evicted route's path starts a candidate, its cache entry gone").isNotSameAs(b)
                .isNotSameAs(table.other());
        assertThat(table.end(again, true)).as("no route idle for 60 s: no place").isSameAs(table.other());
        assertThat(table.overflowCount()).isOne();
        assertThat(table.route("/d")).as("new paths share other for a second").isSameAs(table.other());
        seconds(clock, 1);
        Route d = table.route("/d");
        assertThat(d).as("and then look again").isNotSameAs(table.other());
        assertThat(table.end(inFlight, true)).as("a route ends for its requests in flight").isSameAs(c);

        seconds(clock, 24); // /a idle for 60 s, /c for 59 s
        assertThat(table.end(d, true)).isSameAs(d);
        assertThat(table.routes()).containsExactlyInAnyOrder(home, c, report, d);
        assertThat(table.route("/a")).as("evicted").isNotSameAs(a);
        assertThat(table.evictionCount()).isEqualTo(2);
    }

    /** Threads serving paths that come and go while the table evicts all the time: it stays one route per place. */
    @Test
    void shouldKeepOneRoutePerPlaceWhileManyThreadsServeAndEvict() throws Exception {
        RouteTable table = new RouteTable(20, 5, List.of(), null, 1, System::nanoTime); // a route idle 1 ns goes
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random random = new Random(t);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        String path = "/p/" + (char) ('a' + random.nextInt(26)) + (char) ('a' + random.nextInt(4));
                        table.end(table.route(path), random.nextInt(10) > 0);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Route> in = table.routes();
        assertThat(table.size()).isEqualTo(20);
        assertThat(in).hasSize(20).noneMatch(Route::evicted).extracting(Route::key).doesNotHaveDuplicates();
        assertThat(table.candidates()).isZero();
        assertThat(table.evictionCount()).isPositive();
        for (Route r : in) {
            assertThat(table.route(r.key())).as("its path finds it").isSameAs(r);
        }
    }

    /** A route learnt heavy keeps its place, however long it has been idle: a rare report stays in its class. */
    @Test
    void shouldNotEvictARouteLearntHeavy() {
        AtomicLong clock = new AtomicLong();
        RouteTable table = new RouteTable(3, 1, List.of(), null, TimeUnit.SECONDS.toNanos(60), clock::get);
        request(table, "/home", true);
        Route report = request(table, "/report", true);
        long ms = 1_000_000L;
        report.record(10 * ms, 0.05, 1, 5 * ms, 2 * ms); // one request of 10 ms decides it: heavy
        assertThat(report.heavy()).isTrue();
        seconds(clock, 1);
        Route b = request(table, "/b", true);
        seconds(clock, 61);
        Route c = request(table, "/c", true);
        assertThat(table.routes()).as("/b evicted, though /report was idle longer").contains(report, c)
                .doesNotContain(b);
        seconds(clock, 30); // /c in use, /report heavy: no place
        assertThat(request(table, "/d", true)).isSameAs(table.other());
        assertThat(table.evictionCount()).isOne();
    }

    /** Without eviction (routes.evict-after=0, or every route page-tagged) a full table keeps its routes for good. */
    @Test
    void shouldNeverEvictWithoutEvictAfterOrBeyondThePageTags() {
        AtomicLong clock = new AtomicLong();
        for (RouteTable table : List.of(new RouteTable(2, 1, List.of(), null, 0, clock::get),
                new RouteTable(2, 2, List.of(), null, TimeUnit.SECONDS.toNanos(60), clock::get))) {
            request(table, "/a", true);
            request(table, "/b", true);
            seconds(clock, 3600);
            assertThat(table.route("/c")).isSameAs(table.other());
            assertThat(request(table, "/c", true)).isSameAs(table.other());
            assertThat(table.evictionCount()).isZero();
            assertThat(table.overflowCount()).isOne();
        }
    }

    private static void seconds(AtomicLong clock, long seconds) {
        clock.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    /** A crawl of slugs fills the table for good: said once, naming the first page that did not fit. */
    @Test
    void shouldLogOnceThatTheTableIsFull() {
        try (LogCapture log = LogCapture.of(RouteTable.class)) {
            RouteTable table = new RouteTable(2, 2);
            request(table, "/a", true);
            Route cart = table.route("/cart"); // a candidate while the table has room
            request(table, "/b", true);
            assertThat(log.lines()).isEmpty();
            assertThat(table.end(cart, true)).isSameAs(table.other());
            assertThat(request(table, "/items", true)).isSameAs(table.other());
            assertThat(log.lines()).singleElement().asString().startsWith("WARNING fairslice: the route table is full"
                    + " (routes.max=2): /cart, served, and every new page after it share page=\"other\"");
            RouteTable full = new RouteTable(1, 1, List.of(), "/shop"); // which application, of several
            request(full, "/a", true);
            log.clear();
            request(full, "/b", false);
            assertThat(log.lines()).as("a 404 beyond the table: no page").isEmpty();
            request(full, "/c", true);
            assertThat(log.lines()).singleElement().asString()
                    .startsWith("WARNING fairslice[/shop]: the route table is full (routes.max=1): "
                            + "a page served now and"
                            + " every");
        }
    }

    /** A route written as the application's framework declares it is named by it and takes the page's paths. */
    @Test
    void shouldKeyPathsByARouteWrittenAsASpringTemplate() {
        RouteTable table = new RouteTable(10, 10,
                List.of(RoutePattern.parse("route.1", 1, "/api/items/{id}")));

        Route item = request(table, "/api/items/blue-kettle", true);

        assertThat(item.key()).isEqualTo("/api/items/{id}");
        assertThat(request(table, "/api/items/red-kettle", true)).isSameAs(item);
    }

    @Test
    void shouldShareOneCandidateAmongTheRequestsOfANewPageInFlight() {
        RouteTable table = new RouteTable(10, 10);
        Route a = table.route("/new/1");
        Route b = table.route("/new/2");
        assertThat(b).as("same key, one candidate").isSameAs(a);
        assertThat(table.candidates()).isEqualTo(1);
        assertThat(table.size()).isZero();
        assertThat(table.end(a, false)).isSameAs(table.other());
        assertThat(table.candidates()).as("still held by the other request").isEqualTo(1);
        assertThat(table.route("/new/3")).as("a later request joins the candidate still held").isSameAs(a);
        assertThat(table.end(b, true)).isSameAs(a);
        assertThat(table.route("/new/4")).isSameAs(a);
        assertThat(table.end(a, false)).as("the third request ended after its route joined").isSameAs(a);
        assertThat(table.candidates()).isZero();
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void shouldStartAFreshCandidateOnceEveryRequestOfTheOldOneEndedUnserved() {
        RouteTable table = new RouteTable(10, 10);
        Route a = table.route("/broken");
        a.record(50_000_000L, 0.2, 10, 5_000_000L, 2_000_000L);
        table.end(a, false);
        assertThat(table.candidates()).isZero();
        Route b = table.route("/broken");
        assertThat(b).as("nothing kept from requests that were not served").isNotSameAs(a);
        assertThat(b.samples()).isZero();
    }

    @Test
    void shouldKeepWhatACandidateLearntWhenItJoins() {
        RouteTable table = new RouteTable(10, 10);
        Route a = table.route("/report");
        Route b = table.route("/report");
        for (int i = 0; i < 3; i++) {
            a.record(50_000_000L, 0.2, 3, 5_000_000L, 2_000_000L);
        }
        assertThat(a.heavy()).isTrue();
        assertThat(table.end(b, true)).isSameAs(a);
        assertThat(table.route("/report").heavy()).as("the table's route is the candidate, heavy").isTrue();
        table.end(a, true);
    }

    @Test
    void shouldCountOnlyServedRequestsThatDidNotFitAsOverflow() {
        RouteTable table = new RouteTable(2, 2);
        Route pending = table.route("/pending");
        request(table, "/a", true);
        request(table, "/b", true);
        assertThat(request(table, "/c", false)).isSameAs(table.other());
        assertThat(table.overflowCount()).as("a 404 beyond the full table").isZero();
        assertThat(request(table, "/c", true)).isSameAs(table.other());
        assertThat(table.overflowCount()).isEqualTo(1);
        assertThat(table.end(pending, true)).as("a candidate that no longer fits").isSameAs(table.other());
        assertThat(table.overflowCount()).isEqualTo(2);
        assertThat(table.candidates()).isZero();
        assertThat(table.size()).isEqualTo(2);
    }

    /** Two first requests of one new page, on two threads at once, many times over: one route per page. */
    @Test
    void shouldEndConcurrentFirstRequestsOfANewPageWithOneRoute() throws Exception {
        RouteTable table = new RouteTable(100_000, 50);
        int pages = 10_000;
        CyclicBarrier start = new CyclicBarrier(2);
        Route[][] ended = new Route[2][pages];
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> both = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                both.add(pool.submit(() -> {
                    for (int i = 0; i < pages; i++) {
                        start.await();
                        // one of the pair served in every fourth page only: then it alone may make the route
                        boolean served = i % 4 != 0 || thread == 0;
                        ended[thread][i] = request(table, "/p" + i + "x/" + thread, served);
                    }
                    return null;
                }));
            }
            for (Future<?> f : both) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < pages; i++) {
            Route served = ended[0][i];
            assertThat(served).isNotSameAs(table.other());
            if (i % 4 != 0) {
                assertThat(ended[1][i]).as("page %d", i).isSameAs(served);
            } else {
                assertThat(ended[1][i]).as("page %d", i).isIn(served, table.other());
            }
            assertThat(table.route("/p" + i + "x/7")).isSameAs(served);
        }
        assertThat(table.size()).isEqualTo(pages);
        assertThat(table.candidates()).isZero();
        assertThat(table.overflowCount()).isZero();
    }

    @Test
    void shouldMeasureEveryRequestWhileARouteLearnsThenEveryRequestOfARouteWithFewerThanOneAnInterval() {
        RouteTable table = new RouteTable(1000, 50);
        Route a = table.route("/a");
        long ms = 1_000_000L;
        long t = 5 * ms;
        for (int i = 0; i < 10; i++) {
            assertThat(a.cpuSample(t, 100 * ms)).as("learning: every request, for itself").isEqualTo(1);
            a.record(ms, 0.2, 10, 5 * ms, 2 * ms);
        }
        // a heavy page's closed loop under 100 ms slices: bursts of three requests 1 ms apart every 600 ms, fewer than
        // one an interval on average; until 2026-12-06 only the first of each burst was measured, for all three
        for (int burst = 0; burst < 5; burst++) {
            for (int i = 0; i < 3; i++) {
                assertThat(a.cpuSample(t + burst * 600 * ms + i * ms, 100 * ms)).as("burst %d, request %d", burst, i)
                        .isEqualTo(1);
            }
        }
        assertThat(decided(table.route("/b")).cpuSample(t, 100 * ms)).as("per route").isEqualTo(1);
        Route c = decided(table.route("/c"));
        assertThat(c.cpuSample(-7 * ms, 100 * ms)).as("any nanoTime origin").isEqualTo(1);
        assertThat(c.cpuSample(-7 * ms + 700 * ms, 100 * ms)).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            assertThat(a.cpuSample(t, 0)).as("interval 0: every request").isEqualTo(1);
        }
    }

    /**
     * A busy route has about one request per interval measured, every n-th, n its requests per interval: which one
     * follows the count, not the clock, and each measurement stands for the requests since the one before. The stride
     * reaches n by doubling ({@link Route#STRIDE_GROWTH}).
     */
    @Test
    void shouldMeasureEveryNthRequestOfABusyRouteNTheRequestsPerInterval() {
        long ms = 1_000_000L;
        Route a = decided(new RouteTable(1000, 50).route("/a"));
        long t = -150 * ms; // any nanoTime origin: the intervals below cross 0
        List<Integer> measured = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        long counted = 0;
        for (int i = 0; i < 1013; i++, t += ms) { // one a millisecond: 100 an interval
            int w = a.cpuSample(t, 100 * ms);
            if (w > 0) {
                measured.add(i);
                weights.add(w);
                counted += w;
            }
        }
        // every request until an eighth of an interval has passed with eight strides' worth of requests, then the
        // stride doubles at each setting up to the rate
        assertThat(measured).as("the first 13").startsWith(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        for (int k = 1; k < weights.size(); k++) {
            assertThat(weights.get(k)).as("measurement %d stands for at most twice the one before", k)
                    .isBetween(weights.get(k - 1), 2 * weights.get(k - 1));
        }
        assertThat(measured.stream().filter(i -> i >= 500)).as("once the stride is the rate: every hundredth")
                .hasSize(5);
        assertThat(weights.get(weights.size() - 1)).isEqualTo(100);
        assertThat(measured).as("the ramp's cost: measurements besides one an interval").hasSizeLessThan(13 + 10 + 40);
        int tail = 1012 - measured.get(measured.size() - 1); // since the last measurement: its next one's
        assertThat(counted + tail).as("the measurements stand for every request").isEqualTo(1013);
        // the same rate in bursts, 100 requests in the first tenth of a millisecond of each interval: the same
        // requests by count, where the clock measured the first of each burst
        List<Integer> burst = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            long at = t + (i / 100) * 100 * ms + (i % 100) * 1000;
            if (a.cpuSample(at, 100 * ms) > 0) {
                burst.add(i);
            }
        }
        int first = burst.get(0) % 100;
        assertThat(burst).as("by the count, not after a pause").hasSize(10).allMatch(i -> i % 100 == first);
    }

    /**
     * A load that starts at once: 40 clients' first requests on a quiet route within 20 ms, then their closed loop's
     * next ones, ten a second. The burst's rate set a stride of 200, and the first request measured after it stood
     * for 16: under overload it ended seconds later, and the route's CPU meter read nothing for 3 s, then 0.6 s of
     * CPU in one second (docs/measurements/onset-default-20261206). The stride now at most doubles at each setting.
     */
    @Test
    void shouldNotLetABurstOnAQuietRouteMakeOneMeasurementStandForIt() {
        long ms = 1_000_000L;
        Route a = decided(new RouteTable(1000, 50).route("/a"));
        assertThat(a.cpuSample(0, 100 * ms)).isEqualTo(1);
        long t = 30_000 * ms; // quiet for 30 s
        int most = 0;
        long counted = 1;
        for (int i = 0; i < 40; i++) {
            int w = a.cpuSample(t + i * ms / 2, 100 * ms);
            most = Math.max(most, w);
            counted += w;
        }
        for (int i = 0; i < 100; i++) {
            int w = a.cpuSample(t + 20 * ms + (i + 1) * 100 * ms, 100 * ms);
            most = Math.max(most, w);
            counted += w;
        }
        assertThat(most).as("the most requests one measurement stands for").isLessThanOrEqualTo(4);
        assertThat(counted).isLessThanOrEqualTo(141).isGreaterThan(141 - 4);
    }

    /** Concurrent requests: the measurements together stand for every request, none twice. */
    @Test
    void shouldCountEveryConcurrentRequestInExactlyOneMeasurement() throws Exception {
        Route a = decided(new RouteTable(1000, 50).route("/a"));
        int threads = 4;
        int each = 50_000;
        long ms = 1_000_000L;
        AtomicLong clock = new AtomicLong();
        LongAdder counted = new LongAdder();
        LongAdder measurements = new LongAdder();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int k = 0; k < threads; k++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        int w = a.cpuSample(clock.addAndGet(1000), ms); // 1 us apart: about 1000 an interval
                        if (w > 0) {
                            counted.add(w);
                            measurements.increment();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(measurements.sum()).as("every request for an eighth of the first interval, then about one an"
                + " interval").isBetween(200L, 500L);
        // the requests after the last measurement wait for the next: a quiet moment later, the next request's
        int rest = a.cpuSample(clock.get() + 1000 * ms, ms);
        assertThat(counted.sum() + rest).as("every request in exactly one measurement")
                .isEqualTo((long) threads * each + 1);
    }

    /**
     * Once the table is full every request of a new page shares other, which never learns: it is measured as a decided
     * route is, about one request per interval, not every request (a thread CPU clock read costs context switches).
     */
    @Test
    void shouldMeasureAboutOneRequestPerIntervalOfTheSharedOtherRoute() {
        long ms = 1_000_000L;
        RouteTable table = new RouteTable(1, 1);
        table.end(table.route("/a"), true);
        Route other = table.route("/new-page");
        assertThat(other).isSameAs(table.other());
        int measured = 0;
        for (int i = 0; i < 1000; i++) {
            measured += other.cpuSample(i * ms, 100 * ms) > 0 ? 1 : 0;
        }
        // every request of the first eighth of an interval (the stride not yet known), then fewer as the stride
        // doubles, then one a hundred
        assertThat(measured).isBetween(13 + 9, 13 + 9 + 40);
        int late = 0;
        for (int i = 1000; i < 1500; i++) {
            late += other.cpuSample(i * ms, 100 * ms) > 0 ? 1 : 0;
        }
        assertThat(late).as("the next 500 requests").isEqualTo(5);
        assertThat(other.samples()).as("it learns nothing").isZero();
        assertThat(other.heavy()).isFalse();
    }

    @Test
    void shouldLeaveRejectedRequestsOutOfTheRequestsAMeasurementStandsFor() {
        long ms = 1_000_000L;
        Route quiet = decided(new RouteTable(1000, 50).route("/quiet"));
        assertThat(quiet.cpuSample(0, 100 * ms)).isEqualTo(1);
        int measured = quiet.cpuSample(200 * ms, 100 * ms);
        assertThat(measured).as("a quiet route: every request").isEqualTo(1);
        quiet.cpuSampleRejected(measured, 200 * ms, 100 * ms);
        assertThat(quiet.cpuSample(201 * ms, 100 * ms)).as("not at once: at most eight tries an interval").isZero();
        assertThat(quiet.cpuSample(202 * ms, 100 * ms)).isZero();
        quiet.cpuSampleRejected(0, 202 * ms, 100 * ms);
        assertThat(quiet.cpuSample(213 * ms, 100 * ms)).as("an eighth of the interval later, for itself and the one"
                + " at 201 ms; neither rejected request").isEqualTo(2);
        assertThat(quiet.cpuSample(400 * ms, 100 * ms)).isEqualTo(1);

        Route busy = decided(new RouteTable(1000, 50).route("/busy"));
        for (int i = 0; i < 600; i++) { // 100 an interval: the stride doubles from 13 ms on, 100 by 0.5 s
            busy.cpuSample(i * ms, 100 * ms);
        }
        long t = 599 * ms + ms / 2; // the requests below in one moment: the stride stays as it is
        while (busy.cpuSample(t, 100 * ms) == 0) {
            // to the next measurement: the count starts again after it
        }
        for (int i = 0; i < 90; i++) {
            assertThat(busy.cpuSample(t, 100 * ms)).isZero();
        }
        for (int i = 0; i < 10; i++) {
            busy.cpuSampleRejected(0, t, 100 * ms);
        }
        for (int i = 0; i < 19; i++) {
            assertThat(busy.cpuSample(t, 100 * ms)).as("ten requests later than without the rejections").isZero();
        }
        assertThat(busy.cpuSample(t, 100 * ms)).as("a hundred served requests").isEqualTo(100);
        for (int i = 0; i < 99; i++) {
            assertThat(busy.cpuSample(t, 100 * ms)).isZero();
        }
        int hundredth = busy.cpuSample(t, 100 * ms);
        assertThat(hundredth).isEqualTo(100);
        busy.cpuSampleRejected(hundredth, t, 100 * ms);
        for (int i = 0; i < 30; i++) {
            assertThat(busy.cpuSample(t + ms / 2, 100 * ms)).as("held off").isZero();
        }
        assertThat(busy.cpuSample(t + 13 * ms, 100 * ms)).as("the 99 served before the rejected one, the 30 held off"
                + " and itself").isEqualTo(130);
    }

    /** cpu.sample-interval may be a few nanoseconds: requests in the same nanosecond set no stride from no time. */
    @Test
    void shouldSetNoStrideFromRequestsInTheSameInstant() {
        Route a = decided(new RouteTable(1000, 50).route("/a"));
        for (int i = 0; i < 100; i++) {
            assertThat(a.cpuSample(42, 7)).as("request %d", i).isEqualTo(1);
        }
        assertThat(a.cpuSample(49, 7)).as("an interval later: 99 requests in 7 ns").isZero();
    }

    /**
     * A quiet route that gets busy has every request measured for an eighth of an interval, not a whole one; then
     * the stride doubles at each setting (about 250 of these 1000 requests measured, against 1000).
     */
    @Test
    void shouldSetTheStrideAgainSoonWhenAQuietRouteGetsBusy() {
        long ms = 1_000_000L;
        Route a = decided(new RouteTable(1000, 50).route("/a"));
        long t = 0;
        for (int i = 0; i < 5; i++, t += 500 * ms) {
            assertThat(a.cpuSample(t, 100 * ms)).as("quiet: every request").isEqualTo(1);
        }
        int measured = 0;
        long counted = 0;
        for (int i = 0; i < 1000; i++) { // then ten a millisecond for 100 ms
            int w = a.cpuSample(t + i * ms / 10, 100 * ms);
            measured += w > 0 ? 1 : 0;
            counted += w;
        }
        assertThat(measured).as("the first 12.5 ms of requests, then fewer as the stride doubles")
                .isBetween(125, 300);
        assertThat(counted).isLessThanOrEqualTo(1000);
    }

    /** The route after the adaptive classifier's first decision on it (ten requests of 1 ms measured). */
    private static Route decided(Route r) {
        for (int i = 0; i < 10; i++) {
            r.record(1_000_000L, 0.2, 10, 5_000_000L, 2_000_000L);
        }
        return r;
    }
}
