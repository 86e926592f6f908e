package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The committed Prometheus config and rules, checked and unit-tested by the real promtool. */
class PrometheusRulesTest {

    private static final Pattern RULE_NAME = Pattern.compile("^\\s*-\\s*(record|alert):\\s*(\\S+)\\s*$",
            Pattern.MULTILINE);
    private static final Pattern ALERTNAME = Pattern.compile("^\\s*-\\s*alertname:\\s*(\\S+)\\s*$");
    private static final Pattern TEST_NAME = Pattern.compile("^\\s*-\\s*name:.*$");
    private static final Pattern EXP_ALERTS_LIST = Pattern.compile("^\\s*exp_alerts:\\s*$");
    private static final Pattern EXP_LABELS = Pattern.compile("^\\s*-\\s*exp_labels:.*$");

    private static Tool promtool;

    @BeforeAll
    static void findPromtool() {
        promtool = Tool.require("promtool");
    }

    @Test
    void shouldAcceptTheScrapeConfig() {
        Tool.Result result = promtool.run(ModuleFiles.prometheusDir(), 60, "check", "config", "prometheus.yml");

        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output()).as("%s", result).contains("2 rule files found");
    }

    @Test
    void shouldAcceptEveryRuleFile() throws IOException {
        List<String> args = new ArrayList<>(List.of("check", "rules"));
        ruleFiles().forEach(file -> args.add(file.toString()));

        Tool.Result result = promtool.run(ModuleFiles.prometheusDir(), 60, args.toArray(String[]::new));

        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output()).as("%s", result).doesNotContain("FAILED");
    }

    @Test
    void shouldPassEveryRuleUnitTest() throws IOException {
        List<String> args = new ArrayList<>(List.of("test", "rules"));
        testFiles().forEach(file -> args.add(file.toString()));

        Tool.Result result = promtool.run(ModuleFiles.prometheusDir(), 120, args.toArray(String[]::new));

        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output()).as("%s", result).contains("SUCCESS").doesNotContain("FAILED");
    }

    @Test
    void shouldHaveAUnitTestForEveryRecordingRuleAndAlert() throws IOException {
        Set<String> rules = new LinkedHashSet<>();
        for (Path file : ruleFiles()) {
            Matcher matcher = RULE_NAME.matcher(Files.readString(file));
            while (matcher.find()) {
                rules.add(matcher.group(1) + " " + matcher.group(2));
            }
        }
        StringBuilder tests = new StringBuilder();
        for (Path file : testFiles()) {
            tests.append(Files.readString(file)).append('\n');
        }

        List<String> untested = rules.stream().filter(rule -> !isTested(rule, tests.toString())).toList();

        assertThat(rules).as("rules found in prometheus/rules").hasSizeGreaterThanOrEqualTo(9);
        assertThat(untested).as("rules and alerts with no promtool unit test in prometheus/tests").isEmpty();
    }

    /**
     * An alert is tested by an alert_rule_test that expects it to fire (a case with {@code exp_alerts: []} alone
     * shows only that it can stay quiet); a recording rule by a promql_expr_test querying it.
     */
    private static boolean isTested(String rule, String tests) {
        String[] kindAndName = rule.split(" ");
        if (kindAndName[0].equals("alert")) {
            return alertsExpectedToFire(tests).contains(kindAndName[1]);
        }
        return Pattern.compile("-\\s*expr:.*" + Pattern.quote(kindAndName[1])).matcher(tests).find();
    }

    /**
     * The alerts some alert_rule_test expects to fire: an {@code exp_alerts:} list whose first item is an
     * {@code exp_labels:}, after the case's {@code alertname:} (the layout of the committed tests).
     */
    static Set<String> alertsExpectedToFire(String tests) {
        Set<String> firing = new LinkedHashSet<>();
        String alert = null;
        String[] lines = tests.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher name = ALERTNAME.matcher(lines[i]);
            if (name.matches()) {
                alert = name.group(1);
            } else if (TEST_NAME.matcher(lines[i]).matches()) {
                alert = null;
            } else if (alert != null && EXP_ALERTS_LIST.matcher(lines[i]).matches() && i + 1 < lines.length
                    && EXP_LABELS.matcher(lines[i + 1]).matches()) {
                firing.add(alert);
            }
        }
        return firing;
    }

    @Test
    void shouldNotCountAnAlertWhoseCasesAllExpectSilence() {
        String tests = """
                tests:
                  - name: quiet only
                    alert_rule_test:
                      - alertname: Quiet
                        eval_time: 5m
                        exp_alerts: []
                  - name: fires
                    alert_rule_test:
                      - alertname: Quiet
                        eval_time: 1m
                        exp_alerts: []
                      - alertname: Fires
                        eval_time: 5m
                        exp_alerts:
                          - exp_labels:
                              severity: info
                """;

        assertThat(alertsExpectedToFire(tests)).containsExactly("Fires");
        assertThat(isTested("alert Quiet", tests)).isFalse();
        assertThat(isTested("alert Fires", tests)).isTrue();
    }

    /**
     * Each tunable threshold of docs/dashboards.md ("tune"), moved a little either way and far, must fail a promtool
     * case: the "threshold:" groups of fairslice-alerts.test.yml put one series just past it and one just short.
     */
    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            FairsliceLatencyAboveSlo     | p99_1m > 0.25                       | p99_1m > 0.2499
            FairsliceLatencyAboveSlo     | p99_1m > 0.25                       | p99_1m > 0.2518
            FairsliceLatencyAboveSlo     | p99_1m > 0.25                       | p99_1m > 0.5
            FairsliceShareBelowTarget    | < 0.8 * (                           | < 0.785 * (
            FairsliceShareBelowTarget    | < 0.8 * (                           | < 0.815 * (
            FairsliceShareBelowTarget    | < 0.8 * (                           | < 0.7 * (
            FairsliceShareBelowTarget    | < 0.8 * (                           | < 0.9 * (
            FairsliceSustainedRejections | > 0.05                              | > 0.044
            FairsliceSustainedRejections | > 0.05                              | > 0.056
            FairsliceUndeclaredWaits     | > 0.1                               | > 0.089
            FairsliceUndeclaredWaits     | > 0.1                               | > 0.111
            FairsliceWovenHotMethods     | > 1e6                               | > 0.89e6
            FairsliceWovenHotMethods     | > 1e6                               | > 1.11e6
            FairsliceNothingWoven        | [15m]))) >= 1                       | [15m]))) >= 0.89
            FairsliceNothingWoven        | [15m]))) >= 1                       | [15m]))) >= 1.11
            FairsliceRouteTableFull      | [5m])) > 0                          | [5m])) > 1
            FairsliceRouteTableFull      | [5m])) > 0                          | [5m])) >= 0
            FairsliceRouteTableFull      | [5m]                                | [3m]
            FairsliceRouteTableFull      | [5m]                                | [10m]
            """)
    void shouldFailTheAlertTestsWhenAThresholdMoves(String alert, String from, String to, @TempDir Path dir)
            throws IOException {
        Path copy = dir.resolve("prometheus");
        copyTree(ModuleFiles.prometheusDir(), copy);
        Path alerts = copy.resolve("rules").resolve("fairslice-alerts.yml");
        String rules = Files.readString(alerts);
        int start = rules.indexOf("- alert: " + alert + "\n");
        assertThat(start).as("alert %s", alert).isNotNegative();
        int next = rules.indexOf("- alert: ", start + 1);
        int end = next < 0 ? rules.length() : next;
        String block = rules.substring(start, end);
        assertThat(block.split(Pattern.quote(from), -1)).as("'%s' once in %s", from, alert).hasSize(2);
        Files.writeString(alerts, rules.substring(0, start) + block.replace(from, to) + rules.substring(end));

        Tool.Result result = promtool.run(copy, 60, "test", "rules", "tests/fairslice-alerts.test.yml");

        assertThat(result.exitCode()).as("%s", result).isNotZero();
        assertThat(result.output()).as("%s", result).contains("FAILED").contains("name: threshold:");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }

    @Test
    void shouldFailARuleUnitTestThatExpectsTheWrongValue(@TempDir Path dir) throws IOException {
        // promtool must be able to fail here: the same rule file, with an expectation it does not meet
        Path rules = ModuleFiles.prometheusDir().resolve("rules").resolve("fairslice-recording.yml");
        Files.writeString(dir.resolve("wrong.test.yml"), """
                rule_files:
                  - %s
                evaluation_interval: 15s
                tests:
                  - interval: 15s
                    input_series:
                      - series: 'fairslice_requests_seconds_count{instance="a",application="app",class="light",page="/light",outcome="success"}'
                        values: '0+15x40'
                    promql_expr_test:
                      - expr: instance_class:fairslice_requests:rate1m
                        eval_time: 5m
                        exp_samples:
                          - labels: 'instance_class:fairslice_requests:rate1m{application="app",instance="a",class="light"}'
                            value: 2
                """.formatted(rules));

        Tool.Result result = promtool.run(dir, 60, "test", "rules", "wrong.test.yml");

        assertThat(result.exitCode()).as("%s", result).isNotZero();
        assertThat(result.output()).as("%s", result).contains("FAILED");
    }

    private static List<Path> ruleFiles() throws IOException {
        return yamlFiles(ModuleFiles.prometheusDir().resolve("rules"));
    }

    private static List<Path> testFiles() throws IOException {
        return yamlFiles(ModuleFiles.prometheusDir().resolve("tests"));
    }

    private static List<Path> yamlFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(".yml")).sorted().toList();
            assertThat(found).as("YAML files in %s", dir).isNotEmpty();
            return found;
        }
    }
}
