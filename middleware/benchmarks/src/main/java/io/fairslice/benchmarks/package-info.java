/**
 * JMH benchmarks of the middleware's hot paths, each beside a no-middleware baseline: the yield point (outside a
 * request, inside one with the gate not armed, and armed with nothing to do) and the filter's per-request path
 * (classify, admit, bookkeeping) against calling the chain directly. {@link io.fairslice.benchmarks.FilterHarness}
 * builds a real {@link io.fairslice.middleware.FairsliceFilter} with stub requests so that both the benchmarks and
 * the zero-allocation tests drive the public API. Run with {@code middleware/benchmarks/run.sh}; results are saved in
 * docs/benchmarks/.
 */
package io.fairslice.benchmarks;
