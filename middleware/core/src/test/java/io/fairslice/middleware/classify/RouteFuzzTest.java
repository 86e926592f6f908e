package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.metrics.MeterNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the route normaliser and the bounded route table with hostile paths: any string (percent escapes, empty
 * and dot segments, path parameters, control and non-BMP characters, very long segments) gives a short route key,
 * normalising twice changes nothing, nothing throws, and the table never holds more routes or page tag values
 * than configured.
 */
class RouteFuzzTest {

    /** Eight kept segments of at most 48 characters, their slashes, and the "/**" marker. */
    static final int MAX_KEY_LENGTH = 8 * (1 + 48) + 3;

    @Property(tries = 3000, shrinking = ShrinkingMode.BOUNDED)
    void normalisedKeysAreShortWellFormedAndStable(@ForAll("paths") String path) {
        String key = RouteTable.normalise(path);
        assertThat(key).startsWith("/").doesNotContain("//");
        assertThat(key.length()).isLessThanOrEqualTo(MAX_KEY_LENGTH);
        assertThat(RouteTable.normalise(key)).as("idempotent").isEqualTo(key);
    }

    @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED)
    void theTableStaysWithinItsBounds(@ForAll("pathLists") List<String> paths,
                                      @ForAll @IntRange(min = 1, max = 40) int maxRoutes,
                                      @ForAll @IntRange(min = 1, max = 40) int maxPages) {
        int pages = Math.min(maxPages, maxRoutes);
        RouteTable table = new RouteTable(maxRoutes, pages);
        Set<String> pageTags = new HashSet<>();
        Set<Route> routes = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String p : paths) {
            Route r = table.route(p);
            Route again = table.route(p); // a second request of the path, in flight at once
            assertThat(again).as("the same path, the same route").isSameAs(r);
            assertThat(r.key().length()).isLessThanOrEqualTo(MAX_KEY_LENGTH);
            boolean served = (p.hashCode() & 3) != 0; // a quarter of the paths answer 404
            Route ended = table.end(again, served);
            assertThat(table.end(r, served)).as("both requests counted on one route").isSameAs(ended);
            pageTags.add(ended.page());
            routes.add(ended);
        }
        assertThat(table.size()).isLessThanOrEqualTo(maxRoutes);
        assertThat(table.candidates()).as("candidates once no request is in flight").isZero();
        assertThat(routes).hasSizeLessThanOrEqualTo(maxRoutes + 1);
        pageTags.remove(MeterNames.PAGE_OTHER);
        assertThat(pageTags).hasSizeLessThanOrEqualTo(pages);
    }

    @Test
    void shouldStayBoundedWhenManyThreadsAddDistinctPathsAtOnce() throws Exception {
        RouteTable table = new RouteTable(100, 10);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Set<Route>>> seen = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                seen.add(pool.submit(() -> {
                    Set<Route> mine = Collections.newSetFromMap(new IdentityHashMap<>());
                    for (int i = 0; i < 20_000; i++) {
                        mine.add(table.end(table.route("/t" + thread + "/p" + i + "x"), true));
                        mine.add(table.end(table.route("/shared/p" + (i % 300) + "x"), true));
                    }
                    return mine;
                }));
            }
            Set<Route> all = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Future<Set<Route>> f : seen) {
                all.addAll(f.get());
            }
            assertThat(table.size()).isEqualTo(100);
            assertThat(table.candidates()).isZero();
            assertThat(all).as("route objects requests were counted on").hasSizeLessThanOrEqualTo(101);
            Set<String> keys = new HashSet<>();
            all.forEach(r -> assertThat(keys.add(r.key())).as("one route object per key: %s", r.key()).isTrue());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldNotCacheLongClientChosenPaths() {
        RouteTable table = new RouteTable(1000, 50);
        // one real page reached through endless long spellings of a parameter-like segment that collapses to {x}
        String longSegment = "q".repeat(7000);
        for (int i = 0; i < 5000; i++) {
            Route r = table.end(table.route("/search/" + longSegment + i), true);
            assertThat(r.key()).isEqualTo("/search/{x}");
        }
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.cachedPaths()).as("7 KB paths are normalised each time, never cached").isZero();
        for (int i = 0; i < 10_000; i++) {
            table.end(table.route("/search/" + "r".repeat(100) + i), true);
        }
        assertThat(table.cachedPaths()).as("short paths cached up to 4 x routes.max").isEqualTo(4000);
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> segment = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12)),
                Tuple.of(2, Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(25)),
                Tuple.of(2, Arbitraries.strings().withChars("0123456789abcdefABCDEF-").ofMinLength(1).ofMaxLength(40)),
                Tuple.of(2, Arbitraries.of("", ".", "..", "%2e%2e", "%2F", "%00", "%ff%fe", "%zz", ";jsessionid=ABC",
                        "x;jsessionid=1", "{n}", "{id}", "{x}", "**", "*", "?", "\\", "..;", "%", "\u0000", "\r\n",
                        "\uD83D\uDE00", "\uD800", "é", "\u202E")),
                Tuple.of(1, Arbitraries.strings().ofMinLength(40).ofMaxLength(200)),
                Tuple.of(2, Arbitraries.strings().ofMaxLength(20)));
        Arbitrary<String> separator = Arbitraries.of("/", "/", "/", "//", "///", "/./", "/../");
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.lazy(() -> segment.list().ofMaxSize(14).flatMap(segments ->
                        separator.list().ofSize(segments.size()).map(seps -> {
                            StringBuilder b = new StringBuilder();
                            for (int i = 0; i < segments.size(); i++) {
                                b.append(seps.get(i)).append(segments.get(i));
                            }
                            return b.toString();
                        })))),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(300)),
                Tuple.of(1, Arbitraries.of("", "/", "//", "/" + "a/".repeat(5000), "/" + "9".repeat(10_000),
                        "x".repeat(9000))));
    }

    @Provide
    Arbitrary<List<String>> pathLists() {
        return paths().list().ofMaxSize(120);
    }
}
