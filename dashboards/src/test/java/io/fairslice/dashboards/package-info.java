/**
 * Tests of the dashboards module against the real tools: promtool for the Prometheus config and rules, the
 * TypeScript compiler for the dashboard generator, and a live Prometheus scraping a live fairslice server for every
 * panel query. A missing tool fails a test with what to install; nothing is skipped.
 */
package io.fairslice.dashboards;
