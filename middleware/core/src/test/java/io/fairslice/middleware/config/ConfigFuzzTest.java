package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Example;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * Fuzzes the configuration parser: whatever keys and values arrive (from a properties file, context or init
 * parameters, system properties, or a JMX change), the result is a valid configuration or a
 * {@link FairsliceConfigException} that names one of the keys given, never another exception. Bounded tries keep
 * the suite fast (about a second each).
 */
class ConfigFuzzTest {

    private static final List<String> KNOWN_KEYS = List.of(ConfigKeys.ENABLED, ConfigKeys.POLICY, ConfigKeys.CLASSES,
            ConfigKeys.DEFAULT_CLASS, ConfigKeys.ADAPTIVE, ConfigKeys.ADAPTIVE_CLASS, ConfigKeys.ADAPTIVE_HEAVY_ABOVE,
            ConfigKeys.ADAPTIVE_LIGHT_BELOW, ConfigKeys.ADAPTIVE_ALPHA, ConfigKeys.ADAPTIVE_MIN_SAMPLES,
            ConfigKeys.ROUTES_MAX, ConfigKeys.ROUTES_MAX_PAGES, ConfigKeys.ROUTES_EVICT_AFTER, ConfigKeys.SHARE_QUANTUM,
            ConfigKeys.SHARE_MAX_PARK,
            ConfigKeys.SHARE_LINGER, ConfigKeys.SHARE_CPUS, ConfigKeys.SLEEP_QUANTUM, ConfigKeys.SLEEP_DURATION,
            ConfigKeys.SLEEP_CLASSES, ConfigKeys.RETRY_AFTER_MAX, ConfigKeys.JMX);
    private static final List<String> CLASS_NAMES = List.of("light", "heavy", "batch", "a", "Heavy", "", "x y");
    private static final List<String> PER_CLASS = List.of(ConfigKeys.SHARE, ConfigKeys.MAX_CONCURRENCY,
            ConfigKeys.QUEUE_SIZE, ConfigKeys.QUEUE_TIMEOUT, "bogus");

    @Property(tries = 2000, shrinking = ShrinkingMode.BOUNDED)
    void anyKeysParseIntoAValidConfigOrAnExceptionNamingAGivenKey(@ForAll("configs") Map<String, String> keys) {
        checkParse(keys);
    }

    @Property(tries = 500, shrinking = ShrinkingMode.BOUNDED)
    void aRuntimeChangeIsValidatedLikeStartup(@ForAll("configs") Map<String, String> changes) {
        FairsliceConfig base = FairsliceConfig.parse(Map.of("classes", "light,heavy,batch", "rule.1",
                "heavy path=/reports/**"));
        try {
            FairsliceConfig next = base.with(changes);
            assertThat(next.classes()).isNotEmpty();
        } catch (FairsliceConfigException e) {
            assertNamesAGivenKey(e, union(base, changes));
        } catch (RuntimeException e) {
            fail("change " + changes + " threw " + e, e);
        }
    }

    @Property(tries = 1000, shrinking = ShrinkingMode.BOUNDED)
    void anyPropertiesFileMergesAndParsesOrNamesTheFileOrAKey(@ForAll("propertiesFiles") byte[] file) {
        Map<String, String> keys;
        try {
            keys = ConfigSources.merge(n -> null, List.of(), Map.of(),
                    p -> new ByteArrayInputStream(file), null, new Properties()).keys();
        } catch (FairsliceConfigException e) { // a key of the file, repeated: named with the file
            assertThat(e.rule()).startsWith("is given twice in /WEB-INF/fairslice.properties");
            return;
        } catch (IllegalArgumentException e) { // no valid properties file: named, and no key blamed (none was set)
            assertThat(e.getMessage()).startsWith("fairslice configuration: the file /WEB-INF/fairslice.properties");
            return;
        } catch (RuntimeException e) {
            fail("a properties file of " + file.length + " bytes threw " + e, e);
            return;
        }
        checkParse(keys);
    }

    @Example
    void shouldNameTheFileWhenItsEscapesAreMalformed() throws Exception {
        byte[] bad = "policy=share\nclasses=\\u00zz\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> ConfigSources.merge(n -> null, List.of(), Map.of(),
                p -> new ByteArrayInputStream(bad), null, new Properties()))
                .isNotInstanceOf(FairsliceConfigException.class)
                .hasMessageStartingWith("fairslice configuration: the file /WEB-INF/fairslice.properties (in the web"
                        + " application; read as no fairslice.config names a file) must be a valid properties file");
        Path named = Files.createTempFile("fairslice-fuzz", ".properties");
        try {
            Files.write(named, bad);
            Properties system = new Properties();
            system.setProperty(ConfigKeys.CONFIG_FILE_PROPERTY, named.toString());
            assertThatThrownBy(() -> ConfigSources.merge(n -> null, List.of(), Map.of(), p -> null, null, system))
                    .isInstanceOf(FairsliceConfigException.class).as("named: the key that named it")
                    .hasMessageContaining(ConfigKeys.CONFIG_FILE_PROPERTY).hasMessageContaining(named.toString());
        } finally {
            Files.deleteIfExists(named);
        }
    }

    @Example
    void shouldAcceptARuleMethodListThatRepeatsAMethod() {
        FairsliceConfig config = FairsliceConfig.parse(Map.of("rule.3", "heavy method=GET|get"));
        assertThat(config.rules().get(0).matches("/x", "GET", h -> null)).isTrue();
        assertThat(config.rules().get(0).matches("/x", "POST", h -> null)).isFalse();
    }

    @Example
    void shouldRefuseTwoRuleKeysOfTheSameOrderRatherThanDropOne() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("rule.1", "heavy path=/a");
        keys.put("rule.01", "light path=/b");
        assertThatThrownBy(() -> FairsliceConfig.parse(keys))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("rule.01")
                .hasMessageContaining("rule.1");
    }

    @Example
    void shouldTreatAnAbsentValueAsUnsetNotCrash() {
        Map<String, String> keys = new HashMap<>();
        keys.put("policy", null);
        assertThat(FairsliceConfig.parse(keys).policy().value()).isEqualTo("share");
        keys.put("polcy", null);
        assertThatThrownBy(() -> FairsliceConfig.parse(keys)).isInstanceOf(FairsliceConfigException.class)
                .hasMessageStartingWith("fairslice configuration: polcy ");
    }

    private static void checkParse(Map<String, String> keys) {
        try {
            FairsliceConfig config = FairsliceConfig.parse(keys);
            // a parsed configuration is internally consistent
            assertThat(config.classes()).isNotEmpty().hasSizeLessThanOrEqualTo(16);
            assertThat(config.defaultClass()).isBetween(0, config.classes().size() - 1);
            assertThat(config.adaptiveClass()).isBetween(0, config.classes().size() - 1);
            assertThat(config.routesMaxPages()).isBetween(1, config.routesMax());
            assertThat(config.adaptiveLightBelow()).isLessThan(config.adaptiveHeavyAbove());
            assertThat(config.cpus()).isPositive();
            config.rules().forEach(r -> assertThat(r.classIndex()).isBetween(0, config.classes().size() - 1));
            // and parses again from its own source to the same thing (what a JMX change starts from)
            assertThat(config.with(Map.of()).toString()).isEqualTo(config.toString());
        } catch (FairsliceConfigException e) {
            assertNamesAGivenKey(e, keys);
        } catch (RuntimeException e) {
            fail("keys " + keys + " threw " + e, e);
        }
    }

    private static void assertNamesAGivenKey(FairsliceConfigException e, Map<String, String> keys) {
        Set<String> trimmed = new HashSet<>();
        keys.keySet().forEach(k -> trimmed.add(k == null ? null : k.trim()));
        assertThat(trimmed).as("the key named by: %s", e.getMessage()).contains(e.key());
        assertThat(e.getMessage()).startsWith("fairslice configuration: " + e.key() + " ");
    }

    private static Map<String, String> union(FairsliceConfig base, Map<String, String> changes) {
        Map<String, String> all = new HashMap<>(Map.of("classes", "light,heavy,batch", "rule.1", "x"));
        all.putAll(changes);
        return all;
    }

    @Provide
    Arbitrary<Map<String, String>> configs() {
        Arbitrary<String> key = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.of(KNOWN_KEYS)),
                net.jqwik.api.Tuple.of(4, Combinators.combine(Arbitraries.of(CLASS_NAMES), Arbitraries.of(PER_CLASS))
                        .as((c, k) -> ConfigKeys.CLASS_PREFIX + c + "." + k)),
                net.jqwik.api.Tuple.of(3, Arbitraries.of("rule.1", "rule.2", "rule.01", "rule.0", "rule.10000",
                        "rule.x", "rule.", "rule.99999999999", "rule.٣")),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(" policy", "policy ", "fairslice.policy", "", " ")),
                net.jqwik.api.Tuple.of(1, Arbitraries.strings().ofMaxLength(20)));
        return Arbitraries.maps(key, value()).ofMaxSize(8);
    }

    private static Arbitrary<String> value() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of("true", "false", "TRUE", "yes", "share", "sleep", "observe",
                        "Share ", "light,heavy", "light,heavy,batch", "a,a", "light,,heavy", "light,", ",", "light",
                        "heavy", "batch", "0", "1", "-1", "10", "1000", "1001", "100000", "2147483648",
                        "99999999999999999999", "0.5", "NaN", "Infinity", "-0.0", "1e3", "0x10", "5ms", "2ms", "500us",
                        "500µs", "0ns", "1.5s", "1..5ms", ".ms", "ms", "5", "5 ms", "10m", "1h", "9999999999999h",
                        "١٢ms", "")),
                net.jqwik.api.Tuple.of(3, rule()),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(-5, 200_000).map(String::valueOf)),
                net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.doubles().between(0, 5000),
                        Arbitraries.of("ns", "us", "ms", "s", "m", "min", "h", "d", "")).as((n, u) -> n + u)),
                net.jqwik.api.Tuple.of(2, Arbitraries.strings().ofMaxLength(40))).injectNull(0.03);
    }

    private static Arbitrary<String> rule() {
        Arbitrary<String> condition = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of("path=/a/**", "path=/x/*", "path=/", "path=a", "path=",
                        "path=/[a-z]+(", "path=/\\Q", "path=/?", "path=/a", "path=/**/b")),
                net.jqwik.api.Tuple.of(2, Arbitraries.of("method=GET", "method=GET|POST", "method=get|GET",
                        "method=", "method=||", "method=G3T", "method=ABCDEFGHIJKLMNOPQ")),
                net.jqwik.api.Tuple.of(2, Arbitraries.of("header:X-Tenant=batch*", "header:X-Batch", "header:",
                        "header:=x", "header:X(y)=1", "header:A=\\E.*", "header:A==")),
                net.jqwik.api.Tuple.of(1, Arbitraries.strings().withCharRange('!', '~').ofMaxLength(12)));
        return Combinators.combine(Arbitraries.of("light", "heavy", "batch", "medium", "", "HEAVY"),
                condition.list().ofMaxSize(4)).as((c, conds) -> c + " " + String.join(" ", conds));
    }

    @Provide
    Arbitrary<byte[]> propertiesFiles() {
        Arbitrary<String> line = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Combinators.combine(configs().map(m -> m.keySet().stream().findFirst()
                        .orElse("policy")), Arbitraries.of("=", ":", " ", " = "), value().map(v -> v == null ? "" : v))
                        .as((k, sep, v) -> k + sep + v)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("#comment", "!comment", "\\", "a=\\", "\\u00zz", "x=\\u12",
                        "fairslice.policy=sleep", "policy=share\\\n  d", "\t\f")),
                net.jqwik.api.Tuple.of(1, Arbitraries.strings().ofMaxLength(30)));
        return line.list().ofMaxSize(8).map(lines -> String.join("\n", lines)).flatMap(text ->
                Arbitraries.of(StandardCharsets.ISO_8859_1, StandardCharsets.UTF_8)
                        .map(cs -> text.getBytes(cs)));
    }
}
