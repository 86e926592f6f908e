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

/** The committed Prometheus config and rules, checked and unit-tested by the real promtool. */
class PrometheusRulesTest {

    private static final Pattern RULE_NAME = Pattern.compile("^\\s*-\\s*(record|alert):\\s*(\\S+)\\s*$",
            Pattern.MULTILINE);

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

    /** An alert is tested by an alert_rule_test naming it; a recording rule by a promql_expr_test querying it. */
    private static boolean isTested(String rule, String tests) {
        String[] kindAndName = rule.split(" ");
        if (kindAndName[0].equals("alert")) {
            return Pattern.compile("alertname:\\s*" + Pattern.quote(kindAndName[1]) + "\\s*$", Pattern.MULTILINE)
                    .matcher(tests).find();
        }
        return Pattern.compile("-\\s*expr:.*" + Pattern.quote(kindAndName[1])).matcher(tests).find();
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
