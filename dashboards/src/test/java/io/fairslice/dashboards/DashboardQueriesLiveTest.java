package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairslice.dashboards.DashboardModel.Panel;
import io.fairslice.dashboards.DashboardModel.Query;
import io.fairslice.dashboards.DashboardModel.Variable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every panel of the committed dashboard shows data: a real Prometheus (loopback, scratch storage, 1 s scrapes, the
 * committed rules) scrapes a real fairslice study server under a short light + heavy load; then every panel query,
 * with the dashboard's variables substituted as Grafana would, must return series that carry the labels its legend
 * prints and at least one finite non-zero value over the load. A panel whose meter does not exist, or never moves
 * under this load, fails the test by name. So does a recording rule or alert that names a series or label value the
 * server does not export ({@link #checkRuleSelectors}), or whose evaluation Prometheus reports unhealthy
 * ({@link #ruleHealth}).
 */
class DashboardQueriesLiveTest {

    /** Prometheus's scrape and rule evaluation interval for the test. */
    private static final String SCRAPE_INTERVAL = "1s";
    /**
     * What Grafana puts for $__rate_interval with a data source whose scrape interval is 1 s: max(4 x scrape
     * interval, query step + scrape interval), rounded up for a safe margin over jittery scrapes.
     */
    private static final String RATE_INTERVAL = "10s";
    private static final Duration LOAD = Duration.ofSeconds(15);
    /** How long after the load the panels may take to fill (recording rules need two scrapes of a rate window). */
    private static final Duration SETTLE = Duration.ofSeconds(30);

    /**
     * Panels whose series must exist but may stay at zero under this test's load, each with the reason. Every other
     * panel must show a non-zero value.
     */
    private static final Map<String, String> MAY_STAY_ZERO = Map.of(
            "Adaptive reclassifications per class",
            "the test pins every page's class (adaptive=false), so nothing is reclassified",
            "Run slots lent per class",
            "the study's pages make no call that waits, yet the scheduler finds a request's thread blocked now and "
                    + "then while it holds a run slot (found: 5-32 a class in each of three runs on a 2-core machine); "
                    + "it looks only while every run slot is held, which this load's nine clients need not do on a "
                    + "machine with more cores (SchedulerTest covers lending)");

    private static final Pattern LABEL_VALUES =
            Pattern.compile("^label_values\\((.+),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\)$");
    private static final Pattern RULE_NAME = Pattern.compile("^\\s*- (?:record|alert):\\s*(\\S+)");
    private static final Pattern EXPR = Pattern.compile("^(\\s*)expr:\\s*(.*)$");
    /**
     * A series name in a rule's expression that is fairslice's: a meter ({@code fairslice_...}), or a recording rule's
     * level:metric:ops. The whole name: one that starts with fairslice is matched from its first character.
     */
    private static final Pattern RULE_SERIES_NAME =
            Pattern.compile("(?<![a-zA-Z0-9_:])(?=[a-zA-Z_:])[a-zA-Z0-9_:]*fairslice[a-zA-Z0-9_:]*");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^{}]*)}");
    private static final Pattern LABEL_MATCHER =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    private static final Pattern LEFTOVER_VARIABLE = Pattern.compile("\\$\\{?[a-zA-Z_][a-zA-Z0-9_]*");

    /** The two ways a multi-value variable is usually set: "All" (allValue) and every value ticked. */
    enum Selection { ALL, EVERY_VALUE }

    @Test
    void shouldShowDataInEveryPanelOfTheCommittedDashboard() throws Exception {
        DashboardModel dashboard = DashboardModel.read(ModuleFiles.dashboardJson());
        assertThat(dashboard.panels()).as("panels in %s", ModuleFiles.dashboardJson()).isNotEmpty();
        assertThat(dashboard.panels()).as("panels with no query cannot be verified")
                .allSatisfy(panel -> assertThat(panel.queries()).as(panel.title()).isNotEmpty());
        assertThat(dashboard.panels().stream().map(Panel::title).toList())
                .as("panels allowed to stay at zero must exist").containsAll(MAY_STAY_ZERO.keySet());

        // `./fairslice serve` options. Classes are pinned (a rule for /heavy, no adaptive classifier: left on, it
        // sometimes moves /light into the heavy class under this load). Heavy requests may run one at a time with one
        // waiting: the third heavy client is turned away, so the admission panels (rejections, Retry-After) have data.
        try (ForkedStudyServer server = ForkedStudyServer.start("--max-threads", "64", "--document-size", "1MB",
                "--policy", "share",
                "--fairslice", "rule.1=heavy path=/heavy",
                "--fairslice", "adaptive=false",
                "--fairslice", "class.heavy.max-concurrency=1",
                "--fairslice", "class.heavy.queue-size=1");
             LocalPrometheus prometheus = LocalPrometheus.start("127.0.0.1:" + server.port(), SCRAPE_INTERVAL)) {
            long start = epochSeconds() - 1;
            Map<String, Long> responses = new StudyLoad().run(server.uri("/"),
                    Map.of("/light", 4, "/light2", 2, "/heavy", 3), LOAD, 20_000);
            assertThat(responses).as("responses of the load, by page and status")
                    .containsKeys("/light 200", "/light2 200", "/heavy 200", "/heavy 503")
                    .doesNotContainKeys("/light 503", "/light2 503");

            List<String> problems = List.of();
            long deadline = System.nanoTime() + SETTLE.toNanos();
            do {
                problems = new ArrayList<>();
                for (Selection selection : Selection.values()) {
                    problems.addAll(checkPanels(dashboard, prometheus, selection, start, epochSeconds()));
                }
                problems.addAll(checkRuleSelectors(prometheus, start, epochSeconds()));
                if (problems.isEmpty()) {
                    break;
                }
                Thread.sleep(1000);
            } while (System.nanoTime() < deadline);

            assertThat(problems)
                    .as("panels of %s without data after a %s s load (responses: %s); Prometheus log:%n%s%n"
                                    + "server log:%n%s", ModuleFiles.dashboardJson().getFileName(), LOAD.toSeconds(),
                            responses, prometheus.logText(), server.logText())
                    .isEmpty();
            // after the settle loop every rule has been evaluated many times over: each must have succeeded
            assertThat(ruleHealth(prometheus)).as("recording rules and alerts that Prometheus did not evaluate "
                    + "healthily (/api/v1/rules); Prometheus log:%n%s", prometheus.logText()).isEmpty();

            assertThat(retentionAboveAll(dashboard, prometheus, start, epochSeconds()))
                    .as("'%s' above 100 %% at the recorded rates' own sample times", RETENTION_PANEL).isEmpty();

            Map<String, Double> cost = meanByPage(dashboard, prometheus, COST_PANEL, start, epochSeconds());
            assertThat(cost).as("'%s' by page", COST_PANEL).containsKeys("/light", "/heavy");
            assertThat(cost.get("/heavy")).as("'%s' by page: %s", COST_PANEL, cost)
                    .isGreaterThan(2 * Math.max(cost.get("/light"), cost.getOrDefault("/light2", 0.0)));

            // a heavy request queued behind the one running waits for its class's cap, which the share alerts leave
            // out; light, without a cap, waits for the shares only
            Map<String, Double> capped = new LinkedHashMap<>();
            for (JsonNode one : prometheus.api("/api/v1/query", Map.of("query",
                    "max by (class) (fairslice_admission_capped_seconds_total)", "time",
                    Long.toString(epochSeconds()))).path("result")) {
                capped.put(one.path("metric").path("class").asText(), one.path("value").get(1).asDouble());
            }
            assertThat(capped).as("seconds waited for the class's max-concurrency, by class")
                    .containsEntry("light", 0.0).containsKey("heavy");
            assertThat(capped.get("heavy")).as("heavy's, by class: %s", capped).isGreaterThan(0);
        }
    }

    /**
     * The panel that shows what the adaptive classifier learns from: it must tell the pages apart as the classifier
     * would, a request of the heavy page (a 1 MB document) costing many times one of a light page. In this test's cold
     * server (no warm-up, the weaving agent on) the light pages cost 1-6 ms a request and the heavy one 24-52 ms
     * (after a 15 s warm-up: 0.5 ms, and 31 ms for a 2 MB document; docs/dashboards.md), so the factor checked is 2.
     */
    private static final String COST_PANEL = "CPU per request per page";

    private static final String RETENTION_PANEL = "Throughput retention per class";

    /**
     * The retention panel's values, each at a time the recorded served rate rose (the current minute the best): its
     * best minute is a subquery, sampled at the evaluation interval's steps, and those need not fall after the rule's
     * last evaluation. Instant queries at the rule's own sample times (never on a whole second here) make that miss
     * certain; Grafana's stat and the snapshot query at arbitrary times, and read 115 % a minute into a load. Returns
     * each value above 1 with its time.
     */
    private static List<String> retentionAboveAll(DashboardModel dashboard, LocalPrometheus prometheus, long start,
                                                  long end) throws IOException, InterruptedException {
        String expr = firstQuery(dashboard, prometheus, RETENTION_PANEL, start, end);
        JsonNode rates = prometheus.api("/api/v1/query", Map.of("query",
                "instance_class:fairslice_requests_served:rate1m[" + (end - start + 1) + "s]",
                "time", Long.toString(end)));
        List<String> rising = new ArrayList<>();
        for (JsonNode series : rates.path("result")) {
            double before = Double.NaN;
            for (JsonNode point : series.path("values")) {
                double value = Double.parseDouble(point.get(1).asText());
                if (value > before) {
                    rising.add(point.get(0).asText());
                }
                before = value;
            }
        }
        assertThat(rising).as("times the recorded served rates rose during the load").isNotEmpty();
        List<String> above = new ArrayList<>();
        for (String time : rising) {
            for (JsonNode one : prometheus.api("/api/v1/query", Map.of("query", expr, "time", time)).path("result")) {
                double value = Double.parseDouble(one.path("value").get(1).asText());
                if (value > 1) {
                    above.add(one.path("metric") + " " + value + " at " + time);
                }
            }
        }
        return above;
    }

    /** The first query of the panel titled {@code title}, all values of the variables selected. */
    private static String firstQuery(DashboardModel dashboard, LocalPrometheus prometheus, String title, long start,
                                     long end) throws IOException, InterruptedException {
        Panel panel = dashboard.panels().stream().filter(p -> p.title().equals(title)).findFirst().orElseThrow();
        List<String> problems = new ArrayList<>();
        Map<String, String> values = resolveVariables(dashboard, prometheus, Selection.ALL, start, end, problems);
        assertThat(problems).isEmpty();
        return substitute(panel.queries().get(0).expr(), values);
    }

    /** The mean over time of each page's series of the panel's first query, all values of the variables selected. */
    private static Map<String, Double> meanByPage(DashboardModel dashboard, LocalPrometheus prometheus, String title,
                                                  long start, long end) throws IOException, InterruptedException {
        JsonNode data = prometheus.api("/api/v1/query_range", Map.of("query",
                firstQuery(dashboard, prometheus, title, start, end), "start", Long.toString(start),
                "end", Long.toString(end), "step", "1"));
        Map<String, Double> means = new LinkedHashMap<>();
        for (JsonNode one : data.path("result")) {
            double sum = 0;
            int n = 0;
            for (JsonNode point : one.path("values")) {
                double value = Double.parseDouble(point.get(1).asText());
                if (Double.isFinite(value)) {
                    sum += value;
                    n++;
                }
            }
            if (n > 0) {
                means.put(one.path("metric").path("page").asText(), sum / n);
            }
        }
        return means;
    }

    private static List<String> checkPanels(DashboardModel dashboard, LocalPrometheus prometheus, Selection selection,
                                            long start, long end) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        Map<String, String> values = resolveVariables(dashboard, prometheus, selection, start, end, problems);
        if (!problems.isEmpty()) {
            return problems;
        }
        for (Panel panel : dashboard.panels()) {
            for (Query query : panel.queries()) {
                String where = "panel '" + panel.title() + "' query " + query.refId() + " (variables " + selection
                        + ")";
                String expr = substitute(query.expr(), values);
                Matcher leftover = LEFTOVER_VARIABLE.matcher(expr);
                if (leftover.find()) {
                    problems.add(where + ": uses " + leftover.group() + ", which the test cannot substitute");
                    continue;
                }
                problems.addAll(checkQuery(where, expr, query.legendLabels(),
                        !MAY_STAY_ZERO.containsKey(panel.title()), prometheus, start, end));
            }
        }
        return problems;
    }

    private static List<String> checkQuery(String where, String expr, Set<String> legendLabels, boolean mustMove,
                                           LocalPrometheus prometheus, long start, long end)
            throws IOException, InterruptedException {
        JsonNode data;
        try {
            data = prometheus.api("/api/v1/query_range", Map.of("query", expr, "start", Long.toString(start),
                    "end", Long.toString(end), "step", "1"));
        } catch (LocalPrometheus.PrometheusQueryException e) {
            return List.of(where + ": Prometheus rejected it: " + e.getMessage());
        }
        JsonNode series = data.path("result");
        if (series.isEmpty()) {
            return List.of(where + ": no series for " + expr);
        }
        List<String> problems = new ArrayList<>();
        boolean anyMoved = false;
        for (JsonNode one : series) {
            for (String label : legendLabels) {
                if (!one.path("metric").hasNonNull(label)) {
                    problems.add(where + ": a series lacks label '" + label + "' that the legend prints: "
                            + one.path("metric"));
                }
            }
            for (JsonNode point : one.path("values")) {
                double value = Double.parseDouble(point.get(1).asText());
                anyMoved |= Double.isFinite(value) && value != 0;
            }
        }
        if (mustMove && !anyMoved) {
            // the middleware registers its meters up front, so a series of zeros is a meter nothing updates
            problems.add(where + ": only zero, NaN or infinite values for " + expr);
        }
        return problems;
    }

    /**
     * The committed recording rules' and alerts' expressions read what the server exports: every fairslice series
     * they name (a meter, or a recording rule: three are read by alerts only) has series here, every selector with
     * label matchers matches some, and the value of each {@code !=} matcher exists (a renamed {@code
     * outcome="rejected"} would otherwise leave {@code outcome!="rejected"} matching everything). The promtool tests
     * feed the rules hand-written series, so they cannot tell a rule from the code's names.
     */
    private static List<String> checkRuleSelectors(LocalPrometheus prometheus, long start, long end)
            throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        Map<String, String> queries = new LinkedHashMap<>(); // each query, and the first rule that reads it
        for (Map.Entry<String, String> rule : ruleExpressions().entrySet()) {
            Matcher name = RULE_SERIES_NAME.matcher(rule.getValue().replaceAll("\"[^\"]*\"", "\"\"")); // not in values
            while (name.find()) {
                queries.putIfAbsent(name.group(), rule.getKey());
            }
            Matcher selector = SELECTOR.matcher(rule.getValue());
            while (selector.find()) {
                queries.putIfAbsent(selector.group(), rule.getKey());
                Matcher matcher = LABEL_MATCHER.matcher(selector.group(2));
                while (matcher.find()) {
                    if (matcher.group(2).equals("!=")) {
                        queries.putIfAbsent(selector.group(1) + "{" + matcher.group(1) + "=\"" + matcher.group(3)
                                + "\"}", rule.getKey());
                    }
                }
            }
        }
        for (Map.Entry<String, String> query : queries.entrySet()) {
            JsonNode data;
            try {
                data = prometheus.api("/api/v1/query_range", Map.of("query", query.getKey(), "start",
                        Long.toString(start), "end", Long.toString(end), "step", "1"));
            } catch (LocalPrometheus.PrometheusQueryException e) {
                problems.add(query.getValue() + ": Prometheus rejected " + query.getKey() + ": " + e.getMessage());
                continue;
            }
            if (data.path("result").isEmpty()) {
                problems.add(query.getValue() + ": no series for " + query.getKey());
            }
        }
        if (queries.isEmpty()) {
            problems.add("no rule expression found in " + ModuleFiles.prometheusDir().resolve("rules"));
        }
        return problems;
    }

    /**
     * What the real Prometheus says of each committed recording rule and alert after evaluating them against the
     * server's series: every one must be loaded and its last evaluation healthy ({@code health} "ok", no {@code
     * lastError}). An expression promtool accepts can still fail each evaluation against real series (many-to-many
     * matching, a duplicate series after a label_replace), leaving its record empty and its alert silent; the series
     * checks above cannot tell, since a failing rule has no series of its own to miss when nothing reads it.
     */
    private static List<String> ruleHealth(LocalPrometheus prometheus) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        int rules = 0;
        for (JsonNode group : prometheus.api("/api/v1/rules", Map.of()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                rules++;
                String health = rule.path("health").asText();
                String lastError = rule.path("lastError").asText("");
                if (!health.equals("ok") || !lastError.isEmpty()) {
                    problems.add(group.path("file").asText() + " " + group.path("name").asText() + " "
                            + rule.path("type").asText() + " " + rule.path("name").asText() + ": health '" + health
                            + "', lastError '" + lastError + "'");
                }
            }
        }
        int committed = ruleExpressions().size();
        if (rules != committed) {
            problems.add("Prometheus has " + rules + " rules loaded, the rule files " + committed);
        }
        return problems;
    }

    /** Each rule's expression ({@code expr:}, one line or a folded block) by the rule's name, from the rule files. */
    private static Map<String, String> ruleExpressions() throws IOException {
        Map<String, String> exprs = new LinkedHashMap<>();
        List<java.nio.file.Path> files;
        try (var list = java.nio.file.Files.list(ModuleFiles.prometheusDir().resolve("rules"))) {
            files = list.filter(f -> f.toString().endsWith(".yml")).sorted().toList();
        }
        for (java.nio.file.Path file : files) {
            List<String> lines = java.nio.file.Files.readAllLines(file);
            String rule = null;
            for (int i = 0; i < lines.size(); i++) {
                Matcher named = RULE_NAME.matcher(lines.get(i));
                if (named.find()) {
                    rule = file.getFileName() + " " + named.group(1);
                }
                Matcher expr = EXPR.matcher(lines.get(i));
                if (!expr.find() || rule == null) {
                    continue;
                }
                StringBuilder text = new StringBuilder(expr.group(2).matches("[>|][-+]?") ? "" : expr.group(2));
                int indent = expr.group(1).length();
                while (i + 1 < lines.size() && (lines.get(i + 1).isBlank()
                        || lines.get(i + 1).length() - lines.get(i + 1).stripLeading().length() > indent)) {
                    text.append(' ').append(lines.get(++i).trim());
                }
                exprs.put(rule, text.toString().trim());
            }
        }
        return exprs;
    }

    /**
     * Values for every variable, in dashboard order (a variable's query may use those before it). Query variables
     * are resolved through Prometheus as Grafana's label_values() does; each must find at least one value.
     */
    private static Map<String, String> resolveVariables(DashboardModel dashboard, LocalPrometheus prometheus,
                                                        Selection selection, long start, long end,
                                                        List<String> problems)
            throws IOException, InterruptedException {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("__rate_interval", RATE_INTERVAL);
        for (Variable variable : dashboard.variables()) {
            switch (variable.type()) {
                case "datasource" -> values.put(variable.name(), "prometheus");
                case "query" -> {
                    Matcher matcher = LABEL_VALUES.matcher(variable.query().trim());
                    if (!matcher.matches()) {
                        problems.add("variable '" + variable.name() + "': the test understands label_values(selector,"
                                + " label) queries only, got '" + variable.query() + "'");
                        continue;
                    }
                    String selector = substitute(matcher.group(1), values);
                    List<String> found = prometheus.labelValues(selector, matcher.group(2), start, end);
                    if (found.isEmpty()) {
                        problems.add("variable '" + variable.name() + "': no values for " + selector);
                        continue;
                    }
                    values.put(variable.name(), format(variable, found, selection));
                }
                default -> problems.add("variable '" + variable.name() + "': type '" + variable.type()
                        + "' is not one the test knows how to set");
            }
        }
        return values;
    }

    /** A variable's value as Grafana interpolates it into a Prometheus query. */
    private static String format(Variable variable, List<String> found, Selection selection) {
        if (!variable.multi() && !variable.includeAll()) {
            return found.get(0);
        }
        if (selection == Selection.ALL && variable.includeAll() && variable.allValue() != null) {
            return variable.allValue();
        }
        return found.stream().map(DashboardQueriesLiveTest::regexEscape).collect(Collectors.joining("|", "(", ")"));
    }

    /** Grafana's escaping of one value of a multi-value variable, for use in a PromQL "..." regex. */
    private static String regexEscape(String value) {
        return value.replace("\\", "\\\\\\\\").replaceAll("[$^*{}\\[\\]'+?.()|]", "\\\\\\\\$0");
    }

    private static String substitute(String text, Map<String, String> values) {
        String result = text;
        // longest names first, so $page does not eat the start of a hypothetical $pages
        List<String> names = values.keySet().stream().sorted((a, b) -> b.length() - a.length()).toList();
        for (String name : names) {
            result = result.replace("${" + name + "}", values.get(name)).replace("$" + name, values.get(name));
        }
        return result;
    }

    private static long epochSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
