/**
 * The study's load, as Gatling simulations in the Java DSL: {@link io.fairslice.loadgen.OverloadStudy} (closed
 * model, light and heavy client populations, the 2005 study's setup) and {@link io.fairslice.loadgen.OverloadSpike}
 * (open model with a heavy burst). Parameters are system properties, validated before any request is sent (a
 * property named like a misspelt parameter is refused too) and printed as the run starts. The
 * simulations run offline (gatling.conf: analytics and warm-up off; the version check is pointed at a dead proxy by
 * whoever forks the JVM) and name every request {@code class:path} so the harness can tell light from heavy in
 * simulation.log. A closed-model user whose request the server sheds (503, 429) waits what its Retry-After asks
 * ({@link io.fairslice.loadgen.RejectionPause}) instead of retrying at once; the request stays a failed one in the log.
 * A page that got no successful response at all fails the run unless {@code requireSuccess=false} (the harness's
 * setting): {@link io.fairslice.loadgen.PageOutcomes}.
 */
package io.fairslice.loadgen;
