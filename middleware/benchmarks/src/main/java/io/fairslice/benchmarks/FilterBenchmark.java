package io.fairslice.benchmarks;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The filter's per-request path (classify, admit, CPU and latency bookkeeping, metrics) for a request that is not
 * overloaded, against calling the chain directly. The chain does nothing, so the difference is what the middleware
 * adds to every request. Default configuration (share policy, adaptive classification, metrics on).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FilterBenchmark {

    private static final FilterChain NOTHING = (req, res) -> { };

    private FilterHarness harness;
    private final FilterHarness.Request request = new FilterHarness.Request("/light");
    private final FilterHarness.Response response = new FilterHarness.Response();

    @Setup
    public void start() throws ServletException {
        harness = new FilterHarness(Map.of("jmx", "false"));
    }

    @TearDown
    public void stop() throws InterruptedException {
        harness.close();
    }

    @Benchmark
    public void baselineChainOnly() throws IOException, ServletException {
        NOTHING.doFilter(request, response);
        request.reset();
    }

    @Benchmark
    public void fairsliceFilter() throws IOException, ServletException {
        harness.send(request, response, NOTHING);
    }
}
