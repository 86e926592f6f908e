package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The product's claim on a real StudyServer with the study application: at an overloaded point (30 light + 40 heavy
 * closed-loop clients on loopback) the share policy keeps at least twice the light throughput that the same server
 * keeps without the middleware, and no request fails. No weaving agent here: the filter's own admission (the
 * request's first yield point) is all the scheduler has. The heavy page is named by a rule.
 *
 * <p>The server runs in its own JVM as {@code ./fairslice serve} does; where taskset works it is pinned to CPU 1 and
 * the load to CPU 0, as in the study's measurements (shared/GUIDE.md section 2), otherwise both float.
 */
class OverloadTest {

    private static final int LIGHT_CLIENTS = 30;
    private static final int HEAVY_CLIENTS = 40;
    // after 6 s the JIT was still compiling the heavy page (a quarter of the core): the share/none ratio then ranged
    // 1.8-2.7 on a quiet machine; a longer warm-up measures the steady state, still under a minute in all
    private static final long WARMUP_MS = 14_000;
    private static final long WINDOW_MS = 8_000;

    @Test
    void shareShouldKeepTwiceTheLightThroughputOfNoMiddlewareWithoutFailures() throws Exception {
        boolean pinned = ForkedServer.canPin() && ForkedServer.pinThisJvm("0");
        try {
            Result none = run(pinned, "none");
            Result share = run(pinned, "share");
            System.out.printf("overload 30 light + 40 heavy (%s): none light %.1f/s heavy %.1f/s; share light %.1f/s "
                    + "heavy %.1f/s; ratio %.2f%n", pinned ? "server on CPU 1, load on CPU 0" : "unpinned",
                    none.light(), none.heavy(), share.light(), share.heavy(), share.light() / none.light());

            assertThat(none.failed()).as("failed requests without middleware: %s", none.errors()).isZero();
            assertThat(share.failed()).as("failed requests under share: %s", share.errors()).isZero();
            assertThat(share.heavy()).as("heavy pages must keep progressing under share").isGreaterThan(0);
            assertThat(share.light()).as("light req/s under share vs none (%.1f)", none.light())
                    .isGreaterThanOrEqualTo(2 * none.light());
        } finally {
            if (pinned) {
                ForkedServer.pinThisJvm("0-" + (Runtime.getRuntime().availableProcessors() - 1));
            }
        }
    }

    record Result(double light, double heavy, long failed, List<String> errors) {
    }

    private static Result run(boolean pinned, String policy) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--policy", policy));
        if (!"none".equals(policy)) {
            // classes pinned by a rule, as an operator who knows the heavy page would: the adaptive classifier's
            // first decisions in a cold JVM vary from run to run (docs/operations.md)
            args.addAll(List.of("--fairslice", "rule.1=heavy path=/heavy", "--fairslice", "adaptive=false"));
        }
        List<String> jvm = ServerOptions.JVM_OPTIONS;
        try (ForkedServer server = ForkedServer.start(pinned ? "1" : null, jvm, args);
             ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            load.clients("/light", LIGHT_CLIENTS).clients("/heavy", HEAVY_CLIENTS);
            List<ClosedLoopLoad.Count> counts = load.measure(WARMUP_MS, WINDOW_MS);
            ClosedLoopLoad.Count light = counts.get(0);
            ClosedLoopLoad.Count heavy = counts.get(1);
            return new Result(light.ok() * 1000.0 / WINDOW_MS, heavy.ok() * 1000.0 / WINDOW_MS,
                    light.failed() + heavy.failed(), List.copyOf(load.errors()));
        }
    }
}
