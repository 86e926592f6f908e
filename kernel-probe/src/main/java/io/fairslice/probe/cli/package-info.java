/**
 * The operator tool behind {@code ./fairslice probe}: a top-like table of another process's threads with the
 * scheduler's view of them (policy, nice, slice, effective slice, run-queue wait, switches). Linux only.
 */
package io.fairslice.probe.cli;
