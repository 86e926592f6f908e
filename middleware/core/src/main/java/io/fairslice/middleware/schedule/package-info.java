/**
 * Scheduling: the {@link io.fairslice.middleware.schedule.Scheduler} decides who runs (admission with class caps
 * and bounded queues, parking at yield points under the observe, sleep and share policies) and keeps the per-class
 * counts that metrics read. Time comes from an injectable {@link io.fairslice.middleware.schedule.Clock}. See the
 * Scheduler's javadoc and docs/architecture.md for the share algorithm.
 */
package io.fairslice.middleware.schedule;
