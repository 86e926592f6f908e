/**
 * FreeBSD: per-thread {@code kinfo_proc} through {@code sysctl KERN_PROC_PID|KERN_PROC_INC_THREAD}, the scheduler's
 * name and quantum through {@code kern.sched.*}, {@code getrusage(RUSAGE_THREAD)} and {@code thr_self}. The layout of
 * {@code struct kinfo_proc} (1088 bytes on LP64) is tested on every platform; the probe itself self-checks at run time
 * on FreeBSD and turns itself off with one warning when the kernel disagrees.
 */
package io.fairslice.probe.freebsd;
