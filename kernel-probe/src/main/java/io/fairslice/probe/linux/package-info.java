/**
 * Linux, 64-bit: {@code /proc/<pid>/task/<tid>/schedstat} (run time, run-queue wait, dispatches) and {@code sched}
 * (switches, policy, prio, EEVDF {@code se.slice}) read through kept-open descriptors with {@code pread}, the
 * calling thread's switches from {@code getrusage(RUSAGE_THREAD)}, and the nice/slice actuators. All native calls are
 * JNA direct mappings in {@code LinuxLibC}. Run-queue wait is credited at a thread's next dispatch, so rates need
 * windows of a second or more.
 */
package io.fairslice.probe.linux;
