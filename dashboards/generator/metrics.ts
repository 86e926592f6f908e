// The Prometheus names of the meters the dashboard and the rules read. The meters are declared in
// middleware/core (io.fairslice.middleware.metrics.MeterNames) and kernel-probe (io.fairslice.probe.ProbeMeterNames);
// these are their names after Micrometer's Prometheus naming (dots become underscores, the base unit is appended,
// counters get _total). The live test (DashboardQueriesLiveTest) runs every panel query against a real scrape, so a
// renamed meter fails the build instead of leaving an empty panel.

/** Middleware meters (MeterNames). */
export const middleware = {
  /** Timer, tags class, page, outcome; percentile histogram. */
  requestsBucket: "fairslice_requests_seconds_bucket",
  requestsCount: "fairslice_requests_seconds_count",
  /** Counter (seconds), tags class, page. */
  requestsCpu: "fairslice_requests_cpu_seconds_total",
  /** Gauges, tag class. */
  requestsInflight: "fairslice_requests_inflight",
  requestsRunning: "fairslice_requests_running",
  requestsWaiting: "fairslice_requests_waiting",
  /** Gauges (ratio 0..1), tag class. */
  classCpuShare: "fairslice_class_cpu_share",
  classCpuShareTarget: "fairslice_class_cpu_share_target",
  /** Counter (seconds), tag class: collector pause time charged to the class (share.charge-gc). */
  classGc: "fairslice_class_gc_seconds_total",
  /** Counter, tag class: routes the adaptive classifier moved into the class. */
  classifyReclassified: "fairslice_classify_reclassified_total",
  /** Counter, tag class: requests in flight that moved into the class with their route. */
  requestsMoved: "fairslice_requests_moved_total",
  /** Counter, tag class. */
  yieldPoints: "fairslice_yield_points_total",
  /** Counters, tags class, where. */
  yieldParks: "fairslice_yield_parks_total",
  yieldParked: "fairslice_yield_parked_seconds_total",
  /** Counter, tags class and how (found, declared): run slots lent while a request of the class held one blocked in a call. */
  shareSlotsLent: "fairslice_share_slots_lent_total",
  /** Counter, tags class, reason. */
  rejections: "fairslice_rejections_total",
  /** Distribution summary (seconds), tag class. */
  retryAfterSum: "fairslice_retry_after_seconds_sum",
  retryAfterCount: "fairslice_retry_after_seconds_count",
  retryAfterMax: "fairslice_retry_after_seconds_max",
} as const;

/** Kernel probe meters (ProbeMeterNames). */
export const probe = {
  /** Counters, tag class. */
  runTime: "fairslice_probe_run_time_seconds_total",
  runQueueWait: "fairslice_probe_runqueue_wait_seconds_total",
  dispatches: "fairslice_probe_dispatches_total",
  /** Counter, tags class, kind. */
  switches: "fairslice_probe_switches_total",
  /** Counter (seconds): PSI "some" CPU stall time. */
  cpuPressureStall: "fairslice_probe_cpu_pressure_stall_seconds_total",
} as const;

/** Recording rules in prometheus/rules/fairslice-recording.yml that the dashboard reads. */
export const recorded = {
  pageLatencyBuckets: "instance_page_le:fairslice_requests_seconds_bucket:rate1m",
  /** Requests answered per second (503s included): a class's demand. */
  classThroughput: "instance_class:fairslice_requests:rate1m",
  /** Requests served per second (admission control's 503s left out). */
  classServed: "instance_class:fairslice_requests_served:rate1m",
} as const;
