package io.fairslice.benchmarks;

import io.fairslice.middleware.Fairslice;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Yield points inside a request served by the real filter, when the scheduler has nothing to do. Each benchmark is
 * one request (or, without a filter, one loop) of {@value #YIELD_POINTS} calls, and its score is that request's time
 * divided by {@value #YIELD_POINTS}: loop throughput, the filter's own per-request cost included (and its
 * per-request allocation in {@code gc.alloc.rate.norm}). A yield point's own cost is
 * {@code yieldPointsInsideRequest} minus {@code baselineEmptyLoopInsideRequest} of the same {@code gate}: the same
 * request through the same filter with a loop of empty calls (0.046-0.052 ns, about 0.5 us a request, and 0.060 B/op,
 * about 600 B a request, on 2026-12-02: docs/benchmarks/jmh-20261202T213605Z-jdk17.txt).
 *
 * <ul>
 * <li>{@code unarmed}: policy share, only this request's class busy: the gate is not armed (the fast path);</li>
 * <li>{@code armed-observe}: policy observe arms the gate whenever a request is in flight; its slow path counts;</li>
 * <li>{@code armed-share}: policy share with a request of the other class held open: the gate is armed and every
 * yield point asks the scheduler, which lets this request run (it stays under its CPU quantum).</li>
 * </ul>
 * Each request notes whether the gate was armed in it; a trial in which that is not what {@code gate} names fails at
 * its end (a change to the filter's setup could otherwise turn {@code armed-share} into the unarmed path unseen).
 * {@code baselineEmptyLoopNoFilter} runs the loop of empty calls with no filter, once (it has no {@code gate}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class YieldPointInRequestBenchmark {

    static final int YIELD_POINTS = 10_000;

    private final FilterHarness.Request request = new FilterHarness.Request("/light");
    private final FilterHarness.Response response = new FilterHarness.Response();

    private static final FilterChain EMPTY_LOOP = (req, res) -> emptyLoop();

    private static void emptyLoop() {
        for (int i = 0; i < YIELD_POINTS; i++) {
            Blank.call();
        }
    }

    /** A filter in the state its {@code gate} names, checked at every request it serves. */
    @State(Scope.Thread)
    public static class Gate {

        @Param({"unarmed", "armed-observe", "armed-share"})
        public String gate;

        private FilterHarness harness;
        private boolean armedSeen;
        private boolean unarmedSeen;

        final FilterChain yieldPointLoop = (req, res) -> {
            sawGate();
            for (int i = 0; i < YIELD_POINTS; i++) {
                Fairslice.yieldPoint();
            }
        };

        final FilterChain emptyLoop = (req, res) -> {
            sawGate();
            emptyLoop();
        };

        private void sawGate() {
            if (harness.armed()) {
                armedSeen = true;
            } else {
                unarmedSeen = true;
            }
        }

        @Setup(Level.Trial)
        public void start() throws ServletException, InterruptedException {
            if (!gate.equals("unarmed") && !gate.equals("armed-observe") && !gate.equals("armed-share")) {
                throw new IllegalArgumentException("gate: unarmed, armed-observe or armed-share, not " + gate);
            }
            harness = FilterHarness.heavyRule(gate.equals("armed-observe") ? "observe" : "share",
                    gate.equals("armed-share"));
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            harness.close();
            boolean wanted = !gate.equals("unarmed");
            if (wanted ? unarmedSeen || !armedSeen : armedSeen || !unarmedSeen) {
                throw new IllegalStateException("gate " + gate + ": the requests did not all run with the gate "
                        + (wanted ? "armed" : "not armed") + " (armed in some: " + armedSeen
                        + ", not armed in some: " + unarmedSeen + ")");
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(YIELD_POINTS)
    public void baselineEmptyLoopNoFilter() throws IOException, ServletException {
        EMPTY_LOOP.doFilter(request, response);
    }

    @Benchmark
    @OperationsPerInvocation(YIELD_POINTS)
    public void baselineEmptyLoopInsideRequest(Gate state) throws IOException, ServletException {
        state.harness.send(request, response, state.emptyLoop);
    }

    @Benchmark
    @OperationsPerInvocation(YIELD_POINTS)
    public void yieldPointsInsideRequest(Gate state) throws IOException, ServletException {
        state.harness.send(request, response, state.yieldPointLoop);
    }
}
