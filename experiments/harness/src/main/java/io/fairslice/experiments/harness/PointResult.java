package io.fairslice.experiments.harness;

/**
 * One measured window: a configuration at one number of heavy clients, one repetition, one attempt.
 *
 * @param configuration  {@code middleware@scheduler}
 * @param heavyUsers     heavy clients at this point
 * @param lightUsers     light clients
 * @param repetition     1-based repetition
 * @param attempt        1 for the first measurement, more for re-runs of a disturbed window
 * @param startEpochMillis the window's start
 * @param windowSeconds  the window's length
 * @param light          light requests in the window
 * @param heavy          heavy requests in the window
 * @param serverCpu      the server's share of its core in the window (NaN if unknown), with the interrupts the kernel
 *                       charged to its threads (tick-based accounting)
 * @param otherCpu       other processes' share of the server's core
 * @param irqCpu         interrupts' share of the server's core, but those in {@code serverCpu}: the four shares add
 *                       up to the core. Windows measured until 2026-12-06 counted those in both, and read
 *                       {@code otherCpu} low by them (docs/study.md, "How a point is measured", step 5)
 * @param idleCpu        idle share of the server's core
 * @param lightCpu       the light pages' CPU time (as fairslice measures it: their threads inside its filter) over the
 *                       server's CPU time, in the window; NaN when the server exports no fairslice meter (no
 *                       middleware, a peer's filter) or it could not be read
 * @param heavyCpu       the same for the heavy page
 * @param jitCpu         the JIT compiler threads' CPU time over the server's, in the window; NaN if unknown
 * @param accepted       false when other work disturbed the window (see {@link #note})
 * @param note           why a window was not accepted, or other remarks; empty if none
 */
public record PointResult(String configuration, int heavyUsers, int lightUsers, int repetition, int attempt,
                          long startEpochMillis, double windowSeconds, ClassStats light, ClassStats heavy,
                          double serverCpu, double otherCpu, double irqCpu, double idleCpu, double lightCpu,
                          double heavyCpu, double jitCpu, boolean accepted, String note) {

    public String middleware() {
        return configuration.substring(0, configuration.indexOf('@'));
    }

    public String scheduler() {
        return configuration.substring(configuration.indexOf('@') + 1);
    }
}
