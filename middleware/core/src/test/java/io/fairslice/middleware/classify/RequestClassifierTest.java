package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.FairsliceConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.ToLongFunction;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestClassifierTest {

    private static final long MS = 1_000_000L;
    private static final long US = 1_000L;
    private static final long CHECK_INTERVAL = RequestClassifier.CHECK_INTERVAL_NANOS;
    private static final Function<String, Enumeration<String>> NO_HEADERS = h -> Collections.emptyEnumeration();

    /** A request's headers, as HttpServletRequest.getHeaders gives them: only {@code name}, with these values. */
    private static Function<String, Enumeration<String>> header(String name, String... values) {
        return h -> h.equalsIgnoreCase(name) ? Collections.enumeration(List.of(values))
                : Collections.emptyEnumeration();
    }

    private static int classify(FairsliceConfig c, RequestClassifier k, String path, String method,
                                Function<String, Enumeration<String>> headers) {
        int ruled = k.ruleClass(c, path, method, headers, () -> null); // as the filter asks
        return ruled >= 0 ? ruled : k.routeClass(c, k.route(path));
    }

    /**
     * A failure after adaptive.heavy-above of CPU lets its path join the table at the path's second such failure: a
     * cold JVM's first request of a path is slow once, and a scan of paths that all answer 500 sends each once.
     */
    @Test
    void shouldLetAPathJoinAtItsSecondCostlyFailureNotItsFirst() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        RequestClassifier classifier = new RequestClassifier(c);
        long costly = c.adaptiveHeavyAbove().toNanos();

        for (int i = 0; i < 50; i++) { // a scan: each path once (words, not numbers: each its own key), a slow 500
            String word = "" + (char) ('a' + i % 26) + (char) ('a' + i / 26);
            classifier.end(c, classifier.route("/scan/" + word), "GET", 500, costly);
        }
        Route first = classifier.end(c, classifier.route("/report"), "GET", 500, costly);
        Route second = classifier.end(c, classifier.route("/report"), "GET", 500, costly);

        assertThat(first.page()).as("one costly failure").isEqualTo("other");
        assertThat(second.key()).isEqualTo("/report");
        assertThat(second.page()).as("the second joins, under its own page").isEqualTo("/report");
        assertThat(classifier.routes().size()).as("the scan took no place").isEqualTo(1);
        assertThat(classifier.end(c, classifier.route("/cheap"), "GET", 500, 0).page())
                .isEqualTo(classifier.end(c, classifier.route("/cheap"), "GET", 500, 0).page()).isEqualTo("other");
    }

    @Test
    void shouldApplyTheFirstMatchingRuleInNumericOrder() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("classes", "a,b,c", "adaptive", "false",
                "rule.20", "b path=/reports/**", "rule.3", "c path=/reports/big/* method=POST",
                "rule.100", "c header:X-Batch"));
        RequestClassifier k = new RequestClassifier(c);
        assertThat(classify(c, k, "/reports/big/1", "POST", NO_HEADERS)).isEqualTo(2);
        assertThat(classify(c, k, "/reports/big/1", "GET", NO_HEADERS)).isEqualTo(1);
        assertThat(classify(c, k, "/reports/x/y/z", "GET", NO_HEADERS)).isEqualTo(1);
        assertThat(classify(c, k, "/home", "GET", header("X-Batch", "1"))).isEqualTo(2);
        assertThat(classify(c, k, "/home", "GET", NO_HEADERS)).as("default class").isEqualTo(0);
    }

    @Test
    void shouldMatchAQueryParameterAsSentDecodedAnyOfItsValues() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false",
                "rule.1", "heavy path=/search query:scope=all*", "rule.2", "heavy path=/export query:full"));
        RequestClassifier k = new RequestClassifier(c);
        for (String query : List.of("scope=all", "q=x&scope=all+years", "scope=a&scope=all", "q=%26&scope=al%6C",
                "scope=all&")) {
            assertThat(k.ruleClass(c, "/search", "GET", NO_HEADERS, () -> query)).as(query).isEqualTo(1);
        }
        for (String query : Arrays.asList(null, "", "scope=al", "q=scope%3Dall", "xscope=all", "scope", "scope=%zz",
                "&&&")) {
            assertThat(k.ruleClass(c, "/search", "GET", NO_HEADERS, () -> query)).as(query).isEqualTo(-1);
        }
        assertThat(k.ruleClass(c, "/other", "GET", NO_HEADERS, () -> "scope=all")).as("and the path").isEqualTo(-1);
        for (String query : List.of("full", "full=", "full=1", "a=b&full")) {
            assertThat(k.ruleClass(c, "/export", "GET", NO_HEADERS, () -> query)).as(query).isEqualTo(1);
        }
        assertThat(k.ruleClass(c, "/export", "GET", NO_HEADERS, () -> "fullx=1")).isEqualTo(-1);
    }

    @Test
    void shouldLetDoubleStarsInAPathMatchNoSegmentAsWellAsSeveral() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false", "rule.1", "heavy path=/**/export",
                "rule.2", "heavy path=/report/**", "rule.3", "heavy path=/a/**.csv"));
        RequestClassifier k = new RequestClassifier(c);
        for (String heavy : List.of("/export", "/shop/export", "/a/b/c/export", "/report", "/report/", "/report/x/y",
                "/a/x.csv", "/a/b/c.csv")) {
            assertThat(classify(c, k, heavy, "GET", NO_HEADERS)).as(heavy).isEqualTo(1);
        }
        for (String light : List.of("/exports", "/shop/export/x", "/xexport", "/reports", "/reportx/y", "/a.csv",
                "/b/x.csv")) {
            assertThat(classify(c, k, light, "GET", NO_HEADERS)).as(light).isEqualTo(0);
        }
    }

    /**
     * {@code /export/} reaches the servlet mapped to {@code /export/*} as {@code /export} does, and routes drop one
     * trailing slash: a rule's path matches with or without it, or the request escaped the rule.
     */
    @Test
    void shouldMatchARulesPathWithOneTrailingSlashMore() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false", "rule.1", "heavy path=/export",
                "rule.2", "heavy path=/api/items/{id}"));
        RequestClassifier k = new RequestClassifier(c);
        for (String heavy : List.of("/export", "/export/", "/api/items/5", "/api/items/5/")) {
            assertThat(classify(c, k, heavy, "GET", NO_HEADERS)).as(heavy).isEqualTo(1);
        }
        for (String light : List.of("/export//", "/export/x", "/api/items", "/", "/exportx/")) {
            assertThat(classify(c, k, light, "GET", NO_HEADERS)).as(light).isEqualTo(0);
        }
    }

    /** Tomcat decodes %0A in a path and serves it: a rule's ** and ? must match it, or the request escapes the rule. */
    @Test
    void shouldMatchADecodedNewlineInAPathAndKeepQuestionMarksInOneSegment() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false", "rule.1", "heavy path=/reports/**",
                "rule.2", "heavy path=/q?", "rule.3", "heavy path=/a?b"));
        RequestClassifier k = new RequestClassifier(c);
        for (String heavy : List.of("/reports/q1\nx", "/reports/\n", "/q\n", "/axb")) {
            assertThat(classify(c, k, heavy, "GET", NO_HEADERS)).as(heavy).isEqualTo(1);
        }
        assertThat(classify(c, k, "/a/b", "GET", NO_HEADERS)).as("? matches no /").isEqualTo(0);
    }

    @Test
    void shouldMatchExtensionMethodsWithHyphens() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false",
                "rule.1", "heavy method=M-SEARCH|REPORT"));
        RequestClassifier k = new RequestClassifier(c);
        assertThat(classify(c, k, "/", "M-SEARCH", NO_HEADERS)).isEqualTo(1);
        assertThat(classify(c, k, "/", "GET", NO_HEADERS)).isEqualTo(0);
    }

    @Test
    void shouldMatchHeaderValuesWithGlobs() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("rule.1", "heavy header:User-Agent=*bot*"));
        RequestClassifier k = new RequestClassifier(c);
        assertThat(classify(c, k, "/", "GET", header("User-Agent", "Googlebot/2.1"))).isEqualTo(1);
        assertThat(classify(c, k, "/", "GET", header("User-Agent", "Firefox"))).isEqualTo(0);
    }

    /** A header sent more than once matches when any of its values does: a value before it cannot hide the one. */
    @Test
    void shouldMatchAHeaderSentMoreThanOnceByAnyOfItsValues() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("classes", "a,b", "adaptive", "false",
                "rule.1", "b header:X-Tier=batch", "rule.2", "b header:X-Export"));
        RequestClassifier k = new RequestClassifier(c);
        assertThat(classify(c, k, "/", "GET", header("X-Tier", "web", "batch"))).as("the second value").isEqualTo(1);
        assertThat(classify(c, k, "/", "GET", header("X-Tier", "web", "web"))).isEqualTo(0);
        assertThat(classify(c, k, "/", "GET", header("X-Export", "", ""))).as("present, empty").isEqualTo(1);
        assertThat(classify(c, k, "/", "GET", h -> null)).as("no headers to read").isEqualTo(0);
    }

    @Test
    void shouldMoveARouteToTheHeavyClassOnlyAfterMinSamplesAboveTheThreshold() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3", "adaptive.alpha", "0.5"));
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/report");
        k.learn(c, r, 20 * MS);
        k.learn(c, r, 20 * MS);
        assertThat(classify(c, k, "/report", "GET", NO_HEADERS)).as("two samples").isEqualTo(0);
        k.learn(c, r, 20 * MS);
        assertThat(classify(c, k, "/report", "GET", NO_HEADERS)).as("three samples").isEqualTo(1);
        assertThat(k.reclassifiedInto(1)).isEqualTo(1);
    }

    /**
     * Served paths beyond routes.max share the route other: one expensive page among them must not make every page
     * that did not fit heavy.
     */
    @Test
    void shouldNotLearnOnTheSharedOtherRoute() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3", "routes.max", "2",
                "routes.max-pages", "2"));
        RequestClassifier k = new RequestClassifier(c);
        k.end(k.route("/a"), "GET", 200);
        k.end(k.route("/b"), "GET", 200);
        Route reports = k.route("/reports/export");
        assertThat(reports).isSameAs(k.routes().other());
        for (int i = 0; i < 10; i++) {
            k.learn(c, reports, 50 * MS);
        }
        assertThat(classify(c, k, "/home", "GET", NO_HEADERS)).as("another page beyond the table").isEqualTo(0);
        assertThat(k.watch(c, reports, 0, 0, 0, cls -> { })).as("nothing to watch on other").isNull();
    }

    /**
     * A scan of 10 000 URLs that answer 404 before an expensive page is first reached, each request run as the filter
     * runs it (route, end with its status, learn on the route it ended on): the page still learns heavy.
     */
    @Test
    void shouldLearnAPageFirstReachedAfterTenThousandNotFoundUrls() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3"));
        RequestClassifier k = new RequestClassifier(c);
        for (int i = 0; i < 10_000; i++) {
            Route r = k.route("/scan/p" + i + "x.php");
            k.learn(c, k.end(r, "GET", 404), 50 * MS);
        }
        assertThat(k.routes().size()).isZero();
        assertThat(k.reclassifiedInto(1)).as("nothing learnt from the scan").isZero();
        for (int i = 0; i < 3; i++) {
            Route r = k.route("/reports/yearly");
            assertThat(k.routeClass(c, r)).as("request %d", i + 1).isZero();
            k.learn(c, k.end(r, "GET", 200), 50 * MS);
        }
        Route report = k.route("/reports/yearly");
        assertThat(report).isNotSameAs(k.routes().other());
        assertThat(report.heavy()).isTrue();
        assertThat(report.page()).isEqualTo("/reports/yearly");
        assertThat(k.routeClass(c, report)).isEqualTo(1);
        assertThat(k.routes().size()).isEqualTo(1);
        k.end(report, "GET", 200);
        assertThat(k.routes().candidates()).isZero();
    }

    @ParameterizedTest(name = "status {0}")
    @ValueSource(ints = {200, 204, 301, 302, 303, 304})
    void shouldLetAPathJoinTheTableWhenItsRequestIsServed(int status) {
        RequestClassifier k = new RequestClassifier(FairsliceConfig.parse(Map.of()));
        Route r = k.route("/page");
        assertThat(k.end(r, "GET", status)).isSameAs(r);
        assertThat(k.routes().size()).isEqualTo(1);
    }

    @ParameterizedTest(name = "status {0}")
    @ValueSource(ints = {400, 401, 403, 404, 405, 410, 429, 500, 502, 503})
    void shouldNotLetAPathJoinTheTableWhenItsRequestIsNotServed(int status) {
        RequestClassifier k = new RequestClassifier(FairsliceConfig.parse(Map.of()));
        Route r = k.route("/page");
        assertThat(k.end(r, "GET", status)).isSameAs(k.routes().other());
        assertThat(k.routes().size()).isZero();
        assertThat(k.routes().candidates()).isZero();
    }

    /**
     * The container answers OPTIONS (and TRACE, where the connector allows it) for any path, existing or not: a scan
     * sent with them must not fill the table. HEAD is answered like GET, so a served HEAD counts.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"OPTIONS", "TRACE"})
    void shouldNotLetAPathJoinTheTableOnAMethodTheContainerAnswersForAnyPath(String method) {
        RequestClassifier k = new RequestClassifier(FairsliceConfig.parse(Map.of()));
        for (int i = 0; i < 100; i++) {
            Route r = k.route("/scan/p" + i + "x.php");
            assertThat(k.end(r, method, 200)).isSameAs(k.routes().other());
        }
        assertThat(k.routes().size()).isZero();
        assertThat(k.routes().candidates()).isZero();
        Route page = k.route("/page");
        assertThat(k.end(page, "HEAD", 200)).as("HEAD is answered like GET").isSameAs(page);
        assertThat(k.end(k.route("/page"), method, 200)).as("a path in the table keeps its route")
                .isSameAs(page);
        assertThat(k.routes().size()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0} cold requests")
    @ValueSource(ints = {1, 3, 4, 5, 9})
    void shouldKeepACheapRouteLightThroughAColdJvmsSlowFirstRequests(int cold) {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/light");
        long[] coldCpu = {50 * MS, 30 * MS, 45 * MS, 35 * MS, 40 * MS};
        for (int i = 0; i < cold; i++) {
            k.learn(c, r, coldCpu[i % coldCpu.length]);
            assertThat(r.heavy()).as("cold request %d", i + 1).isFalse();
        }
        for (int i = 0; i < 100; i++) {
            k.learn(c, r, 300 * US);
            assertThat(r.heavy()).as("warm request %d after %d cold ones", i + 1, cold).isFalse();
        }
        assertThat(classify(c, k, "/light", "GET", NO_HEADERS)).isEqualTo(0);
        assertThat(k.reclassifiedInto(1)).isZero();
        assertThat(r.expectedCpuNanos()).as("the EWMA starts from the cheapest early request")
                .isBetween(299 * US, 301 * US);
    }

    @Test
    void shouldMakeARouteWhoseEveryRequestIsExpensiveHeavyFromItsMinSamplesRequestOn() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        assertThat(c.adaptiveMinSamples()).as("the documented default").isEqualTo(10);
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/report");
        for (int i = 1; i < c.adaptiveMinSamples(); i++) {
            k.learn(c, r, i <= 3 ? 60 * MS : 25 * MS);
            assertThat(r.heavy()).as("request %d: still learning", i).isFalse();
        }
        k.learn(c, r, 25 * MS);
        assertThat(r.heavy()).as("request %d", c.adaptiveMinSamples()).isTrue();
        assertThat(classify(c, k, "/report", "GET", NO_HEADERS)).isEqualTo(1);
        assertThat(k.reclassifiedInto(1)).isEqualTo(1);
    }

    @Test
    void shouldMakeARouteThatIsOftenExpensiveHeavySoonAfterTheFirstDecision() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/search");
        // cache hit 1 ms, miss 50 ms: the minimum (1 ms) decides light; the EWMA then sees the misses
        for (int i = 1; i <= c.adaptiveMinSamples(); i++) {
            k.learn(c, r, i % 2 == 1 ? 1 * MS : 50 * MS);
        }
        assertThat(r.heavy()).as("first decision").isFalse();
        for (int i = 0; i < 2; i++) { // EWMA from 1 ms at alpha 0.05: 3.45 ms after one miss, 5.66 after two
            k.learn(c, r, 1 * MS);
            k.learn(c, r, 50 * MS);
        }
        assertThat(r.heavy()).as("four requests after the decision").isTrue();
    }

    /**
     * A route whose requests are half 20 ms and half 0.1 ms (a cache miss and hit: 10 ms on average, twice
     * heavy-above) is heavy and stays heavy. At adaptive.alpha 0.2 the EWMA followed about the last five requests, a
     * run of eight cheap ones (one in 256) took it under light-below, and the route changed class 43 times in 10 000
     * measurements; at the default 0.05 it takes a run of about 32.
     */
    @Test
    void shouldNotFlapOnARouteOfHalfExpensiveHalfCheapRequests() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        Route r = new Route("/search");
        Random random = new Random(42);
        int changes = 0;
        for (int i = 0; i < 10_000; i++) {
            boolean decided = r.decided();
            int change = r.record(random.nextBoolean() ? 20 * MS : 100 * US, c.adaptiveAlpha(),
                    c.adaptiveMinSamples(), c.adaptiveHeavyAbove().toNanos(), c.adaptiveLightBelow().toNanos());
            if (decided && change != 0) {
                changes++;
            }
        }
        assertThat(r.heavy()).isTrue();
        assertThat(changes).as("class changes after the first decision (light, on the cheapest request): heavy once")
                .isLessThanOrEqualTo(1);
    }

    @Test
    void shouldKeepHysteresisAfterTheFirstDecision() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/pdf");
        for (int i = 0; i < c.adaptiveMinSamples(); i++) {
            k.learn(c, r, 25 * MS);
        }
        assertThat(r.heavy()).isTrue();
        for (int i = 0; i < 100; i++) {
            k.learn(c, r, 3 * MS);
        }
        assertThat(r.heavy()).as("EWMA ~3 ms, between light-below and heavy-above").isTrue();
        int light = 0;
        while (r.heavy() && light < 20) {
            k.learn(c, r, 300 * US);
            light++;
        }
        assertThat(r.heavy()).as("below light-below after %d cheap requests", light).isFalse();
        assertThat(k.reclassifiedInto(0)).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            k.learn(c, r, 4 * MS);
        }
        assertThat(r.heavy()).as("4 ms is below heavy-above: light stays light").isFalse();
    }

    /** Thread CPU clocks for the classifier to read: set per thread by a test, counted as they are read. */
    private static final class ThreadClocks implements ToLongFunction<Thread> {
        final Map<Thread, Long> cpu = new HashMap<>();
        int reads;

        @Override
        public long applyAsLong(Thread t) {
            reads++;
            return cpu.getOrDefault(t, -1L);
        }

        /** A thread (never started) whose clock reads {@code nanos} as a request of {@code route} starts on it. */
        RequestClassifier.Watch running(RequestClassifier k, FairsliceConfig c, Route route, long nanos, long now) {
            Thread t = new Thread(() -> { });
            cpu.put(t, nanos);
            return k.watch(c, route, t, c.defaultClass(), nanos, now, null);
        }

        /**
         * A request of {@code route} in class {@code requestClass} that follows its route's class ({@code moveTo}),
         * on a thread (never started) whose clock reads 0 as it starts.
         */
        RequestClassifier.Watch following(RequestClassifier k, FairsliceConfig c, Route route, int requestClass,
                                          long now, IntConsumer moveTo) {
            Thread t = new Thread(() -> { });
            cpu.put(t, 0L);
            return k.watch(c, route, t, requestClass, 0, now, moveTo);
        }
    }

    @Test
    void shouldMakeANewRouteHeavyOnceMinSamplesOfItsRunningRequestsHaveUsedMoreThanHeavyAbove() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "4"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/export");
        long t0 = 1_000 * MS;
        List<RequestClassifier.Watch> ws = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ws.add(clocks.running(k, c, r, 100 * MS, t0));
        }
        k.check(c, t0 + 4 * MS);
        assertThat(clocks.reads).as("4 ms after they started none can have used 5 ms: no clock read").isZero();
        ws.forEach(w -> clocks.cpu.put(w.thread, 100 * MS + 6 * MS));
        clocks.cpu.put(ws.get(3).thread, 100 * MS + 2 * MS);
        k.check(c, t0 + 4 * MS + CHECK_INTERVAL - 1);
        assertThat(clocks.reads).as("one check per interval").isZero();
        k.check(c, t0 + 4 * MS + CHECK_INTERVAL);
        assertThat(clocks.reads).isEqualTo(4);
        assertThat(r.heavy()).as("three of four running requests past 5 ms").isFalse();
        clocks.cpu.put(ws.get(3).thread, 100 * MS + 5 * MS + 1);
        k.check(c, t0 + 4 * MS + 2 * CHECK_INTERVAL);
        assertThat(clocks.reads).as("the fourth, which lacked 3 ms, read at the next check").isEqualTo(5);
        assertThat(r.heavy()).as("four running requests past 5 ms, none finished").isTrue();
        assertThat(classify(c, k, "/export", "GET", NO_HEADERS)).isEqualTo(1);
        assertThat(k.reclassifiedInto(1)).isEqualTo(1);
        assertThat(k.watching()).isZero();
        assertThat(r.expectedCpuNanos()).as("what each of them is known to cost at least").isEqualTo(5 * MS);
        assertThat(r.decided()).as("heavy until its finished requests decide").isFalse();
        ws.forEach(k::unwatch);
        k.learn(c, r, 90 * MS);
        assertThat(r.expectedCpuNanos()).as("the cheapest finished request, as the first decision will take it")
                .isEqualTo(90 * MS);
        assertThat(r.heavy()).isTrue();
    }

    /**
     * The first requests of a new page, in flight at once, share its candidate route: their CPU so far makes it heavy
     * before any has ended (and moves them), and it joins the table as the first is served, heavy, with them.
     */
    @Test
    void shouldMakeANewPagesCandidateHeavyWhileItsFirstRequestsRunAndKeepThatAsItJoins() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        long t0 = 1_000 * MS;
        List<Route> held = new ArrayList<>();
        List<RequestClassifier.Watch> ws = new ArrayList<>();
        List<Integer> moved = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Route r = k.route("/export/" + i);
            held.add(r);
            Thread t = new Thread(() -> { });
            clocks.cpu.put(t, 0L);
            ws.add(k.watch(c, r, t, k.routeClass(c, r), 0, t0, moved::add));
        }
        assertThat(held).as("one candidate for the page's requests in flight").containsOnly(held.get(0));
        assertThat(k.routes().size()).isZero();
        ws.forEach(w -> clocks.cpu.put(w.thread, 6 * MS));
        k.check(c, t0 + 10 * MS);
        Route candidate = held.get(0);
        assertThat(candidate.heavy()).as("three running requests past 5 ms").isTrue();
        assertThat(moved).as("its requests in flight moved to heavy").containsExactly(1, 1, 1);
        assertThat(k.routes().size()).as("not in the table before one is served").isZero();

        k.unwatch(ws.get(0));
        Route joined = k.end(held.get(0), "GET", 200);
        k.learn(c, joined, 50 * MS);
        assertThat(joined).as("the candidate itself joins").isSameAs(candidate);
        assertThat(k.routes().size()).isEqualTo(1);
        assertThat(k.routeClass(c, k.route("/export/9"))).as("a later request of the page").isEqualTo(1);
        for (int i = 1; i < 3; i++) {
            k.unwatch(ws.get(i));
            k.learn(c, k.end(held.get(i), "GET", 200), 50 * MS);
        }
        assertThat(candidate.decided()).isTrue();
        assertThat(candidate.heavy()).isTrue();
        assertThat(k.routes().candidates()).isZero();
    }

    @Test
    void shouldNotReadARunningRequestsClockBeforeItCanHaveUsedWhatItLacks() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.heavy-above", "50ms"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        long t0 = 1_000 * MS;
        RequestClassifier.Watch w = clocks.running(k, c, k.route("/wait"), 0, t0);
        for (long t = t0; t < t0 + 50 * MS; t += CHECK_INTERVAL) {
            k.check(c, t);
        }
        assertThat(clocks.reads).as("its CPU cannot grow faster than wall time: nothing to read for 50 ms").isZero();
        clocks.cpu.put(w.thread, 10 * MS); // blocked on I/O most of the time
        k.check(c, t0 + 50 * MS);
        assertThat(clocks.reads).isEqualTo(1);
        for (long t = t0 + 60 * MS; t < t0 + 90 * MS; t += CHECK_INTERVAL) {
            k.check(c, t);
        }
        assertThat(clocks.reads).as("it lacked 40 ms of CPU: not read again for 40 ms").isEqualTo(1);
        k.check(c, t0 + 90 * MS);
        assertThat(clocks.reads).isEqualTo(2);
        assertThat(k.watching()).isEqualTo(1);
    }

    /**
     * Requests that wait (queued at admission, parked) read nothing new, and took every read of a check, always the
     * same ones: a new page's running request was never read while more than sixteen others waited. They are read
     * with the reads left over, in turn: one may have passed the bound before it began to wait.
     */
    @Test
    void shouldReadRunningRequestsFirstAndWaitingOnesInTurnWithTheReadsLeftOver() throws Exception {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "1"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        long t0 = 1_000 * MS;
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> queued = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                Thread t = new Thread(() -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
                queued.add(t);
                clocks.cpu.put(t, 0L);
                k.watch(c, k.route("/search"), t, c.defaultClass(), 0, t0, null);
            }
            for (Thread t : queued) {
                while (t.getState() != Thread.State.WAITING) {
                    Thread.onSpinWait();
                }
            }
            Route report = k.route("/report"); // one that used 6 ms before it began to wait
            clocks.cpu.put(queued.get(99), 6 * MS);
            k.watch(c, report, queued.get(99), c.defaultClass(), 0, t0, null);
            Route export = k.route("/export");
            RequestClassifier.Watch running = clocks.running(k, c, export, 0, t0);
            clocks.cpu.put(running.thread, 6 * MS);

            k.check(c, t0 + 10 * MS);

            assertThat(export.heavy()).as("its running request read first, past 5 ms").isTrue();
            assertThat(clocks.reads).as("and waiting ones with the reads left")
                    .isEqualTo(RequestClassifier.MAX_READS_PER_CHECK);
            for (int check = 2; check <= 12 && !report.heavy(); check++) { // 101 waiting: 7 checks of 15 reads
                k.check(c, t0 + check * 10 * MS);
            }
            assertThat(report.heavy()).as("every waiting request read in turn").isTrue();
        } finally {
            release.countDown();
            for (Thread t : queued) {
                t.join();
            }
        }
    }

    @Test
    void shouldReadAtMostSixteenRunningRequestsPerCheck() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of());
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        long t0 = 1_000 * MS;
        for (int i = 0; i < 40; i++) {
            clocks.running(k, c, k.route("/p" + i), 0, t0);
        }
        k.check(c, t0 + 100 * MS);
        assertThat(clocks.reads).isEqualTo(RequestClassifier.MAX_READS_PER_CHECK);
    }

    @Test
    void shouldNotCountARunningRequestThatEndedBeforeItWasRead() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "1"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/x");
        long t0 = 1_000 * MS;
        RequestClassifier.Watch w = clocks.running(k, c, r, 0, t0);
        k.unwatch(w);
        clocks.cpu.put(w.thread, 50 * MS); // the thread serves another request now
        k.check(c, t0 + 50 * MS);
        assertThat(clocks.reads).isZero();
        assertThat(r.provenAbove(w, 1, 5 * MS)).as("a check that read it before it ended").isZero();
        assertThat(r.heavy()).isFalse();
    }

    @Test
    void shouldKeepTheCheapestRuleWhenAFinishedRequestOfTheRouteWasCheap() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/mixed");
        long t0 = 1_000 * MS;
        k.learn(c, r, 300 * US);
        for (int i = 0; i < 3; i++) {
            clocks.running(k, c, r, 0, t0);
        }
        clocks.cpu.replaceAll((t, v) -> 20 * MS);
        k.check(c, t0 + 20 * MS);
        assertThat(r.heavy()).as("a 300 us request among the first: the cheapest is light").isFalse();
        assertThat(r.decided()).isFalse();
    }

    @Test
    void shouldCountRunningRequestsBesideFinishedOnesForTheFirstDecision() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "4"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/pdf");
        long t0 = 1_000 * MS;
        k.learn(c, r, 30 * MS);
        k.learn(c, r, 20 * MS);
        RequestClassifier.Watch a = clocks.running(k, c, r, 0, t0);
        clocks.running(k, c, r, 0, t0);
        clocks.cpu.put(a.thread, 6 * MS);
        k.check(c, t0 + 6 * MS);
        assertThat(r.heavy()).as("two finished and one running").isFalse();
        k.learn(c, r, 25 * MS);
        assertThat(r.heavy()).as("three finished and one running, all past 5 ms: the cheapest 6+ ms").isTrue();
        assertThat(r.expectedCpuNanos()).as("the cheapest finished one").isEqualTo(20 * MS);
        k.check(c, t0 + 6 * MS + CHECK_INTERVAL);
        assertThat(k.watching()).as("the other running one: watched until four have finished").isEqualTo(1);
        k.learn(c, r, 40 * MS);
        assertThat(r.decided()).isTrue();
        k.check(c, t0 + 6 * MS + 2 * CHECK_INTERVAL);
        assertThat(k.watching()).as("decided: no longer watched").isZero();
    }

    /**
     * A cold JVM: many requests of a cheap page start at once, run interpreted and pass heavy-above together before
     * any has finished. The running requests make the page heavy, but only until the first finished request that cost
     * less: the first decision is still the cheapest of the first min-samples, and the requests in flight follow back.
     */
    @Test
    void shouldEndAHeavyMadeByRunningRequestsAtTheFirstCheaperFinishedOne() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "10"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/catalog");
        long t0 = 1_000 * MS;
        List<Integer> moved = new ArrayList<>();
        List<RequestClassifier.Watch> ws = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ws.add(clocks.following(k, c, r, 0, t0, moved::add));
        }
        clocks.cpu.replaceAll((t, v) -> 6 * MS);
        k.check(c, t0 + 6 * MS);
        assertThat(r.heavy()).as("16 read, all past 5 ms").isTrue();
        assertThat(moved).as("the 30 in flight, to heavy").hasSize(30).containsOnly(1);
        moved.clear();
        k.unwatch(ws.get(0));
        k.learn(c, r, 7 * MS);
        assertThat(r.heavy()).as("the first to finish cost 7 ms: still every one past the bound").isTrue();
        RequestClassifier.Watch late = k.watch(c, r, new Thread(() -> { }), 1, 0, t0 + 7 * MS, moved::add);
        assertThat(late).as("a request classified heavy meanwhile, watched too").isNotNull();
        k.unwatch(ws.get(1));
        k.learn(c, r, 400 * US);
        assertThat(r.heavy()).as("a finished request below the bound: the cheapest rule calls the page light")
                .isFalse();
        assertThat(r.decided()).isFalse();
        assertThat(moved).as("the 28 still in flight and the late one, back to light").hasSize(29).containsOnly(0);
        assertThat(k.reclassifiedInto(1)).isEqualTo(1);
        assertThat(k.reclassifiedInto(0)).isEqualTo(1);
        clocks.cpu.replaceAll((t, v) -> 20 * MS);
        for (int i = 1; i <= 3; i++) {
            k.check(c, t0 + 7 * MS + i * CHECK_INTERVAL);
        }
        assertThat(r.heavy()).as("not heavy again from running requests: a finished one was cheaper").isFalse();
        for (int i = 0; i < 8; i++) {
            k.learn(c, r, 8 * MS);
        }
        assertThat(r.decided()).isTrue();
        assertThat(r.heavy()).as("decided on the cheapest of the first ten").isFalse();
        assertThat(r.expectedCpuNanos()).isEqualTo(400 * US);
        moved.clear();
        assertThat(k.watch(c, r, new Thread(() -> { }), 1, 0, t0 + 9 * MS, moved::add))
                .as("classified heavy before the decision, decided light as its watch begins: not watched").isNull();
        assertThat(moved).as("but moved to light").containsExactly(0);
    }

    @Test
    void shouldMoveTheRequestsInFlightOfANewRouteToItsFirstClassUnlessARuleGaveThemTheirs() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/report");
        long t0 = 1_000 * MS;
        List<Integer> moved = new ArrayList<>();
        List<RequestClassifier.Watch> ws = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int request = i;
            ws.add(k.watch(c, r, new Thread(() -> { }), 0, 0, t0, cls -> moved.add(request * 10 + cls)));
        }
        RequestClassifier.Watch ruled = k.watch(c, r, new Thread(() -> { }), 0, 0, t0, null); // a rule's class
        RequestClassifier.Watch queued = k.watch(c, r, new Thread(() -> { }), 0, -1, t0, cls -> moved.add(30 + cls));
        RequestClassifier.Watch ended = k.watch(c, r, new Thread(() -> { }), 0, 0, t0, cls -> moved.add(40 + cls));
        k.unwatch(ended);
        assertThat(k.watching()).as("a request whose CPU is not measured is not read, but follows").isEqualTo(4);
        ws.forEach(w -> clocks.cpu.put(w.thread, 6 * MS));
        k.check(c, t0 + 6 * MS);
        assertThat(r.heavy()).isTrue();
        assertThat(moved).as("the three read and the one not measured, to heavy (1); not the ruled nor the ended")
                .containsExactlyInAnyOrder(1, 11, 21, 31);
        moved.clear();
        RequestClassifier.Watch late = k.watch(c, r, new Thread(() -> { }), 0, 0, t0 + 7 * MS,
                cls -> moved.add(50 + cls)); // classified light before the decision, watched after it
        assertThat(late).as("watched: the route is heavy but undecided until three have finished").isNotNull();
        assertThat(moved).as("moved as its watch began").containsExactly(51);
        moved.clear();
        RequestClassifier.Watch heavyAlready = k.watch(c, r, new Thread(() -> { }), 1, 0, t0 + 7 * MS,
                cls -> moved.add(60 + cls));
        assertThat(moved).as("classified heavy already: nothing to move").isEmpty();
        ws.forEach(k::unwatch);
        k.unwatch(ruled);
        k.unwatch(queued);
        k.unwatch(late);
        k.unwatch(heavyAlready);
        assertThat(r.running()).isEmpty();
    }

    /**
     * A move takes the scheduler's lock: it must not run inside the route's monitor. Before Java 24 a virtual thread
     * waiting for a lock inside {@code synchronized} pins its carrier; with two carriers pinned so (one moving a
     * route's requests, one entering that route's monitor to end a request), the virtual thread next in line for the
     * scheduler's lock had no carrier to take it on, and every request hung. Each way a move starts is tried: a
     * running request read past the bound, a finished one deciding, a watch that begins after a change.
     */
    @Test
    void shouldMoveRequestsOutsideTheRoutesMonitor() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "2"));
        ThreadClocks clocks = new ThreadClocks();
        RequestClassifier k = new RequestClassifier(c, clocks);
        Route r = k.route("/report");
        List<Boolean> monitorHeld = new ArrayList<>();
        IntConsumer move = cls -> monitorHeld.add(Thread.holdsLock(r));
        long t0 = 1_000 * MS;
        List<RequestClassifier.Watch> ws = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ws.add(clocks.following(k, c, r, 0, t0, move));
        }
        clocks.cpu.replaceAll((t, v) -> 6 * MS);
        k.check(c, t0 + 6 * MS); // read past heavy-above: heavy, both moved
        k.watch(c, r, new Thread(() -> { }), 0, 0, t0 + 7 * MS, move); // classified light before: moved as it begins
        k.learn(c, r, 400 * US); // a cheaper finished one: light again, the three moved back
        assertThat(monitorHeld).as("moves made").hasSize(6).containsOnly(false);
        ws.forEach(k::unwatch);
    }

    @Test
    void shouldMoveTheRequestsInFlightWhenFinishedRequestsDecideTheRoute() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "2"));
        RequestClassifier k = new RequestClassifier(c, new ThreadClocks());
        Route r = k.route("/report");
        List<Integer> moved = new ArrayList<>();
        k.watch(c, r, new Thread(() -> { }), 0, 0, 0, moved::add);
        k.learn(c, r, 30 * MS);
        assertThat(moved).isEmpty();
        k.learn(c, r, 20 * MS);
        assertThat(r.heavy()).isTrue();
        assertThat(moved).containsExactly(1);
    }

    @Test
    void shouldDecideAtTheNextRequestWhenMinSamplesIsLoweredWhileARouteLearns() {
        FairsliceConfig ten = FairsliceConfig.parse(Map.of());
        FairsliceConfig three = FairsliceConfig.parse(Map.of("adaptive.min-samples", "3"));
        RequestClassifier k = new RequestClassifier(ten);
        Route r = k.route("/report");
        for (int i = 0; i < 5; i++) {
            k.learn(ten, r, 25 * MS);
        }
        assertThat(r.heavy()).isFalse();
        k.learn(three, r, 25 * MS);
        assertThat(r.heavy()).isTrue();
    }

    /** The first decision, exactly: heavy iff even the cheapest of the first min-samples requests was above. */
    @Property(tries = 500)
    void firstDecisionIsTheMinimumOfTheFirstMinSamplesRequestsAgainstHeavyAbove(
            @ForAll @Size(min = 1, max = 30) List<@LongRange(min = 0, max = 100_000_000) Long> cpuNanos,
            @ForAll @IntRange(min = 0, max = 4) int alphaTenths) {
        double alpha = 0.2 + alphaTenths * 0.2;
        long heavyAbove = 5 * MS;
        Route r = new Route("/p");
        for (int i = 0; i < cpuNanos.size() - 1; i++) {
            assertThat(r.record(cpuNanos.get(i), alpha, cpuNanos.size(), heavyAbove, 2 * MS)).isZero();
        }
        long min = cpuNanos.stream().mapToLong(Long::longValue).min().orElseThrow();
        int change = r.record(cpuNanos.get(cpuNanos.size() - 1), alpha, cpuNanos.size(), heavyAbove, 2 * MS);
        assertThat(r.heavy()).isEqualTo(min > heavyAbove);
        assertThat(change).isEqualTo(min > heavyAbove ? 1 : 0);
        assertThat(r.expectedCpuNanos()).isEqualTo(min);
    }

    @Test
    void shouldKeepAHeavyRouteHeavyBetweenTheThresholds() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "1", "adaptive.alpha", "1",
                "adaptive.heavy-above", "5ms", "adaptive.light-below", "2ms"));
        RequestClassifier k = new RequestClassifier(c);
        Route r = k.route("/flappy");
        k.learn(c, r, 6 * MS);
        assertThat(r.heavy()).isTrue();
        k.learn(c, r, 3 * MS);
        assertThat(r.heavy()).as("3 ms is between the thresholds: hysteresis keeps it heavy").isTrue();
        k.learn(c, r, 6 * MS);
        k.learn(c, r, 1 * MS);
        assertThat(r.heavy()).as("below light-below").isFalse();
        assertThat(k.reclassifiedInto(0)).isEqualTo(1);
    }

    @Test
    void shouldLetRulesWinOverAdaptiveDecisions() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.min-samples", "1", "rule.1", "light path=/pdf"));
        RequestClassifier k = new RequestClassifier(c);
        k.learn(c, k.route("/pdf"), 50 * MS);
        assertThat(k.route("/pdf").heavy()).isTrue();
        assertThat(classify(c, k, "/pdf", "GET", NO_HEADERS)).isEqualTo(0);
    }

    /**
     * With the adaptive mode off a route still records what its requests cost (learn does not look at the mode), but
     * the class lookup ignores it: the route's requests stay in the default class and no reclassification is counted.
     */
    @Test
    void shouldKeepTheDefaultClassWhenAdaptiveIsOffWhateverTheRouteMeasured() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false", "adaptive.min-samples", "1"));
        RequestClassifier k = new RequestClassifier(c);
        Route x = k.route("/x");
        k.learn(c, x, 50 * MS);
        assertThat(x.heavy()).as("recorded all the same").isTrue();
        assertThat(classify(c, k, "/x", "GET", NO_HEADERS)).isEqualTo(0);
        assertThat(k.reclassifiedInto(1)).as("no move counted").isZero();
        assertThat(k.watch(c, x, 0, 0, 0, cls -> { })).as("nothing watched").isNull();
    }
}
