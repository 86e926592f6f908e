package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.FairsliceConfig;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RequestClassifierTest {

    private static final long MS = 1_000_000L;
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
