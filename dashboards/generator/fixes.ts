// Corrections to what Grafana's Foundation SDK 0.0.21 emits, so that the JSON imports into Grafana 10.4 and later
// exactly as designed. Each fix is checked after it is applied: if a newer SDK changes its output, the generator
// fails here instead of committing a silently different dashboard.

import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";

/**
 * The dashboard schema version written. 39 is Grafana 10.4's: older Grafana versions would refuse nothing but
 * could misread newer panel defaults, and Grafana 11 and 12 migrate 39 forward on load. The SDK writes 42
 * (Grafana 12), which Grafana 10 does not know.
 */
export const SCHEMA_VERSION = 39;

/** Interval-variable fields that the SDK puts on every variable (SDK 0.0.21 defaultVariableModel). */
const INTERVAL_ONLY_FIELDS = ["auto", "auto_min", "auto_count"] as const;

/**
 * Variable fields the SDK writes by default that Grafana 10.4's schema does not have (Grafana 12 added them; their
 * defaults are Grafana's behaviour anyway), so the JSON type-checks against the oldest schema we promise.
 */
const NEWER_THAN_10_4_FIELDS = ["allowCustomValue"] as const;

export function applyFixes(dashboard: Dashboard): Dashboard {
  dashboard.schemaVersion = SCHEMA_VERSION;
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== "interval") {
      const fields = variable as unknown as Record<string, unknown>;
      for (const field of INTERVAL_ONLY_FIELDS) {
        delete fields[field];
      }
    }
    for (const field of NEWER_THAN_10_4_FIELDS) {
      delete (variable as unknown as Record<string, unknown>)[field];
    }
  }
  verify(dashboard);
  return dashboard;
}

/** Fails on output that the fixes above should have removed, and on hidden legends (SDK default: showLegend false). */
function verify(dashboard: Dashboard): void {
  const problems: string[] = [];
  for (const variable of dashboard.templating?.list ?? []) {
    for (const field of INTERVAL_ONLY_FIELDS) {
      if (variable.type !== "interval" && field in variable) {
        problems.push(`variable '${variable.name}' still has interval field '${field}'`);
      }
    }
  }
  for (const panel of dashboard.panels ?? []) {
    if (!("options" in panel)) {
      continue; // a row
    }
    const legend = (panel.options as { legend?: { showLegend?: boolean } } | undefined)?.legend;
    if (legend !== undefined && legend.showLegend !== true) {
      problems.push(`panel '${panel.title}' hides its legend (showLegend is ${String(legend.showLegend)})`);
    }
  }
  if (problems.length > 0) {
    throw new Error("the generated dashboard is not what fairslice ships:\n  " + problems.join("\n  "));
  }
}
