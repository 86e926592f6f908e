/**
 * The kernel probe: OS scheduler statistics per request class, and per-thread nice/slice actuators.
 *
 * <p>{@link io.fairslice.probe.KernelProbe} is the cross-platform contract; {@link io.fairslice.probe.KernelProbes}
 * picks the implementation for the running OS ({@code linux}, {@code freebsd}, {@code windows} subpackages) and
 * falls back to a no-op probe with one warning when the OS is unsupported or a self-check fails, so that requests
 * are never affected. Readings go into caller-owned holders ({@link io.fairslice.probe.ThreadStats},
 * {@link io.fairslice.probe.SystemStats}) so that sampling allocates nothing; a value the platform cannot give is
 * marked unsupported, never invented.
 *
 * <p>{@link io.fairslice.probe.KernelProbeListener} plugs into the middleware: the middleware tells it which request
 * class each worker thread serves; the thread checkpoints its own counters at enter and exit (so attribution is
 * exact even for sub-millisecond requests), and a daemon sampler turns the per-class totals into rates and
 * effective timeslices ({@link io.fairslice.probe.ProbeMeterNames}).
 */
package io.fairslice.probe;
