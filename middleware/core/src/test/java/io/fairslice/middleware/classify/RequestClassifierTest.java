package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.FairsliceConfig;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
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
    private static final UnaryOperator<String> NO_HEADERS = h -> null;

    private static int classify(FairsliceConfig c, RequestClassifier k, String path, String method,
                                UnaryOperator<String> headers) {
        return k.classify(c, k.route(path), path, method, headers);
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
        assertThat(classify(c, k, "/home", "GET", h -> h.equals("X-Batch") ? "1" : null)).isEqualTo(2);
        assertThat(classify(c, k, "/home", "GET", NO_HEADERS)).as("default class").isEqualTo(0);
    }

    @Test
    void shouldMatchHeaderValuesWithGlobs() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("rule.1", "heavy header:User-Agent=*bot*"));
        RequestClassifier k = new RequestClassifier(c);
        assertThat(classify(c, k, "/", "GET", h -> "Googlebot/2.1")).isEqualTo(1);
        assertThat(classify(c, k, "/", "GET", h -> "Firefox")).isEqualTo(0);
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
        k.learn(c, r, 1 * MS);
        k.learn(c, r, 50 * MS);
        assertThat(r.heavy()).as("two requests after the decision").isTrue();
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
        Route r = new Route("/p", "/p");
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

    @Test
    void shouldIgnoreMeasurementsWhenAdaptiveIsOff() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive", "false", "adaptive.min-samples", "1"));
        RequestClassifier k = new RequestClassifier(c);
        k.learn(c, k.route("/x"), 50 * MS);
        assertThat(classify(c, k, "/x", "GET", NO_HEADERS)).isEqualTo(0);
    }
}
