package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTableTest {

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
    void shouldStayBoundedUnderAHundredThousandDistinctUrls() {
        RouteTable table = new RouteTable(1000, 50);
        Set<String> pages = new HashSet<>();
        Set<Route> routes = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < 100_000; i++) {
            Route r = table.route("/attack/p" + Integer.toString(i, 36) + "x/q");
            pages.add(r.page());
            routes.add(r);
        }
        assertThat(table.size()).isEqualTo(1000);
        assertThat(routes).as("distinct route objects").hasSize(1001);
        assertThat(pages).as("distinct page tag values").hasSize(51).contains("other");
        assertThat(table.overflowCount()).isEqualTo(99_000);
        assertThat(table.route("/attack/fresh-one")).isSameAs(table.other());
    }

    @Test
    void shouldReturnTheSameRouteForTheSamePath() {
        RouteTable table = new RouteTable(10, 10);
        assertThat(table.route("/orders/1")).isSameAs(table.route("/orders/2")).isSameAs(table.route("/orders/1"));
    }

    @Test
    void shouldMeasureEveryRequestWhileARouteLearnsThenOnePerIntervalCountingTheRequestsBetween() {
        RouteTable table = new RouteTable(1000, 50);
        Route a = table.route("/a");
        long ms = 1_000_000L;
        long t = 5 * ms;
        for (int i = 0; i < 10; i++) {
            assertThat(a.cpuSample(t, 100 * ms)).as("learning: every request, for itself").isEqualTo(1);
            a.record(ms, 0.2, 10, 5 * ms, 2 * ms);
        }
        assertThat(a.cpuSample(t, 100 * ms)).as("the first request after the decision").isEqualTo(1);
        assertThat(a.cpuSample(t + ms, 100 * ms)).isZero();
        assertThat(a.cpuSample(t + 99 * ms, 100 * ms)).isZero();
        assertThat(a.cpuSample(t + 100 * ms, 100 * ms)).as("stands for itself and the two before").isEqualTo(3);
        assertThat(a.cpuSample(t + 150 * ms, 100 * ms)).isZero();
        assertThat(a.cpuSample(t + 400 * ms, 100 * ms)).as("a quiet route: the next request is measured")
                .isEqualTo(2);
        assertThat(decided(table.route("/b")).cpuSample(t + 150 * ms, 100 * ms)).as("per route").isEqualTo(1);
        Route c = decided(table.route("/c"));
        assertThat(c.cpuSample(-7 * ms, 100 * ms)).as("any nanoTime origin").isEqualTo(1);
        assertThat(c.cpuSample(-6 * ms, 100 * ms)).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(a.cpuSample(t, 0)).as("interval 0: every request").isEqualTo(1);
        }
    }

    /** The route after the adaptive classifier's first decision on it (ten requests of 1 ms measured). */
    private static Route decided(Route r) {
        for (int i = 0; i < 10; i++) {
            r.record(1_000_000L, 0.2, 10, 5_000_000L, 2_000_000L);
        }
        return r;
    }
}
