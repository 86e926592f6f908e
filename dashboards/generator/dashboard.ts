// The fairslice overview dashboard: what a request class gets (throughput, CPU share, latency) and what the
// middleware and the kernel did about it (parks, rejections, timeslices, run-queue waits). docs/dashboards.md explains
// each panel and how an overload looks in it; keep the two in step.

import * as common from "@grafana/grafana-foundation-sdk/common";
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import * as timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import { applyFixes } from "./fixes";
import { middleware as m, probe as p, recorded as r } from "./metrics";

export const DASHBOARD_UID = "fairslice-overview";

/** The datasource every panel and variable uses: the dashboard's datasource variable. */
const DATASOURCE: common.DataSourceRef = { type: "prometheus", uid: "${datasource}" };

/**
 * Series of the selected applications and instances. The middleware tags every meter with `application`, the web
 * application's context path ("/" for the root), so the panels group by application wherever they group by class or
 * page: several applications of one Tomcat share a registry and must not be summed together.
 */
const TARGET = `application=~"$application", instance=~"$instance"`;
/** ... and of the selected pages. */
const PAGES = `${TARGET}, page=~"$page"`;

interface Query {
  expr: string;
  /** Grafana legend template; every {{label}} in it must be a label of every series (the live test checks it). */
  legend: string;
}

interface PanelSpec {
  title: string;
  description: string;
  /** A Grafana unit id, such as reqps, s, percentunit. */
  unit: string;
  queries: Query[];
  min?: number;
  max?: number;
  /** Series whose legend matches this pattern are drawn dashed: the targets a measured series is compared to. */
  dashedPattern?: string;
  width?: number;
}

function panel(spec: PanelSpec): timeseries.PanelBuilder {
  const builder = new timeseries.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .height(8)
    .span(spec.width ?? 12)
    .lineWidth(1)
    .fillOpacity(10)
    .showPoints(common.VisibilityMode.Never)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.Table)
        .placement(common.LegendPlacement.Bottom)
        .calcs(["mean", "max", "lastNotNull"]),
    )
    .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending));
  if (spec.min !== undefined) {
    builder.min(spec.min);
  }
  if (spec.max !== undefined) {
    builder.max(spec.max);
  }
  if (spec.dashedPattern !== undefined) {
    builder.overrideByRegexp(spec.dashedPattern, [
      { id: "custom.lineStyle", value: { fill: "dash", dash: [10, 10] } },
      { id: "custom.fillOpacity", value: 0 },
    ]);
  }
  spec.queries.forEach((query, index) => {
    builder.withTarget(
      new prometheus.DataqueryBuilder()
        .datasource(DATASOURCE)
        .refId(String.fromCharCode("A".charCodeAt(0) + index))
        .expr(query.expr)
        .legendFormat(query.legend)
        .range(),
    );
  });
  return builder;
}

function row(title: string): dashboard.RowBuilder {
  return new dashboard.RowBuilder(title);
}

/** A query variable over one label of the request timer, filtered by the variables before it. */
function labelVariable(name: string, label: string, matchers: string, all: boolean): dashboard.QueryVariableBuilder {
  const query = `label_values(${m.requestsCount}${matchers === "" ? "" : `{${matchers}}`}, ${label})`;
  const builder = new dashboard.QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    // the plain-string form: every Grafana since 7 reads it (10.1+ convert it to their query object on load)
    .query(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(all)
    .includeAll(all);
  if (all) {
    // without it Grafana would list every value in the regex; ".*" also matches series that lack the label
    builder.allValue(".*");
  }
  return builder;
}

// only for a page served in the window (its +Inf bucket's rate above 0): an idle page's quantile is NaN (0/0)
const quantile = (q: number, name: string): Query => ({
  expr:
    `histogram_quantile(${q}, sum by (application, page, le) (${r.pageLatencyBuckets}{${PAGES}}))` +
    ` and on (application, page) sum by (application, page) (${r.pageLatencyBuckets}{${PAGES}, le="+Inf"}) > 0`,
  legend: `{{application}} {{page}} ${name}`,
});

/**
 * The kernel probe's pseudo-class `none` (docs/kernel-probe.md): a worker thread outside the application's requests,
 * between requests, and with several applications in one Tomcat in the other applications' requests too. No request
 * class: its own series beside the classes', named so.
 */
const PROBE_CLASSES = `${TARGET}, class!="none"`;
const PROBE_NONE = `${TARGET}, class="none"`;
const NONE_LEGEND = "{{application}} outside its requests (none)";
const NONE_SERIES =
  "The line 'outside its requests (none)' is no request class: the probe's class none, worker threads between " +
  "requests and, with several applications in one Tomcat, in the other applications' requests.";

/**
 * Two counters' rates summed by `by` labels, one over the other: where the denominator's rate is 0 (an idle page or
 * class, nothing rejected, no dispatch) there is no value, not NaN (0/0) or +Inf (x/0).
 */
const rateRatio = (by: string, numerator: string, denominator: string): string =>
  `sum by (${by}) (rate(${numerator}[$__rate_interval])) / ` +
  `(sum by (${by}) (rate(${denominator}[$__rate_interval])) > 0)`;

export function buildDashboard(): dashboard.Dashboard {
  const builder = new dashboard.DashboardBuilder("fairslice: overload fairness")
    .uid(DASHBOARD_UID)
    .description(
      "Per-page throughput and latency, class CPU shares against their targets, and what the fairslice middleware " +
        "and the kernel did under overload (parks, rejections, timeslices, run-queue waits). See docs/dashboards.md.",
    )
    .tags(["fairslice", "tomcat", "overload"])
    .editable()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .refresh("10s")
    .time({ from: "now-30m", to: "now" })
    .timezone("browser")
    .withVariable(
      new dashboard.DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"),
    )
    .withVariable(labelVariable("application", "application", "", true))
    .withVariable(labelVariable("instance", "instance", `application=~"$application"`, true))
    .withVariable(labelVariable("page", "page", TARGET, true))

    .withRow(row("Throughput and CPU share"))
    .withPanel(
      panel({
        title: "Throughput per page",
        description: "Completed requests per second for each page (all outcomes, 503 rejections included).",
        unit: "reqps",
        min: 0,
        queries: [
          {
            expr: `sum by (application, page) (rate(${m.requestsCount}{${PAGES}}[$__rate_interval]))`,
            legend: "{{application}} {{page}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Throughput per class",
        description:
          "Completed requests per second for each request class (all outcomes; the 503s alone are in 'Rejections').",
        unit: "reqps",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class) (rate(${m.requestsCount}{${PAGES}}[$__rate_interval]))`,
            legend: "{{application}} {{class}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Class CPU share against target",
        description:
          "Each class's part of what the classes were charged (solid: their requests' CPU time, and the collector " +
          "pauses charged to them with share.charge-gc), against its configured share (dashed). " +
          "A class far below its target while its requests wait (the cheap pages' class, light by default) is the " +
          "unfairness fairslice exists to stop. An instance charged nothing over the last ~2 s (idle) has no value.",
        unit: "percentunit",
        min: 0,
        max: 1,
        dashedPattern: ".* target$",
        queries: [
          {
            // an idle instance's gauge reads NaN (no value): left out, not averaged into the others' (>= 0 drops it)
            expr: `avg by (application, class) (${m.classCpuShare}{${TARGET}} >= 0)`,
            legend: "{{application}} {{class}}",
          },
          {
            expr: `avg by (application, class) (${m.classCpuShareTarget}{${TARGET}})`,
            legend: "{{application}} {{class}} target",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Throughput retention per class",
        description:
          "The requests each class was served over the last minute (admission control's 503s left out) as a " +
          "fraction of its best minute in the last hour, over the selected instances together (recording rules). " +
          "The study's 'light retention': near 100% means heavy load does not crowd the class out. Shown only " +
          "while the class has demand (requests answered in the last minute, 503s included): an idle class has no " +
          "value, one whose every request is answered 503 reads 0%.",
        unit: "percentunit",
        min: 0,
        queries: [
          {
            // served rates summed over instances before dividing: a drained instance's 0 is no loss to its
            // application (the least instance's ratio read 0 then); the best minute is the sum's (subquery). The
            // subquery samples at the evaluation interval's steps, which need not fall after the rule's last
            // evaluation: a rate that has just risen is then above its sampled best (115 % a minute into a load),
            // and the current minute, when it is the best, is 100 %. A class with demand served nothing all hour
            // reads 0 (or): with no best minute to divide by, its line vanished as an idle class's does.
            expr:
              `clamp_max(sum by (application, class) (${r.classServed}{${TARGET}})` +
              ` / (max_over_time(sum by (application, class) (${r.classServed}{${TARGET}})[1h:]) > 0)` +
              ` or sum by (application, class) (${r.classServed}{${TARGET}}) == 0, 1)` +
              ` and on (application, class) sum by (application, class) (${r.classThroughput}{${TARGET}}) > 0`,
            legend: "{{application}} {{class}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Request CPU time per class (cores)",
        description:
          "CPU seconds per second spent by the threads serving each class, in cores (1 = one full core), from the threads' " +
          "own CPU clocks; and the collector's pauses charged to each class by the bytes its requests allocated " +
          "(share.charge-gc), which the shares count beside the requests' own CPU.",
        unit: "short",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class) (rate(${m.requestsCpu}{${PAGES}}[$__rate_interval]))`,
            legend: "{{application}} {{class}}",
          },
          {
            expr: `sum by (application, class) (rate(${m.classGc}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} collector pauses",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Adaptive reclassifications per class",
        description:
          "Routes the adaptive classifier moved into each class (routes), and requests in flight that moved with " +
          "them (requests in flight), per minute (the same at any zoom). When 'Throughput per page' holds steady but " +
          "'Throughput per class' shifts, a route changed class: a page that turns expensive under overload moves " +
          "into the adaptive class (heavy by default) and is throttled with it. A new expensive page shows as one " +
          "route and the requests it had started in the default class, which move at their next yield point.",
        unit: "opm",
        min: 0,
        queries: [
          {
            expr: `60 * sum by (application, class) (rate(${m.classifyReclassified}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} routes",
          },
          {
            expr: `60 * sum by (application, class) (rate(${m.requestsMoved}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} requests in flight",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "CPU per request per page",
        description:
          "Mean CPU time of a request of each page, in the class it ran in: its serving threads' own CPU clocks (a " +
          "sample of requests, each counted for those it stands for; its tasks included) over the requests served. " +
          "This is what the adaptive classifier learns from: a page above adaptive.heavy-above (5 ms by default) " +
          "is learnt heavy, and light again below adaptive.light-below (2 ms). A page whose cost swings across " +
          "them flaps between classes: give it a rule. A page with no request served in the interval has no value.",
        unit: "s",
        min: 0,
        width: 24,
        queries: [
          {
            expr: rateRatio("application, page, class", `${m.requestsCpu}{${PAGES}}`,
              `${m.requestsCount}{${PAGES}, outcome!="rejected"}`),
            legend: "{{application}} {{page}} ({{class}})",
          },
        ],
      }),
    )

    .withRow(row("Latency"))
    .withPanel(
      panel({
        title: "Latency per page (p50, p95, p99)",
        description:
          "Quantiles of the time from the filter's entry to the response's completion, queued and parked time " +
          "included, from the timer's histogram buckets over one minute (recording rule).",
        unit: "s",
        min: 0,
        width: 24,
        queries: [quantile(0.5, "p50"), quantile(0.95, "p95"), quantile(0.99, "p99")],
      }),
    )

    .withRow(row("Scheduling"))
    .withPanel(
      panel({
        title: "In flight per class",
        description:
          "Requests between filter entry and completion, split into running (admitted, not parked) and waiting " +
          "(queued for admission or parked at a yield point).",
        unit: "short",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class) (${m.requestsInflight}{${TARGET}})`,
            legend: "{{application}} {{class}} in flight",
          },
          {
            expr: `sum by (application, class) (${m.requestsRunning}{${TARGET}})`,
            legend: "{{application}} {{class}} running",
          },
          {
            expr: `sum by (application, class) (${m.requestsWaiting}{${TARGET}})`,
            legend: "{{application}} {{class}} waiting",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Yield points per class",
        description:
          "Yield points reached per second while the scheduler was armed (the fast path, when nobody needs to " +
          "yield, is not counted).",
        unit: "ops",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class) (rate(${m.yieldPoints}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Parks per class",
        description: "Times per second a request's thread parked, at admission or at a yield point.",
        unit: "ops",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class, where) (rate(${m.yieldParks}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} at {{where}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Run slots lent per class",
        description:
          "Times per second a request of the class held a run slot blocked in a call, which then went to another " +
          "request: found (the scheduler saw its thread blocked at two looks 2 ms apart: a connection pool, an " +
          "HTTP client, a lock, a sleep, on Linux a socket read) or declared (Fairslice.blocking(), the JDBC calls " +
          "of woven code with --weave-jdbc: given up at once). Steady lending is an application whose pages wait " +
          "while they run; steady found lending, waits that declaring would serve sooner.",
        unit: "ops",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class, how) (rate(${m.shareSlotsLent}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} {{how}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Parked threads per class",
        description:
          "Seconds parked per second: the average number of threads of the class that were parked, at admission " +
          "or at a yield point. A park is counted as it ends, so long admission waits show late: In flight per " +
          "class shows the requests waiting now.",
        unit: "short",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class, where) (rate(${m.yieldParked}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} at {{where}}",
          },
        ],
      }),
    )

    .withRow(row("Admission control"))
    .withPanel(
      panel({
        title: "Rejections (503) per class",
        description: "Requests answered 503 with Retry-After per second, by class and reason.",
        unit: "reqps",
        min: 0,
        queries: [
          {
            expr: `sum by (application, class, reason) (rate(${m.rejections}{${TARGET}}[$__rate_interval]))`,
            legend: "{{application}} {{class}} {{reason}}",
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Retry-After given",
        description:
          "The Retry-After sent with rejections: mean over the interval (none where nothing was rejected) and the " +
          "recent maximum.",
        unit: "s",
        min: 0,
        queries: [
          {
            expr: rateRatio("application, class", `${m.retryAfterSum}{${TARGET}}`, `${m.retryAfterCount}{${TARGET}}`),
            legend: "{{application}} {{class}} mean",
          },
          {
            expr: `max by (application, class) (${m.retryAfterMax}{${TARGET}})`,
            legend: "{{application}} {{class}} max",
          },
        ],
      }),
    )

    .withRow(row("Kernel scheduler (kernel-probe)"))
    .withPanel(
      panel({
        title: "Effective timeslice per class",
        description:
          "CPU time per dispatch of the worker threads serving each class: how long a thread runs once the OS " +
          "puts it on a CPU. Long slices for expensive work are what starve cheap requests on a long-slice OS. " +
          "From the run-time and dispatch counters, so an instance where a class was idle does not hide the " +
          "other instances' line (the probe's slice gauge is NaN there); a class idle everywhere leaves a gap. " +
          NONE_SERIES,
        unit: "s",
        min: 0,
        queries: [
          {
            expr: rateRatio(
              "application, class",
              `${p.runTime}{${PROBE_CLASSES}}`,
              `${p.dispatches}{${PROBE_CLASSES}}`,
            ),
            legend: "{{application}} {{class}}",
          },
          {
            expr: rateRatio("application", `${p.runTime}{${PROBE_NONE}}`, `${p.dispatches}{${PROBE_NONE}}`),
            legend: NONE_LEGEND,
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Run-queue wait per dispatch",
        description:
          "Time a worker thread of the class waited runnable for a CPU, per dispatch: the OS-level queueing that " +
          "a servlet filter cannot see. " +
          NONE_SERIES,
        unit: "s",
        min: 0,
        queries: [
          {
            expr: rateRatio(
              "application, class",
              `${p.runQueueWait}{${PROBE_CLASSES}}`,
              `${p.dispatches}{${PROBE_CLASSES}}`,
            ),
            legend: "{{application}} {{class}}",
          },
          {
            expr: rateRatio("application", `${p.runQueueWait}{${PROBE_NONE}}`, `${p.dispatches}{${PROBE_NONE}}`),
            legend: NONE_LEGEND,
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "Involuntary context switches per class",
        description: "Times per second the scheduler preempted a worker thread serving the class. " + NONE_SERIES,
        unit: "ops",
        min: 0,
        queries: [
          {
            expr:
              `sum by (application, class) ` +
              `(rate(${p.switches}{${PROBE_CLASSES}, kind="involuntary"}[$__rate_interval]))`,
            legend: "{{application}} {{class}}",
          },
          {
            expr: `sum by (application) (rate(${p.switches}{${PROBE_NONE}, kind="involuntary"}[$__rate_interval]))`,
            legend: NONE_LEGEND,
          },
        ],
      }),
    )
    .withPanel(
      panel({
        title: "CPU pressure",
        description:
          "Share of wall time in which at least one task of the host waited for a CPU (PSI 'some', " +
          "/proc/pressure/cpu: in a container, the whole host's, not the container's own). Near 100% means the " +
          "host's CPU is overcommitted, whatever the middleware does. No data: the kernel probe is off, or its " +
          "sampler stopped (one warning in the server log), whose stall counter then goes rather than read as 0.",
        unit: "percentunit",
        min: 0,
        queries: [{ expr: `max by (instance) (rate(${p.cpuPressureStall}{${TARGET}}[$__rate_interval]))`, legend: "{{instance}}" }],
      }),
    );

  const built = builder.build();
  numberPanels(built);
  return applyFixes(built);
}

/** Stable panel ids in layout order (Grafana needs unique ids; the SDK leaves them out). */
function numberPanels(board: dashboard.Dashboard): void {
  let id = 1;
  for (const item of board.panels ?? []) {
    item.id = id++;
  }
}
