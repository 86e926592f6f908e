package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.dashboards.DashboardModel.Panel;
import io.fairslice.dashboards.DashboardModel.Query;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the committed dashboard's panels show where the live test's load does not go: a page or class with nothing to
 * divide by. Each test feeds hand-written series, shaped like a fairslice server's /metrics, and a panel query from
 * the committed JSON (variables All, {@code $__rate_interval} 1m, as {@code npm run snapshot} sets them) to the real
 * promtool ({@code promql_expr_test}, the committed recording rules loaded), and lists every series the query must
 * return with its value: a series not listed must be absent, not NaN or infinite (Grafana prints those in the legend
 * and they spoil its mean).
 */
class PanelQueriesTest {

    private static Tool promtool;
    private static DashboardModel dashboard;

    @BeforeAll
    static void readDashboard() throws IOException {
        promtool = Tool.require("promtool");
        dashboard = DashboardModel.read(ModuleFiles.dashboardJson());
    }

    @Test
    void shouldShowRetentionOfAClassWithDemandOverTheSelectedInstancesTogether(@TempDir Path dir) throws IOException {
        // /shop on a and b, each serving light 1 request a second for 30 minutes; then b is drained and a serves
        // light's 2 a second alone: the application keeps its throughput (100 %; the least instance's ratio read 0).
        // On a for 30 minutes and then: heavy every request answered 503 (0 %: crowded out, at 80 minutes and still
        // at 100, when the last hour holds no minute it was served: it had no value then, as if idle); batch no
        // request (idle, no value: it read 0 %); reports never a request (no value: it read NaN).
        String input = """
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="light",page="/light",outcome="success"}'
                  values: '0+15x120 1830+30x280'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="b:8080",application="/shop",class="light",page="/light",outcome="success"}'
                  values: '0+15x120 1800x280'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="heavy",page="/heavy",outcome="success"}'
                  values: '0+15x120 1800x280'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="heavy",page="/heavy",outcome="rejected"}'
                  values: '0x120 0+15x280'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="batch",page="/nightly",outcome="success"}'
                  values: '0+15x120 1800x280'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="reports",page="/reports",outcome="success"}'
                  values: '0x400'
                """;

        for (String at : new String[] {"80m", "100m"}) {
            assertPanelShows(dir, "Throughput retention per class", input, at,
                    Map.of("{application=\"/shop\",class=\"light\"}", 1.0,
                            "{application=\"/shop\",class=\"heavy\"}", 0.0));
        }
    }

    @Test
    void shouldLeaveOutTheLatencyOfAPageWithNoRequestServed(@TempDir Path dir) throws IOException {
        // /a: 1 request served a second, every one between 250 and 500 ms (p50 375 ms); /b: 2 requests long ago and
        // none in the window (every bucket's rate 0: its quantile read NaN)
        String input = """
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/a",outcome="success",le="0.25"}'
                  values: '0x40'
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/a",outcome="success",le="0.5"}'
                  values: '0+15x40'
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/a",outcome="success",le="+Inf"}'
                  values: '0+15x40'
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/b",outcome="success",le="0.25"}'
                  values: '2x40'
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/b",outcome="success",le="0.5"}'
                  values: '2x40'
                - series: 'fairslice_requests_seconds_bucket{job="fairslice",instance="a:8080",application="/shop",class="light",page="/b",outcome="success",le="+Inf"}'
                  values: '2x40'
                """;

        assertPanelShows(dir, "Latency per page (p50, p95, p99)", input, "5m",
                Map.of("{application=\"/shop\",page=\"/a\"}", 0.375));
    }

    @Test
    void shouldLeaveOutTheCpuPerRequestOfAPageWithNoRequestServed(@TempDir Path dir) throws IOException {
        // /a: 1 request served a second, 0.5 CPU-second a second. /b: idle (0/0 read NaN). /c: its tasks' CPU counted
        // while none of its requests ended in the window (x/0 read +Inf), and its 503s, which are no request served.
        String input = """
                - series: 'fairslice_requests_cpu_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="light",page="/a"}'
                  values: '0+7.5x40'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="light",page="/a",outcome="success"}'
                  values: '0+15x40'
                - series: 'fairslice_requests_cpu_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="light",page="/b"}'
                  values: '3x40'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="light",page="/b",outcome="success"}'
                  values: '5x40'
                - series: 'fairslice_requests_cpu_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="heavy",page="/c"}'
                  values: '0+1.5x40'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="heavy",page="/c",outcome="success"}'
                  values: '2x40'
                - series: 'fairslice_requests_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="heavy",page="/c",outcome="rejected"}'
                  values: '0+15x40'
                """;

        assertPanelShows(dir, "CPU per request per page", input, "5m",
                Map.of("{application=\"/shop\",page=\"/a\",class=\"light\"}", 0.5));
    }

    @Test
    void shouldLeaveOutTheMeanRetryAfterOfAClassWithNoRejection(@TempDir Path dir) throws IOException {
        // heavy: 0.5 rejections a second, 1 s of Retry-After given a second (2 s each); light: none (0/0 read NaN)
        String input = """
                - series: 'fairslice_retry_after_seconds_sum{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0+15x40'
                - series: 'fairslice_retry_after_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0+7.5x40'
                - series: 'fairslice_retry_after_seconds_sum{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '0x40'
                - series: 'fairslice_retry_after_seconds_count{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '0x40'
                """;

        assertPanelShows(dir, "Retry-After given", input, "5m",
                Map.of("{application=\"/shop\",class=\"heavy\"}", 2.0));
    }

    @Test
    void shouldShowTheKernelFiguresOfTheClassesApartFromNone(@TempDir Path dir) throws IOException {
        // heavy: 100 dispatches a second, 0.5 CPU-second and 0.25 s of run-queue wait a second (5 ms, 2.5 ms each);
        // light: its threads not dispatched in the window (0/0 read NaN). The probe's none (worker threads outside
        // the application's requests) is on a line of its own, query B: 200 dispatches a second, 0.2 CPU-second and
        // 0.1 s of run-queue wait a second (1 ms, 0.5 ms each), 50 involuntary switches a second (heavy 20).
        String input = """
                - series: 'fairslice_probe_dispatches_total{job="fairslice",instance="a:8080",application="/shop",class="none"}'
                  values: '0+3000x40'
                - series: 'fairslice_probe_run_time_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="none"}'
                  values: '0+3x40'
                - series: 'fairslice_probe_runqueue_wait_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="none"}'
                  values: '0+1.5x40'
                - series: 'fairslice_probe_switches_total{job="fairslice",instance="a:8080",application="/shop",class="none",kind="involuntary"}'
                  values: '0+750x40'
                - series: 'fairslice_probe_switches_total{job="fairslice",instance="a:8080",application="/shop",class="heavy",kind="involuntary"}'
                  values: '0+300x40'
                - series: 'fairslice_probe_switches_total{job="fairslice",instance="a:8080",application="/shop",class="heavy",kind="voluntary"}'
                  values: '0+3000x40'
                - series: 'fairslice_probe_dispatches_total{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0+1500x40'
                - series: 'fairslice_probe_run_time_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0+7.5x40'
                - series: 'fairslice_probe_runqueue_wait_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0+3.75x40'
                - series: 'fairslice_probe_dispatches_total{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '40x40'
                - series: 'fairslice_probe_run_time_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '0.2x40'
                - series: 'fairslice_probe_runqueue_wait_seconds_total{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '0.1x40'
                """;

        assertPanelShows(dir, "Effective timeslice per class", input, "5m",
                Map.of("{application=\"/shop\",class=\"heavy\"}", 0.005));
        assertPanelShows(dir, "Run-queue wait per dispatch", input, "5m",
                Map.of("{application=\"/shop\",class=\"heavy\"}", 0.0025));
        assertPanelShows(dir, "Involuntary context switches per class", input, "5m",
                Map.of("{application=\"/shop\",class=\"heavy\"}", 20.0));
        assertPanelShows(dir, "Effective timeslice per class", "B", input, "5m",
                Map.of("{application=\"/shop\"}", 0.001));
        assertPanelShows(dir, "Run-queue wait per dispatch", "B", input, "5m",
                Map.of("{application=\"/shop\"}", 0.0005));
        assertPanelShows(dir, "Involuntary context switches per class", "B", input, "5m",
                Map.of("{application=\"/shop\"}", 50.0));
    }

    @Test
    void shouldLeaveAnIdleInstancesCpuShareOutOfTheClassesShare(@TempDir Path dir) throws IOException {
        // /shop on a (busy: light 0.8, heavy 0.2) and b (idle: the gauge reads NaN); /api on c, idle: no line at all.
        // Averaged with b's NaN, /shop's lines read NaN.
        String input = """
                - series: 'fairslice_class_cpu_share{job="fairslice",instance="a:8080",application="/shop",class="light"}'
                  values: '0.8x20'
                - series: 'fairslice_class_cpu_share{job="fairslice",instance="a:8080",application="/shop",class="heavy"}'
                  values: '0.2x20'
                - series: 'fairslice_class_cpu_share{job="fairslice",instance="b:8080",application="/shop",class="light"}'
                  values: 'NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN'
                - series: 'fairslice_class_cpu_share{job="fairslice",instance="b:8080",application="/shop",class="heavy"}'
                  values: 'NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN'
                - series: 'fairslice_class_cpu_share{job="fairslice",instance="c:8080",application="/api",class="light"}'
                  values: 'NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN'
                """;

        assertPanelShows(dir, "Class CPU share against target", input, "4m",
                Map.of("{application=\"/shop\",class=\"light\"}", 0.8,
                        "{application=\"/shop\",class=\"heavy\"}", 0.2));
    }

    /**
     * Runs the first query of the panel on {@code input} (promtool input_series entries) at {@code evalTime} and
     * asserts that it returns exactly {@code expected}: each series' labels (promtool's {@code {a="b"}} form) and
     * value.
     */
    private static void assertPanelShows(Path dir, String title, String input, String evalTime,
                                         Map<String, Double> expected) throws IOException {
        assertPanelShows(dir, title, "A", input, evalTime, expected);
    }

    /** As {@link #assertPanelShows(Path, String, String, String, Map)}, for the panel's query {@code refId}. */
    private static void assertPanelShows(Path dir, String title, String refId, String input, String evalTime,
                                         Map<String, Double> expected) throws IOException {
        Panel panel = dashboard.panels().stream().filter(p -> p.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no panel '" + title + "' in " + ModuleFiles.dashboardJson()));
        Query query = panel.queries().stream().filter(q -> q.refId().equals(refId)).findFirst()
                .orElseThrow(() -> new AssertionError("no query " + refId + " in panel '" + title + "'"));
        String expr = query.expr().replace("$__rate_interval", "1m").replace("$application", ".*")
                .replace("$instance", ".*").replace("$page", ".*");
        assertThat(expr).as("panel '%s' query %s with its variables set", title, query.refId()).doesNotContain("$");
        String samples = expected.isEmpty() ? "        exp_samples: []\n" : "        exp_samples:\n"
                + expected.entrySet().stream().map(e -> "          - labels: '" + e.getKey() + "'\n"
                        + "            value: " + e.getValue() + "\n").collect(Collectors.joining());
        Path test = dir.resolve("panel.test.yml");
        Files.writeString(test, """
                rule_files:
                  - %s
                evaluation_interval: 15s
                tests:
                  - interval: 15s
                    input_series:
                %s    promql_expr_test:
                      - expr: '%s'
                        eval_time: %s
                %s""".formatted(ModuleFiles.prometheusDir().resolve("rules").resolve("fairslice-recording.yml"),
                input.indent(6), expr.replace("'", "''"), evalTime, samples));

        Tool.Result result = promtool.run(dir, 60, "test", "rules", test.getFileName().toString());

        assertThat(result.exitCode()).as("panel '%s' query %s: %s%n%s", title, query.refId(), expr, result).isZero();
        assertThat(result.output()).as("%s", result).contains("SUCCESS");
    }
}
