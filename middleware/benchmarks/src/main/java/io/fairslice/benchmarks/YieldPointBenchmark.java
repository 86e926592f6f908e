package io.fairslice.benchmarks;

import io.fairslice.middleware.Fairslice;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The yield point outside any request (what woven code costs when no filter serves this thread, and when no
 * application's scheduler is armed) against a call to an empty method.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class YieldPointBenchmark {

    @Benchmark
    public void baselineEmptyMethod() {
        Blank.call();
    }

    @Benchmark
    public void yieldPointOutsideRequest() {
        Fairslice.yieldPoint();
    }
}
