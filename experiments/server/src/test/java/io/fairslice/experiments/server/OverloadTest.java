package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The product's claim on a real StudyServer with the study application: at an overloaded point (30 light + 40 heavy
 * closed-loop clients on loopback) the share policy keeps at least twice the light throughput that the same server
 * keeps without the middleware, and no request fails. No weaving agent here: the filter's own admission (the
 * request's first yield point) is all the scheduler has. The heavy page is named by a rule.
 *
 * <p>Each server runs in its own JVM as {@code ./fairslice serve} does; where taskset works it serves on CPU 1 and
 * the load runs on CPU 0, as in the study's measurements (shared/GUIDE.md section 2), otherwise both float. The two
 * servers start together on every core, where the memory allows (13 s on a slow host, against 9 s each one after the
 * other: touching the 4 GB heap is most of it), and move to CPU 1 as their load starts; the first is killed as its
 * window ends, so that the second is measured on a core of its own without waiting for a graceful stop (up to 5 s for
 * the requests in flight). Times: docs/measurements/overload-test-20261202.
 */
class OverloadTest {

    private static final int LIGHT_CLIENTS = 30;
    private static final int HEAVY_CLIENTS = 40;
    // after 6 s the JIT was still compiling the heavy page (its compiler threads share the core with 70 request
    // threads): the share/none ratio then ranged 1.8-2.7 on a quiet machine. 10 s and 7 s windows gave 4.6-6.3 on the
    // slow host of 2026-12-02 and the test 47-49 s there, against 57-60 s with 14 s and 8 s windows: a margin under
    // the minute (docs/measurements/overload-test-20261202)
    private static final long WARMUP_MS = 10_000;
    private static final long WINDOW_MS = 7_000;

    /** Two servers' pre-touched 4 GB heaps and a margin: below this much available memory they start in turn. */
    private static final long MEMORY_FOR_TWO_SERVERS = 10L << 30;

    @Test
    void shareShouldKeepTwiceTheLightThroughputOfNoMiddlewareWithoutFailures() throws Exception {
        boolean canPin = ForkedServer.canPin();
        String ownCpus = canPin ? ForkedServer.cpusOfThisJvm() : null;
        Result none;
        Result share;
        try {
            if (ForkedServer.memoryAvailable() >= MEMORY_FOR_TWO_SERVERS) {
                // side by side on a thread of its own (the common pool, supplyAsync's default, has one thread here)
                CompletableFuture<ForkedServer> starting = CompletableFuture.supplyAsync(() -> start(canPin, "share"),
                        task -> new Thread(task, "start-share").start());
                ForkedServer noneServer;
                try {
                    noneServer = start(canPin, "none");
                } catch (Throwable e) {
                    try {
                        starting.join().close(); // before the test ends: no server outlives it
                    } catch (RuntimeException other) {
                        e.addSuppressed(other);
                    }
                    throw e;
                }
                try (noneServer; ForkedServer shareServer = starting.join()) {
                    none = run(noneServer, canPin);
                    share = run(shareServer, canPin);
                }
            } else {
                try (ForkedServer server = start(canPin, "none")) {
                    none = run(server, canPin);
                }
                try (ForkedServer server = start(canPin, "share")) {
                    share = run(server, canPin);
                }
            }
        } finally {
            if (ownCpus != null) {
                ForkedServer.pinThisJvm(ownCpus);
            }
        }
        System.out.printf("overload 30 light + 40 heavy (%s): none light %.1f/s heavy %.1f/s; share light %.1f/s heavy "
                + "%.1f/s; ratio %.2f%n", none.pinned() ? "servers on CPU 1, load on CPU 0" : "unpinned", none.light(),
                none.heavy(), share.light(), share.heavy(), share.light() / none.light());

        assertThat(share.pinned()).as("both servers measured pinned, or both not").isEqualTo(none.pinned());
        assertThat(none.failed()).as("failed requests without middleware (the first: %s)", none.errors()).isZero();
        assertThat(share.failed()).as("failed requests under share (the first: %s)", share.errors()).isZero();
        assertThat(share.heavy()).as("heavy pages must keep progressing under share").isGreaterThan(0);
        assertThat(share.light()).as("light req/s under share vs none (%.1f)", none.light())
                .isGreaterThanOrEqualTo(2 * none.light());
    }

    record Result(double light, double heavy, long failed, List<String> errors, boolean pinned) {
    }

    /** Starts a server where this JVM may run (every core, unless pinned already), sized for one core if pinnable. */
    private static ForkedServer start(boolean canPin, String policy) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--policy", policy));
        if (!"none".equals(policy)) {
            // classes pinned by a rule, as an operator who knows the heavy page would: the adaptive classifier's
            // first decisions in a cold JVM vary from run to run (docs/operations.md)
            args.addAll(List.of("--fairslice", "rule.1=heavy path=/heavy", "--fairslice", "adaptive=false"));
        }
        List<String> jvm = new ArrayList<>(ServerOptions.JVM_OPTIONS);
        if (canPin) {
            // it starts on every core but serves on one: it sizes itself (the scheduler's run slots, GC and compiler
            // threads) for the one core, as a server started pinned does
            jvm.add("-XX:ActiveProcessorCount=1");
        }
        try {
            return ForkedServer.start(null, jvm, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Pins the server to CPU 1 and this JVM (the load) to CPU 0 where it can, loads the server, then ends it, so that
     * the next server's load has the core to itself.
     */
    private static Result run(ForkedServer server, boolean canPin) throws Exception {
        boolean pinned = canPin && server.pinTo("1") && ForkedServer.pinThisJvm("0");
        try (ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            load.clients("/light", LIGHT_CLIENTS).clients("/heavy", HEAVY_CLIENTS);
            List<ClosedLoopLoad.Count> counts = load.measure(WARMUP_MS, WINDOW_MS);
            ClosedLoopLoad.Count light = counts.get(0);
            ClosedLoopLoad.Count heavy = counts.get(1);
            Result result = new Result(light.ok() * 1000.0 / WINDOW_MS, heavy.ok() * 1000.0 / WINDOW_MS,
                    light.failed() + heavy.failed(), load.errors(), pinned);
            load.stop();
            server.kill(); // its requests in flight end with it; the clients see their connections close and stop
            return result;
        }
    }
}
