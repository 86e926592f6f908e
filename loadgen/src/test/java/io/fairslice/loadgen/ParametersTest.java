package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ParametersTest {

    @Test
    void shouldUseTheStudyDefaultsWhenNothingIsSet() {
        StudyParameters p = StudyParameters.from(Map.<String, String>of()::get);

        assertThat(p.baseUrl()).isEqualTo("http://127.0.0.1:8080");
        assertThat(p.lightUsers()).isEqualTo(30);
        assertThat(p.heavyUsers()).isEqualTo(10);
        assertThat(p.lightPaths()).containsExactly("/light");
        assertThat(p.heavyPath()).isEqualTo("/heavy");
        assertThat(p.total()).isEqualTo(Duration.ofSeconds(35));
        assertThat(p.thinkTime()).isZero();
        assertThat(p.retryAfterDefault()).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.retryAfterMax()).isEqualTo(Duration.ofSeconds(60));
        assertThat(p.requireSuccess()).isTrue();
    }

    @Test
    void shouldReadRequireSuccessAsTrueOrFalseOnly() {
        assertThat(StudyParameters.from(Map.of("requireSuccess", "false")::get).requireSuccess()).isFalse();
        assertThat(SpikeParameters.from(Map.of("requireSuccess", " FALSE ")::get).requireSuccess()).isFalse();
        assertThat(StudyParameters.from(Map.of("requireSuccess", "true")::get).requireSuccess()).isTrue();
        // Boolean.parseBoolean would read these as false and quietly accept a run that served nothing
        for (String value : List.of("no", "0", "off", "flase")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of("requireSuccess", value)::get))
                    .isInstanceOf(ParameterException.class)
                    .hasMessage("requireSuccess must be true or false, got '" + value + "'");
        }
        // a typo of its name is refused as any parameter's
        assertThatThrownBy(() -> StudyParameters.from(properties(Map.of("requireSucess", "false"))))
                .hasMessageStartingWith("requireSucess is not a parameter; did you mean requireSuccess?");
    }

    @Test
    void shouldReadEveryStudyParameter() {
        StudyParameters p = StudyParameters.from(Map.of(
                "baseUrl", "http://127.0.0.1:9090/",
                "lightUsers", "20",
                "heavyUsers", "40",
                "lightPaths", "/light, /light2",
                "heavyPath", "/heavy",
                "warmUp", "2s",
                "duration", "1.5m",
                "thinkTime", "250ms",
                "requestTimeout", "2m")::get);

        assertThat(p.baseUrl()).isEqualTo("http://127.0.0.1:9090");
        assertThat(p.lightUsers()).isEqualTo(20);
        assertThat(p.heavyUsers()).isEqualTo(40);
        assertThat(p.lightPaths()).containsExactly("/light", "/light2");
        assertThat(p.warmUp()).isEqualTo(Duration.ofSeconds(2));
        assertThat(p.duration()).isEqualTo(Duration.ofSeconds(90));
        assertThat(p.thinkTime()).isEqualTo(Duration.ofMillis(250));
        assertThat(p.requestTimeout()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void shouldReadTheRetryAfterBounds() {
        StudyParameters p = StudyParameters.from(Map.of("retryAfterDefault", "500ms", "retryAfterMax", "0s")::get);

        assertThat(p.retryAfterDefault()).isEqualTo(Duration.ofMillis(500));
        assertThat(p.retryAfterMax()).as("0s: retry a shed request at once").isZero();
        assertThat(p.rejectionPause()).isEqualTo(new RejectionPause(Duration.ofMillis(500), Duration.ZERO));
    }

    @Test
    void shouldRejectARetryAfterBoundItCannotUseNamingTheParameter() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("retryAfterMax", "61m")::get))
                .hasMessage("retryAfterMax must be between 0s and 3600s, got 61m")
                .isInstanceOfSatisfying(ParameterException.class,
                        e -> assertThat(e.parameter()).isEqualTo("retryAfterMax"));
        assertThatThrownBy(() -> StudyParameters.from(Map.of("retryAfterDefault", "-1s")::get))
                .hasMessage("retryAfterDefault must be between 0s and 3600s, got -1s");
        assertThatThrownBy(() -> StudyParameters.from(Map.of("retryAfterDefault", "a while")::get))
                .hasMessage("retryAfterDefault must be a duration such as 500ms, 30s or 2m, got 'a while'");
    }

    @Test
    void shouldNameRequestsByClassAndPath() {
        assertThat(StudyParameters.lightRequestName("/light2")).isEqualTo("light:/light2");
        assertThat(StudyParameters.heavyRequestName("/heavy")).isEqualTo("heavy:/heavy");
    }

    @Test
    void shouldRejectANegativeUserCountNamingTheParameter() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("heavyUsers", "-1")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heavyUsers must be 0..10000, got -1");
    }

    @Test
    void shouldRejectAUserCountThatIsNotANumber() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("lightUsers", "thirty")::get))
                .hasMessage("lightUsers must be a whole number, got 'thirty'");
    }

    /** Integer.parseInt read other scripts' digits: {@code ٥٠} (Arabic-Indic) ran 50 users. */
    @Test
    void shouldRejectAUserCountInDigitsOfAnotherScript() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("lightUsers", "\u0665\u0660")::get))
                .hasMessage("lightUsers must be a whole number, got '\u0665\u0660'");
    }

    @Test
    void shouldRejectADurationWithoutAUnitItUnderstands() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("duration", "30 parsecs")::get))
                .hasMessageContaining("duration must be a duration such as 500ms, 30s or 2m, got '30 parsecs'");
    }

    /**
     * A number without a unit was seconds: {@code thinkTime=250} (meant 250 ms) paused every client 250 s, within the
     * parameter's range, and the run went on. The middleware refuses such a duration too.
     */
    @Test
    void shouldRejectADurationWithoutAUnitNamingBothReadings() {
        for (String value : List.of("250", " 2.5 ", ".5")) {
            String number = value.trim();
            assertThatThrownBy(() -> StudyParameters.from(Map.of("thinkTime", value)::get))
                    .as(value)
                    .hasMessage("thinkTime must name its unit (ms, s, m or h): " + number + "ms or " + number
                            + "s, got '" + value + "'")
                    .isInstanceOfSatisfying(ParameterException.class,
                            e -> assertThat(e.parameter()).isEqualTo("thinkTime"));
        }
    }

    /** What the middleware and the harness accept reads the same here (1h and 1.5ms were refused). */
    @Test
    void shouldReadDurationsAsTheHarnessWritesThem() {
        assertThat(Parameters.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Parameters.parseDuration("1.5ms")).isEqualTo(Duration.ofNanos(1_500_000));
        assertThat(Parameters.parseDuration("2500ms")).isEqualTo(Duration.ofMillis(2500));
        assertThat(Parameters.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Parameters.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Parameters.format(Duration.ofNanos(1_500_000))).isEqualTo("1.5ms");
        assertThat(Parameters.format(Duration.ofMillis(2500))).isEqualTo("2500ms");
        assertThat(Parameters.format(Duration.ofHours(1))).isEqualTo("3600s");
        assertThatThrownBy(() -> Parameters.parseDuration("NaNms"))
                .hasMessage("not a duration: 'NaNms'");
    }

    /**
     * Double.parseDouble read the whole text when no unit matched: 1d (meant a day) ran 1 s, 2f 2 s, and the hex float
     * 0x1p3 was 8 s.
     */
    @Test
    void shouldRejectJavaNumberSuffixesHexFloatsAndNaNInDurations() {
        for (String value : List.of("1d", "2f", "0x1p3", "NaN", "1e3s", "Infinity", ".s", "1..5s", "--1s")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of("requestTimeout", value)::get))
                    .as(value)
                    .hasMessage("requestTimeout must be a duration such as 500ms, 30s or 2m, got '" + value + "'")
                    .isInstanceOfSatisfying(ParameterException.class,
                            e -> assertThat(e.parameter()).isEqualTo("requestTimeout"));
        }
        assertThatThrownBy(() -> StudyParameters.from(Map.of("duration", "1d")::get))
                .hasMessage("duration must be a duration such as 500ms, 30s or 2m, got '1d'");
        assertThatThrownBy(() -> StudyParameters.from(Map.of("thinkTime", "0x1p3")::get))
                .hasMessage("thinkTime must be a duration such as 500ms, 30s or 2m, got '0x1p3'");
        // what stays accepted: a number, an optional fraction, a unit, spaces around
        assertThat(Parameters.parseDuration(" 2s ")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Parameters.parseDuration("1.25 s")).isEqualTo(Duration.ofMillis(1250));
        assertThat(Parameters.parseDuration("30S")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Parameters.parseDuration(".5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(Parameters.parseDuration("1.s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(Parameters.parseDuration("+1s")).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void shouldRejectJavaNumberSuffixesHexFloatsAndNaNInRates() {
        for (String value : List.of("12d", "2f", "0x1p3", "NaN", "Infinity", "1e3d", "1e", "e3", "1e3.5", "5e+", "50/s",
                "\u0665\u0660")) { // the last 50 in Arabic-Indic digits
            assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", value)::get))
                    .as(value)
                    .hasMessage("lightRate must be a number such as 50 or 12.5, got '" + value + "'")
                    .isInstanceOfSatisfying(ParameterException.class,
                            e -> assertThat(e.parameter()).isEqualTo("lightRate"));
        }
        assertThat(SpikeParameters.from(Map.of("heavyRate", " 7.25 ")::get).heavyRate()).isEqualTo(7.25);
        assertThat(SpikeParameters.from(Map.of("heavyRate", ".5")::get).heavyRate()).isEqualTo(0.5);
    }

    /**
     * A rate with an exponent is read as the middleware's configuration (adaptive.alpha=5e-2) and the experiments'
     * settings read one, where 1e3 was refused here alone; one beyond a double (Infinity) is refused by the range.
     */
    @Test
    void shouldReadARateWithAnExponentAsTheMiddlewareReadsADecimal() {
        assertThat(SpikeParameters.from(Map.of("lightRate", "1e3")::get).lightRate()).isEqualTo(1000.0);
        assertThat(SpikeParameters.from(Map.of("lightRate", " 5E1 ")::get).lightRate()).isEqualTo(50.0);
        assertThat(SpikeParameters.from(Map.of("heavyRate", "2.5e+1")::get).heavyRate()).isEqualTo(25.0);
        assertThat(SpikeParameters.from(Map.of("heavyRate", "125e-1")::get).heavyRate()).isEqualTo(12.5);
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "1e400")::get))
                .hasMessage("lightRate must be 0.0..100000.0, got 1e400")
                .isInstanceOfSatisfying(ParameterException.class,
                        e -> assertThat(e.parameter()).isEqualTo("lightRate"));
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "1e6")::get))
                .hasMessage("lightRate must be 0.0..100000.0, got 1e6");
        // a duration's number still takes none, as the middleware's durations: 1e3 is not told to name its unit
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("duration", "1e3")::get))
                .hasMessage("duration must be a duration such as 500ms, 30s or 2m, got '1e3'");
    }

    @Test
    void shouldRejectAZeroDuration() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("duration", "0s")::get))
                .hasMessage("duration must be between 1s and 86400s, got 0s")
                // the harness names its own setting from it
                .isInstanceOfSatisfying(ParameterException.class, e -> assertThat(e.parameter()).isEqualTo("duration"));
    }

    @Test
    void shouldRejectABaseUrlWithoutSchemeOrHost() {
        for (String value : List.of("127.0.0.1:8080", "localhost:8080", "http://", "http:/shop", "http:///shop",
                "http://:8080/shop", "ftp://host/shop", "http//host:8080")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of("baseUrl", value)::get))
                    .as(value)
                    .hasMessage("baseUrl must be an absolute http:// or https:// URL with a host, such as "
                            + "http://127.0.0.1:8080 or http://your-host:8080/shop, got '" + value + "'")
                    .isInstanceOfSatisfying(ParameterException.class,
                            e -> assertThat(e.parameter()).isEqualTo("baseUrl"));
        }
        assertThatThrownBy(() -> StudyParameters.from(Map.of("baseUrl", "http://host/shop?x=1")::get))
                .hasMessage("baseUrl must not have a query or a fragment (the paths are appended to it), got "
                        + "'http://host/shop?x=1'");
    }

    /** The lists that drive typo refusal and the run's first line name exactly each simulation's record components. */
    @Test
    void shouldListEverySimulationsParametersOnce() {
        assertThat(Parameters.STUDY).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(
                Arrays.stream(StudyParameters.class.getRecordComponents()).map(c -> c.getName()).toList());
        assertThat(Parameters.SPIKE).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(
                Arrays.stream(SpikeParameters.class.getRecordComponents()).map(c -> c.getName()).toList());
    }

    /** -DbaseUrl=$URL with the variable unset loaded the default port's server, its line not even marked default. */
    @Test
    void shouldRefuseAnEmptyValueRatherThanReadItAsTheDefault() {
        for (String name : List.of("baseUrl", "lightUsers", "lightPaths", "heavyPath", "thinkTime", "requireSuccess")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of(name, " ")::get))
                    .as(name)
                    .hasMessage(name + " is empty: give a value, or leave " + name + " out for its default")
                    .isInstanceOfSatisfying(ParameterException.class, e -> assertThat(e.parameter()).isEqualTo(name));
        }
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "")::get))
                .hasMessage("lightRate is empty: give a value, or leave lightRate out for its default");
    }

    /** java.net.URI reads host:8080:9090 as a registry authority; Gatling could not parse it, every request unsent. */
    @Test
    void shouldRejectABaseUrlWithTwoPorts() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("baseUrl", "http://host:8080:9090/shop")::get))
                .hasMessage("baseUrl must have one port after the host, got 'http://host:8080:9090/shop'");
        assertThat(StudyParameters.from(Map.of("baseUrl", "http://[::1]:8080")::get).baseUrl())
                .as("an IPv6 literal's colons are no ports").isEqualTo("http://[::1]:8080");
    }

    /** heavyPath=/a,/b was requested as one path; lightPaths is the list. */
    @Test
    void shouldRejectACommaInTheHeavyPath() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("heavyPath", "/a,/b")::get))
                .hasMessage("heavyPath must be one path (lightPaths takes a list; write a comma in a path %2C, as"
                        + " lightPaths needs it too), got '/a,/b'");
    }

    /** Gatling pauses by the millisecond: thinkTime=0.4ms was printed as given and paused 0. */
    @Test
    void shouldRejectADurationFinerThanAMillisecond() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("thinkTime", "0.4ms")::get))
                .hasMessage("thinkTime must be whole milliseconds (the load generator pauses and times out by the"
                        + " millisecond), got 0.4ms");
        assertThat(StudyParameters.from(Map.of("thinkTime", "1.5s")::get).thinkTime())
                .isEqualTo(Duration.ofMillis(1500));
    }

    /** The paths start with a slash and are appended: a context path keeps no trailing slash, or /shop//catalog. */
    @Test
    void shouldKeepABaseUrlsContextPathWithoutTrailingSlashes() {
        assertThat(StudyParameters.from(Map.of("baseUrl", "http://your-host:8080/shop//")::get).baseUrl())
                .isEqualTo("http://your-host:8080/shop");
        assertThat(StudyParameters.from(Map.of("baseUrl", "HTTPS://[::1]:8443/")::get).baseUrl())
                .isEqualTo("HTTPS://[::1]:8443");
        // a compose service name: java.net.URI has no host for it, the authority has
        assertThat(StudyParameters.from(Map.of("baseUrl", "http://my_shop:8080")::get).baseUrl())
                .isEqualTo("http://my_shop:8080");
    }

    /** -DheavyPaths=/report ran the load against the default /heavy: 404s counted as errors, the run "succeeded". */
    @Test
    void shouldRefuseAPropertyThatLooksLikeATypoOfAParameterNamingBoth() {
        assertThatThrownBy(() -> StudyParameters.from(properties(Map.of("heavyPaths", "/report"))))
                .hasMessage("heavyPaths is not a parameter; did you mean heavyPath? (without it, heavyPath keeps its "
                        + "default)")
                .isInstanceOfSatisfying(ParameterException.class,
                        e -> assertThat(e.parameter()).isEqualTo("heavyPaths"));
        Map<String, String> typos = Map.of("baseURL", "baseUrl", "lightuser", "lightUsers", "haevyUsers",
                "heavyUsers", "warmup", "warmUp", "Duration", "duration", "thinktime", "thinkTime",
                "requestTimout", "requestTimeout", "retryAfterMaxi", "retryAfterMax", "lightRates", "lightRate",
                "burstDurations", "burstDuration");
        typos.forEach((typo, meant) -> {
            assertThatThrownBy(() -> StudyParameters.from(properties(Map.of(typo, "1"))))
                    .as(typo).hasMessageStartingWith(typo + " is not a parameter; did you mean " + meant + "?");
            assertThatThrownBy(() -> SpikeParameters.from(properties(Map.of(typo, "1"))))
                    .as(typo).hasMessageStartingWith(typo + " is not a parameter; did you mean " + meant + "?");
        });
    }

    /** The JVM's, Maven's, Gatling's and surefire's properties are there too: a name not close to ours passes. */
    @Test
    void shouldLetOtherToolsPropertiesAndBothSimulationsParametersPass() {
        Properties jvm = new Properties();
        jvm.putAll(System.getProperties()); // surefire's JVM: java.*, user.*, basedir, surefire.*, ...
        jvm.putAll(Map.of("gatling.simulationClass", "io.fairslice.loadgen.OverloadStudy", "basedir", "/x",
                "maven.repo.local", "/m2", "https.proxyHost", "127.0.0.1", "https.proxyPort", "9",
                "logback.configurationFile", "x.xml", "lightRate", "80", "burstStart", "10s", "durationMillis", "5"));

        assertThat(StudyParameters.from(jvm).lightUsers()).isEqualTo(30);
        assertThat(SpikeParameters.from(jvm).lightRate()).isEqualTo(80.0);
    }

    @Test
    void shouldDescribeTheRunMarkingWhatKeptItsDefault() {
        Map<String, String> given = Map.of("baseUrl", "http://your-host:8080/shop/", "lightPaths", "/catalog",
                "heavyUsers", "20", "duration", "60s");

        assertThat(StudyParameters.from(given::get).describe(given::get)).isEqualTo("fairslice loadgen: OverloadStudy "
                + "with baseUrl=http://your-host:8080/shop, lightPaths=/catalog, heavyPath=/heavy (default), "
                + "lightUsers=30 (default), heavyUsers=20, warmUp=5s (default), duration=60s, thinkTime=0s (default), "
                + "requestTimeout=60s (default), retryAfterDefault=1s (default), retryAfterMax=60s (default), "
                + "requireSuccess=true (default)");
        assertThat(SpikeParameters.from(given::get).describe(given::get)).isEqualTo("fairslice loadgen: OverloadSpike "
                + "with baseUrl=http://your-host:8080/shop, lightPaths=/catalog, heavyPath=/heavy (default), "
                + "lightRate=50.0 (default), heavyRate=20.0 (default), duration=60s, burstStart=20s (default), "
                + "burstDuration=20s (default), requestTimeout=60s (default), requireSuccess=true (default)");
    }

    private static Properties properties(Map<String, String> values) {
        Properties properties = new Properties();
        properties.putAll(values);
        return properties;
    }

    @Test
    void shouldRejectAPathWithoutLeadingSlash() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("lightPaths", "/light,light2")::get))
                .hasMessageStartingWith("lightPaths must be paths starting with '/'");
    }

    /** An empty entry at the end was dropped: "/a," ran as "/a", and "," as no light page at all. */
    @Test
    void shouldRejectAnEmptyPathAtTheEndOfTheListAsAnywhereElse() {
        for (String value : List.of("/light,", ",", "/light,,/light2", ",/light")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of("lightPaths", value)::get))
                    .as(value)
                    .hasMessage("lightPaths must be paths starting with '/', separated by commas, got '" + value + "'");
        }
    }

    /** Gatling reads #{...} in a URL as an expression: every request failed unsent, blamed on the network. */
    @Test
    void shouldRejectAPathThatGatlingWouldReadAsAnExpression() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("lightPaths", "/light,/search?q=#{term}")::get))
                .hasMessage("lightPaths must not contain '#{', which Gatling reads as an expression (write it"
                        + " %23%7B), got '/search?q=#{term}'");
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("heavyPath", "/report#{")::get))
                .hasMessageStartingWith("heavyPath must not contain '#{'");
        assertThat(StudyParameters.from(Map.of("lightPaths", "/a#b,/c%23%7Bd%7D")::get).lightPaths())
                .containsExactly("/a#b", "/c%23%7Bd%7D");
    }

    @Test
    void shouldRejectARunWithNoUsersAtAll() {
        assertThatThrownBy(() -> StudyParameters.from(Map.of("lightUsers", "0", "heavyUsers", "0")::get))
                .hasMessageStartingWith("lightUsers + heavyUsers must be at least 1");
    }

    /** Gatling spreads a rate over whole seconds: 500ms injected no heavy user, and the run failed its assertion. */
    @Test
    void shouldRefuseASpikeThatGatlingWouldInjectShort() {
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("burstDuration", "500ms")::get))
                .hasMessage("burstDuration must be whole seconds (Gatling spreads heavyRate's arrivals over whole"
                        + " seconds), got 500ms");
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("duration", "1.9s", "burstStart", "0s",
                "burstDuration", "1s")::get)).hasMessageStartingWith("duration must be whole seconds");
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "0.1", "heavyRate", "0",
                "duration", "4s")::get))
                .hasMessage("lightRate must make at least one arrival in duration (4s), got 0.1/s");
        assertThat(SpikeParameters.from(Map.of("lightRate", "0.5", "heavyRate", "0", "duration", "2s")::get)
                .lightRate()).as("one arrival").isEqualTo(0.5);
        // the light arrivals go to the light paths in turn: one a second for 1 s never requested the second path
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "1", "heavyRate", "0", "duration", "1s",
                "lightPaths", "/a,/b")::get))
                .hasMessage("lightRate must make at least one arrival per light path (2) in duration (1s), got 1.0/s");
    }

    @Test
    void shouldReadSpikeParameters() {
        SpikeParameters p = SpikeParameters.from(Map.of("lightRate", "80", "heavyRate", "12.5",
                "duration", "40s", "burstStart", "10s", "burstDuration", "15s")::get);

        assertThat(p.lightRate()).isEqualTo(80.0);
        assertThat(p.heavyRate()).isEqualTo(12.5);
        assertThat(p.burstStart()).isEqualTo(Duration.ofSeconds(10));
        assertThat(p.lightPaths()).isEqualTo(List.of("/light"));
    }

    /** No light arrivals and an empty burst: validation passed and Gatling then failed on a run with no scenario. */
    @Test
    void shouldRejectASpikeThatSendsNothing() {
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "0", "burstDuration", "0s")::get))
                .hasMessage("lightRate and heavyRate cannot both be 0 (nor lightRate 0 with burstDuration 0s): "
                        + "nothing would be sent");
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("lightRate", "0", "heavyRate", "0")::get))
                .hasMessageStartingWith("lightRate and heavyRate cannot both be 0");
    }

    @Test
    void shouldRejectABurstThatEndsAfterTheRun() {
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("duration", "30s", "burstStart", "20s",
                "burstDuration", "20s")::get))
                .hasMessage("burstStart + burstDuration must fit in duration, got 20s + 20s > 30s");
    }

    /** With no burst to send (heavyRate 0, or burstDuration 0s) its default bounds did not fit a 30 s run: refused. */
    @Test
    void shouldAcceptAShortRunWithoutABurst() {
        assertThat(SpikeParameters.from(Map.of("duration", "30s", "heavyRate", "0")::get).duration())
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(SpikeParameters.from(Map.of("duration", "30s", "burstDuration", "0s")::get).duration())
                .isEqualTo(Duration.ofSeconds(30));
    }

    /** http://host:abc and http://host:99999 passed, and every request then failed as "connection refused". */
    @Test
    void shouldRefuseABaseUrlWithABadPort() {
        for (String url : List.of("http://127.0.0.1:abc", "http://my_shop:99999/shop", "http://host:0")) {
            assertThatThrownBy(() -> StudyParameters.from(Map.of("baseUrl", url)::get)).as(url)
                    .hasMessage("baseUrl must have a port 1..65535 after the host, got '" + url + "'");
        }
        assertThat(StudyParameters.from(Map.of("baseUrl", "http://[::1]")::get).baseUrl()).isEqualTo("http://[::1]");
        assertThat(StudyParameters.from(Map.of("baseUrl", "http://my_shop:65535")::get).baseUrl())
                .isEqualTo("http://my_shop:65535");
    }

    /** -DheavyRate=30 given to OverloadStudy passed in silence: one set of -D options may serve both, so it is said. */
    @Test
    void shouldSayWhichGivenParametersAreTheOtherSimulations() {
        List<String> given = List.of("heavyRate", "warmUp", "baseUrl", "burstStart", "java.version");
        assertThat(Parameters.othersParameters(given, "OverloadStudy", Parameters.STUDY)).containsExactly(
                "fairslice loadgen: burstStart is a parameter of OverloadSpike, not of OverloadStudy: ignored",
                "fairslice loadgen: heavyRate is a parameter of OverloadSpike, not of OverloadStudy: ignored");
        assertThat(Parameters.othersParameters(given, "OverloadSpike", Parameters.SPIKE)).containsExactly(
                "fairslice loadgen: warmUp is a parameter of OverloadStudy, not of OverloadSpike: ignored");
    }

    @Test
    void shouldRejectANegativeRate() {
        assertThatThrownBy(() -> SpikeParameters.from(Map.of("heavyRate", "-3")::get))
                .hasMessage("heavyRate must be 0.0..100000.0, got -3");
    }
}
