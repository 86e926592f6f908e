package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.Policy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** One case per validation rule: each names the key, the rule and the value in its message. */
class ConfigValidationTest {

    static Stream<Arguments> badValues() {
        return Stream.of(
                // key, value, words of the rule, [other keys...]
                Arguments.of("unknown key", "polcy", "share",
                        "is not a fairslice configuration key; did you mean policy? (see", new String[0]),
                Arguments.of("misspelt per-class key", "class.heavy.shares", "10",
                        "is not a fairslice configuration key; did you mean class.heavy.share? (see", new String[0]),
                Arguments.of("misspelt numbered key", "rules.2", "heavy path=/report*",
                        "is not a fairslice configuration key; did you mean rule.2? (see", new String[0]),
                Arguments.of("prefixed key where none is read", "fairslice.share.quantm", "2ms",
                        "is not a fairslice configuration key; did you mean share.quantum? (see", new String[0]),
                Arguments.of("per-class key of no class", "class.medium.share", "10", "is not a fairslice",
                        new String[0]),
                Arguments.of("boolean", "enabled", "yes", "must be true or false", new String[0]),
                Arguments.of("policy", "policy", "fair", "must be one of observe, sleep, share", new String[0]),
                Arguments.of("policy off", "policy", "none",
                        "must be one of observe, sleep, share (to switch fairslice off, set enabled=false)",
                        new String[0]),
                Arguments.of("class name", "classes", "light,Heavy", "must be a comma-separated list", new String[0]),
                Arguments.of("class repeated", "classes", "a,a", "must not repeat a name", new String[0]),
                Arguments.of("class name, a comma too many", "classes", "light,heavy,", "bad name ''", new String[0]),
                Arguments.of("at most 16 classes", "classes", "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "at most 16",
                        new String[0]),
                Arguments.of("default class", "default-class", "medium", "must be one of the configured classes",
                        new String[0]),
                Arguments.of("share range", "class.heavy.share", "0", "must be 1..1000", new String[0]),
                Arguments.of("share number", "class.heavy.share", "ten", "must be a whole number", new String[0]),
                Arguments.of("cap range", "class.heavy.max-concurrency", "-1", "must be 0..100000", new String[0]),
                Arguments.of("queue size range", "class.light.queue-size", "100001", "must be 0..100000",
                        new String[0]),
                Arguments.of("duration unit", "class.heavy.queue-timeout", "30", "must be a duration with a unit",
                        new String[0]),
                Arguments.of("duration range", "class.heavy.queue-timeout", "11m", "must be 1ms..10m", new String[0]),
                Arguments.of("rule number", "rule.x", "heavy path=/a", "rule.<n> with <n> a whole number",
                        new String[0]),
                Arguments.of("rule class", "rule.1", "medium path=/a", "must start with a configured class",
                        new String[0]),
                Arguments.of("rule needs a condition", "rule.1", "heavy", "at least one condition", new String[0]),
                Arguments.of("rule condition", "rule.1", "heavy url=/a", "unknown or repeated condition",
                        new String[0]),
                Arguments.of("rule path", "rule.1", "heavy path=a/*", "path glob must start with '/'", new String[0]),
                Arguments.of("rule path with a query", "rule.1", "heavy path=/search?q=long*",
                        "must not hold a query string ('?' then '='): the path is matched without it; use query:",
                        new String[0]),
                Arguments.of("rule query name", "rule.1", "heavy query:=x", "query parameter name must be non-empty",
                        new String[0]),
                Arguments.of("rule method", "rule.1", "heavy method=G3T", "method must be names", new String[0]),
                Arguments.of("rule method alternative", "rule.1", "heavy method=GET|", "method must be names",
                        new String[0]),
                Arguments.of("rule header", "rule.1", "heavy header:X(y)", "header name must be an HTTP token",
                        new String[0]),
                Arguments.of("adaptive class", "adaptive.class", "x", "must be one of the configured classes",
                        new String[0]),
                Arguments.of("heavy-above range", "adaptive.heavy-above", "0ns", "must be 1us..10s", new String[0]),
                Arguments.of("hysteresis", "adaptive.light-below", "6ms", "must be below adaptive.heavy-above",
                        new String[0]),
                Arguments.of("alpha range", "adaptive.alpha", "1.5", "must be 0.01..1.0", new String[0]),
                Arguments.of("alpha, a Java double literal", "adaptive.alpha", "0.05d", "must be a number 0.01..1.0",
                        new String[0]),
                Arguments.of("alpha, a Java float literal", "adaptive.alpha", "0.05f", "must be a number 0.01..1.0",
                        new String[0]),
                Arguments.of("alpha, a hex float", "adaptive.alpha", "0x1p-4", "must be a number 0.01..1.0",
                        new String[0]),
                Arguments.of("alpha, not a number", "adaptive.alpha", "NaN", "must be a number 0.01..1.0",
                        new String[0]),
                Arguments.of("share, hex", "class.heavy.share", "0x10", "must be a whole number 1..1000",
                        new String[0]),
                Arguments.of("share, digits of another script", "class.heavy.share", "\u0665",
                        "must be a whole number 1..1000", new String[0]),
                Arguments.of("min samples", "adaptive.min-samples", "0", "must be 1..10000", new String[0]),
                Arguments.of("cpu sampling", "cpu.sample-interval", "11s", "must be 0ns..10s", new String[0]),
                Arguments.of("route number", "route.first", "/products/*", "route.<n> with <n> a whole number",
                        new String[0]),
                Arguments.of("route glob", "route.1", "products/*", "one path glob starting with '/'", new String[0]),
                Arguments.of("route one glob", "route.1", "/products/* /users/*", "one path glob", new String[0]),
                Arguments.of("route brace", "route.1", "/files/{p:.+/.+}", "'{' at 7 opens no path variable",
                        new String[0]),
                Arguments.of("route with a query", "route.1", "/search?q=*",
                        "must be a path glob without a query string ('?' then '='): the path is matched without it",
                        new String[0]),
                Arguments.of("rule brace", "rule.1", "heavy path=/items/{id", "'{' at 7 opens no path variable",
                        new String[0]),
                Arguments.of("routes", "routes.max", "0", "must be 1..100000", new String[0]),
                Arguments.of("pages within routes", "routes.max-pages", "20", "must be at most routes.max",
                        new String[] {"routes.max", "10"}),
                Arguments.of("quantum range", "share.quantum", "50us", "must be 100us..1s", new String[0]),
                Arguments.of("max park range", "share.max-park", "2m", "must be 1ms..1m", new String[0]),
                Arguments.of("linger range", "share.linger", "2s", "must be 0ns..1s", new String[0]),
                Arguments.of("eviction range", "routes.evict-after", "25h", "must be 0ns..24h", new String[0]),
                Arguments.of("eviction below the second", "routes.evict-after", "500ms",
                        "must be 0s (never) or at least 1s", new String[0]),
                Arguments.of("cpus range", "share.cpus", "2000", "must be 0..1024", new String[0]),
                Arguments.of("sleep quantum", "sleep.quantum", "1us", "must be 10us..10s", new String[0]),
                Arguments.of("sleep duration", "sleep.duration", "1h", "must be 10us..10s", new String[0]),
                Arguments.of("sleep classes", "sleep.classes", "heavy,huge", "must list configured classes",
                        new String[0]),
                Arguments.of("sleep classes, none", "sleep.classes", ",", "an empty name", new String[0]),
                Arguments.of("sleep classes, a comma too many", "sleep.classes", "heavy,", "an empty name",
                        new String[0]),
                Arguments.of("sleep with one class", "policy", "sleep", "name it in sleep.classes",
                        new String[] {"classes", "web"}),
                Arguments.of("retry-after", "retry-after.max", "500ms", "must be 1s..1h", new String[0]),
                Arguments.of("jmx", "jmx", "on", "must be true or false", new String[0]),
                Arguments.of("charge-gc", "share.charge-gc", "1", "must be true or false", new String[0]));
    }

    @ParameterizedTest(name = "{0}: {1}={2}")
    @MethodSource("badValues")
    void shouldRejectABadValueNamingKeyRuleAndValue(String rule, String key, String value, String words,
                                                    String[] others) {
        Map<String, String> keys = new HashMap<>();
        for (int i = 0; i < others.length; i += 2) {
            keys.put(others[i], others[i + 1]);
        }
        keys.put(key, value);
        assertThatThrownBy(() -> FairsliceConfig.parse(keys))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining(key).hasMessageContaining(words).hasMessageContaining("'" + value + "'")
                .satisfies(e -> assertThat(((FairsliceConfigException) e).key()).isEqualTo(key));
    }

    /** A suggestion only for a near miss: a key of something else entirely gets none. */
    @Test
    void shouldSuggestNoKeyForAKeyFarFromEveryKey() {
        assertThatThrownBy(() -> FairsliceConfig.parse(Map.of("maximum-threads", "200")))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("maximum-threads is not a fairslice configuration key "
                        + "(see docs/configuration.md");
        assertThatThrownBy(() -> FairsliceConfig.parse(Map.of("classes", "light,normal,heavy",
                "class.normal.queue-sise", "10")))
                .hasMessageContaining("; did you mean class.normal.queue-size? (see");
    }

    @Test
    void shouldRejectAListenerSettingTheListenerDoesNotDeclare() {
        Map<String, Set<String>> listeners = Map.of("probe", Set.of("interval", "nice.*"));
        assertThatThrownBy(() -> FairsliceConfig.parse(Map.of("probe.intervall", "1s"), listeners))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("probe.intervall")
                .hasMessageContaining("is not a setting of the request listener");
    }

    @Test
    void shouldHandListenersTheirDeclaredSettingsIncludingWildcards() {
        Map<String, Set<String>> listeners = Map.of("probe", Set.of("interval", "nice.*"));
        FairsliceConfig c = FairsliceConfig.parse(Map.of("probe.interval", "1s", "probe.nice.heavy", "10"), listeners);
        assertThat(c.listenerSettings().get("probe")).containsEntry("interval", "1s").containsEntry("nice.heavy", "10");
    }

    /**
     * The started line and the JMX attribute print the whole configuration: a listener's settings were left out (its
     * name alone), so {@code kernel-probe.enabled=false} read as a probe that runs.
     */
    @Test
    void shouldPrintEachListenersSettingsWithTheConfiguration() {
        Map<String, Set<String>> listeners = Map.of("probe", Set.of("interval", "nice.*"), "quiet", Set.of("level"));
        FairsliceConfig c = FairsliceConfig.parse(Map.of("probe.nice.heavy", "10", "probe.interval", "1s"), listeners);
        assertThat(c.toString()).endsWith(", listeners=[probe{interval=1s, nice.heavy=10}, quiet]}");
    }

    @Test
    void shouldDefaultToShareWithLightEightyAndHeavyTwenty() {
        FairsliceConfig c = FairsliceConfig.ofDefaults();
        assertThat(c.policy()).isEqualTo(Policy.SHARE);
        assertThat(c.classNames()).containsExactly("light", "heavy");
        assertThat(c.classes().get(0).share()).isEqualTo(80);
        assertThat(c.classes().get(1).share()).isEqualTo(20);
        assertThat(c.adaptiveClass()).isEqualTo(1);
        assertThat(c.sleepClasses()).containsExactly("heavy");
        assertThat(c.cpus()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    /**
     * {@code share.cpus=0} reads the processors once, as the filter starts (configuration.md): a runtime change of
     * another key keeps that count, even on a server moved to other CPUs since; one that sets {@code share.cpus}
     * reads them again. (Every runtime change read them again, so switching the policy changed the run slots.)
     */
    @Test
    void shouldKeepTheProcessorsReadAtStartUnlessShareCpusChanges() {
        int startup = Runtime.getRuntime().availableProcessors() + 5; // as if the server had five CPUs more then
        FairsliceConfig c = ConfigParser.parse(Map.of(), Map.of(), startup);
        assertThat(c.cpus()).isEqualTo(startup);

        assertThat(c.with(Map.of("policy", "observe")).with(Map.of("share.quantum", "2ms")).cpus()).isEqualTo(startup);
        assertThat(c.with(Map.of("share.cpus", "3")).cpus()).isEqualTo(3);
        assertThat(c.with(Map.of("share.cpus", "3")).with(Map.of("share.cpus", "0")).cpus())
                .isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(ConfigParser.parse(Map.of("share.cpus", "4"), Map.of(), startup).with(Map.of("policy", "sleep"))
                .cpus()).isEqualTo(4);
    }

    @Test
    void shouldParseDurationsWithUnits() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("share.quantum", "250us", "share.max-park", "1.5s",
                "class.heavy.queue-timeout", "2m"));
        assertThat(c.shareQuantum()).isEqualTo(Duration.ofNanos(250_000));
        assertThat(c.shareMaxPark()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.classes().get(1).queueTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.format(Duration.ofMillis(5))).isEqualTo("5ms");
    }

    /** Numbers in base 10 as other tools write them: a sign, a fraction, an exponent; leading zeros stay decimal. */
    @Test
    void shouldParseNumbersInBaseTenOnly() {
        assertThat(FairsliceConfig.parse(Map.of("adaptive.alpha", "5e-2")).adaptiveAlpha()).isEqualTo(0.05);
        assertThat(FairsliceConfig.parse(Map.of("adaptive.alpha", ".5")).adaptiveAlpha()).isEqualTo(0.5);
        assertThat(FairsliceConfig.parse(Map.of("adaptive.alpha", "+1")).adaptiveAlpha()).isEqualTo(1.0);
        assertThat(FairsliceConfig.parse(Map.of("class.heavy.share", "010")).classes().get(1).share())
                .as("not octal").isEqualTo(10);
        assertThat(FairsliceConfig.parse(Map.of("share.quantum", ".5ms")).shareQuantum())
                .isEqualTo(Duration.ofNanos(500_000));
    }

    @Test
    void shouldApplyARuntimeChangeWithTheSameValidation() {
        FairsliceConfig c = FairsliceConfig.ofDefaults();
        assertThat(c.with(Map.of("class.heavy.share", "10")).classes().get(1).share()).isEqualTo(10);
        assertThatThrownBy(() -> c.with(Map.of("class.heavy.share", "0")))
                .hasMessageContaining("class.heavy.share must be 1..1000, got '0'");
        assertThat(c.classes().get(1).share()).as("the original is unchanged").isEqualTo(20);
    }

    /**
     * A runtime change whose value conflicts with a key set at startup is refused naming the changed key and the
     * value tried (it named the startup key and value, the tried one only inside the rule's text).
     */
    @Test
    void shouldNameTheChangedKeyWhenItConflictsWithAStartupKey() {
        FairsliceConfig c = FairsliceConfig.parse(Map.of("adaptive.light-below", "3ms", "routes.max", "100"));
        assertThatThrownBy(() -> c.with(Map.of("adaptive.heavy-above", "2ms")))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("adaptive.heavy-above must be above adaptive.light-below (3ms)")
                .hasMessageContaining("'2ms'")
                .satisfies(e -> assertThat(((FairsliceConfigException) e).key()).isEqualTo("adaptive.heavy-above"));
        assertThatThrownBy(() -> c.with(Map.of("adaptive.light-below", "6ms")))
                .satisfies(e -> assertThat(((FairsliceConfigException) e).key()).isEqualTo("adaptive.light-below"));
        assertThatThrownBy(() -> FairsliceConfig.parse(Map.of("routes.max-pages", "80"))
                .with(Map.of("routes.max", "50")))
                .hasMessageContaining("routes.max must be at least routes.max-pages (80), got '50'")
                .satisfies(e -> assertThat(((FairsliceConfigException) e).key()).isEqualTo("routes.max"));
        assertThatThrownBy(() -> c.with(Map.of("routes.max-pages", "200")))
                .satisfies(e -> assertThat(((FairsliceConfigException) e).key()).isEqualTo("routes.max-pages"));
    }
}
