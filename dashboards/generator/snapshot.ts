// The dashboard in a terminal: runs every panel query of the committed dashboard JSON against a Prometheus, once,
// and prints the values with the panel's legend and unit. For people without Grafana, and for saving what an
// overload looked like as text.
//
//   node build/generator/snapshot.js [--prometheus http://127.0.0.1:9090] [--rate-interval 1m]
//                                    [--application NAME] [--dashboard grafana/fairslice-overview.json]

import * as fs from "node:fs";
import * as path from "node:path";

const USAGE = `usage: node build/generator/snapshot.js [options]      (in dashboards/: npm run -s snapshot -- [options])
Runs every panel query of the dashboard once against a Prometheus and prints the values with the panel's legend
and unit.
  --prometheus URL      the Prometheus to query (default http://127.0.0.1:9090)
  --rate-interval D     the value of $__rate_interval, a Prometheus duration such as 30s (default 1m)
  --application PATH    one application, by its context path (/ for the root one); default: all of them
  --dashboard FILE      the dashboard JSON (default grafana/fairslice-overview.json)
  --help, -h            this text`;

/** A mistake on the command line: said with a pointer to --help, exit status 2. */
class UsageError extends Error {}

interface Options {
  prometheus: string;
  rateInterval: string;
  application?: string;
  dashboard: string;
}

interface Target {
  expr?: string;
  legendFormat?: string;
  hide?: boolean;
}

interface PanelJson {
  type?: string;
  title?: string;
  targets?: Target[];
  panels?: PanelJson[];
  fieldConfig?: { defaults?: { unit?: string } };
}

interface VariableJson {
  name: string;
  type: string;
  query?: string | { query?: string };
  includeAll?: boolean;
  allValue?: string;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/** The options, or "help" when --help or -h is among the arguments (answered before anything is checked). */
function parseArgs(argv: string[]): Options | "help" {
  if (argv.includes("--help") || argv.includes("-h")) {
    return "help";
  }
  const options: Options = {
    prometheus: "http://127.0.0.1:9090",
    rateInterval: "1m",
    dashboard: path.resolve(__dirname, "..", "..", "grafana", "fairslice-overview.json"),
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    const need = (): string => {
      if (value === undefined || value.startsWith("--")) {
        throw new UsageError(`${argv[i]} needs a value`);
      }
      i++;
      return value;
    };
    switch (argv[i]) {
      case "--prometheus": options.prometheus = need(); break;
      case "--rate-interval": options.rateInterval = need(); break;
      case "--application": options.application = need(); break;
      case "--dashboard": options.dashboard = need(); break;
      default: throw new UsageError(`unknown option '${argv[i]}'`);
    }
  }
  if (!/^\d+(ms|s|m|h)$/.test(options.rateInterval)) {
    throw new UsageError(`--rate-interval must be a Prometheus duration such as 1m, got '${options.rateInterval}'`);
  }
  return options;
}

async function api(options: Options, apiPath: string, params: Record<string, string>): Promise<unknown> {
  const url = `${options.prometheus.replace(/\/$/, "")}${apiPath}?${new URLSearchParams(params)}`;
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data?: unknown; error?: string };
  if (body.status !== "success") {
    throw new Error(`${apiPath} ${JSON.stringify(params)}: ${body.error ?? response.status}`);
  }
  return body.data;
}

/** Variable values: --application if given, "All" for the multi-value variables, else the first value found. */
async function variables(options: Options, list: VariableJson[]): Promise<Map<string, string>> {
  const values = new Map<string, string>([["__rate_interval", options.rateInterval]]);
  for (const variable of list) {
    if (variable.type !== "query") {
      continue;
    }
    if (variable.name === "application" && options.application !== undefined) {
      values.set(variable.name, escapeRegex(options.application));
      continue;
    }
    if (variable.includeAll) {
      values.set(variable.name, variable.allValue ?? ".*");
      continue;
    }
    const query = typeof variable.query === "string" ? variable.query : (variable.query?.query ?? "");
    const match = /^label_values\((.+),\s*(\w+)\)$/.exec(query.trim());
    if (match === null) {
      throw new Error(`variable ${variable.name}: cannot read query '${query}'`);
    }
    const series = (await api(options, "/api/v1/series", { "match[]": substitute(match[1], values) })) as Array<
      Record<string, string>
    >;
    const found = [...new Set(series.map((s) => s[match[2]]).filter((v) => v !== undefined))].sort();
    if (found.length === 0) {
      throw new Error(`variable ${variable.name}: no values in ${options.prometheus}; is it scraping a fairslice server?`);
    }
    values.set(variable.name, found[0]);
  }
  return values;
}

/** A value as Grafana puts one selected value of a multi-value variable into a PromQL regex. */
function escapeRegex(value: string): string {
  return value.replace(/[\\^$*+?.()|[\]{}]/g, "\\\\$&");
}

function substitute(text: string, values: Map<string, string>): string {
  let result = text;
  for (const [name, value] of [...values.entries()].sort((a, b) => b[0].length - a[0].length)) {
    result = result.split("${" + name + "}").join(value).split("$" + name).join(value);
  }
  return result;
}

function format(value: number, unit: string): string {
  if (Number.isNaN(value)) {
    return "NaN";
  }
  switch (unit) {
    case "percentunit": return `${(value * 100).toFixed(1)} %`;
    case "s": return value < 1 ? `${(value * 1000).toFixed(value < 0.01 ? 3 : 1)} ms` : `${value.toFixed(2)} s`;
    case "reqps": return `${value.toFixed(1)} req/s`;
    case "ops": return `${value.toFixed(1)} /s`;
    case "opm": return `${value.toFixed(1)} /min`;
    default: return value.toFixed(2);
  }
}

function legend(format: string, metric: Record<string, string>): string {
  const text = format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, label: string) => metric[label] ?? "");
  return text === "" ? JSON.stringify(metric) : text;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options === "help") {
    console.log(USAGE);
    return;
  }
  const dashboard = JSON.parse(fs.readFileSync(options.dashboard, "utf8")) as {
    title?: string;
    panels?: PanelJson[];
    templating?: { list?: VariableJson[] };
  };
  const values = await variables(options, dashboard.templating?.list ?? []);
  const time = Date.now() / 1000;
  console.log(`${dashboard.title ?? "dashboard"} at ${new Date(time * 1000).toISOString()} from ${options.prometheus}`);
  console.log(`variables: ${[...values.entries()].map(([k, v]) => `${k}=${v}`).join(" ")}`);
  const panels = (dashboard.panels ?? []).flatMap((p) => (p.type === "row" ? p.panels ?? [] : [p]));
  for (const panel of panels) {
    const unit = panel.fieldConfig?.defaults?.unit ?? "";
    console.log(`\n${panel.title ?? "(untitled)"}`);
    for (const target of panel.targets ?? []) {
      if (target.hide === true || target.expr === undefined) {
        continue;
      }
      const data = (await api(options, "/api/v1/query", {
        query: substitute(target.expr, values),
        time: time.toString(),
      })) as { result: Sample[] };
      if (data.result.length === 0) {
        console.log("  (no data)");
      }
      const rows = data.result
        .map((s) => [legend(target.legendFormat ?? "", s.metric), format(Number(s.value[1]), unit)] as const)
        .sort((a, b) => a[0].localeCompare(b[0]));
      for (const [name, value] of rows) {
        console.log(`  ${name.padEnd(32)} ${value}`);
      }
    }
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`snapshot: ${error.message} (--help lists the options)`);
    process.exitCode = 2;
    return;
  }
  console.error(`snapshot: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
