/**
 * The overload study harness behind {@code ./fairslice study}. {@link io.fairslice.experiments.harness.StudyRunner}
 * starts the study server for each configuration (middleware x scheduler) in a JVM of its own, pinned to one core
 * and, for the rr-* configurations, under SCHED_RR with the quantum written to /proc (always put back to 100 ms);
 * Gatling runs the loadgen's OverloadStudy in another JVM on another core. Each point's numbers come from Gatling's
 * simulation.log ({@link io.fairslice.experiments.harness.SimulationLog}) cut to the measured window, and the
 * server's share of its core from /proc, which decides whether the window was disturbed. Results go to CSV, JSON,
 * figures and a report ({@link io.fairslice.experiments.harness.ResultsFiles},
 * {@link io.fairslice.experiments.harness.Figures}, {@link io.fairslice.experiments.harness.Report}).
 */
package io.fairslice.experiments.harness;
