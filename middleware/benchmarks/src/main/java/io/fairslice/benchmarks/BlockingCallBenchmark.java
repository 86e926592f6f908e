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
 * What a declared blocking call ({@code Fairslice.blocking()} and closing it, as {@code BlockingCallAspect} wraps each
 * JDBC call) costs besides the call itself, per declaration, inside a request served by the real filter: the run slot
 * given up and taken again, with nothing else waiting for it.
 *
 * <ul>
 * <li>{@code alone}: policy share, only this request's class busy (no competition: the slot is free again at
 * once);</li>
 * <li>{@code competing}: a request of the other class held open, so the classes compete and the slot goes through
 * the scheduler's decisions;</li>
 * <li>{@code observe}: policy observe: the declaration changes nothing (the thread-local lookup and the handle).</li>
 * </ul>
 * Each request notes whether the scheduler's gate was armed in it (the sign that the classes compete); an
 * {@code alone} trial with it armed in some request, or a {@code competing} one with it not armed, fails at its end.
 * {@code outsideRequest} is a declaration on a thread that serves no request: a thread-local lookup, no handle (run
 * once: it has no {@code scheduler}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BlockingCallBenchmark {

    static final int CALLS = 1_000;

    private static void declare() {
        for (int i = 0; i < CALLS; i++) {
            try (Fairslice.Blocking ignored = Fairslice.blocking()) {
                Blank.call();
            }
        }
    }

    /** A filter set up as its {@code scheduler} names, and a request to send through it. */
    @State(Scope.Thread)
    public static class InRequest {

        @Param({"alone", "competing", "observe"})
        public String scheduler;

        private FilterHarness harness;
        private final FilterHarness.Request request = new FilterHarness.Request("/light");
        private final FilterHarness.Response response = new FilterHarness.Response();
        private boolean armedSeen;
        private boolean unarmedSeen;

        private final FilterChain declaredCalls = (req, res) -> {
            if (harness.armed()) {
                armedSeen = true;
            } else {
                unarmedSeen = true;
            }
            declare();
        };

        @Setup(Level.Trial)
        public void start() throws ServletException, InterruptedException {
            if (!scheduler.equals("alone") && !scheduler.equals("competing") && !scheduler.equals("observe")) {
                throw new IllegalArgumentException("scheduler: alone, competing or observe, not " + scheduler);
            }
            harness = FilterHarness.heavyRule(scheduler.equals("observe") ? "observe" : "share",
                    scheduler.equals("competing"));
        }

        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            harness.close();
            boolean wrong = switch (scheduler) {
                case "alone" -> armedSeen;
                case "competing" -> unarmedSeen;
                default -> false;
            };
            if (wrong) {
                throw new IllegalStateException("scheduler " + scheduler + ": the calls were declared with the gate "
                        + (scheduler.equals("alone") ? "armed" : "not armed") + " in some requests (armed in some: "
                        + armedSeen + ", not armed in some: " + unarmedSeen + ")");
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void declaredInsideRequest(InRequest state) throws IOException, ServletException {
        state.harness.send(state.request, state.response, state.declaredCalls);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public void outsideRequest() {
        declare();
    }
}
