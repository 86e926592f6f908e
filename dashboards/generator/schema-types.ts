// Types for checking dashboard JSON against @grafana/schema (see main.ts, writeSchemaCheck).

import type {
  GraphFieldConfig,
  OptionsWithLegend,
  OptionsWithTimezones,
  OptionsWithTooltip,
  Panel,
} from "@grafana/schema";

/**
 * T as JSON can spell it: a string enum becomes the union of its values (`${Enum}`), numeric enums stay (numeric
 * literals are assignable to them), objects and arrays are mapped member by member. Optional and required
 * properties are kept, so missing required fields and unknown fields are still errors.
 */
export type Json<T> = T extends string
  ? `${T}`
  : T extends number | boolean | null | undefined
    ? T
    : T extends ReadonlyArray<infer U>
      ? Array<Json<U>>
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : T;

/** A time series panel as Grafana 10.4 defines it (its panelcfg options are these three option sets). */
export type TimeSeriesPanel = Panel<OptionsWithLegend & OptionsWithTooltip & OptionsWithTimezones, GraphFieldConfig>;
