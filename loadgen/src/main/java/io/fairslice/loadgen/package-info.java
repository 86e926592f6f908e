/**
 * The study's load, as Gatling simulations in the Java DSL: {@link io.fairslice.loadgen.OverloadStudy} (closed
 * model, light and heavy client populations, the 2005 study's setup) and {@link io.fairslice.loadgen.OverloadSpike}
 * (open model with a heavy burst). Parameters are system properties, validated before any request is sent. The
 * simulations run offline (gatling.conf: analytics and warm-up off; the version check is pointed at a dead proxy by
 * whoever forks the JVM) and name every request {@code class:path} so the harness can tell light from heavy in
 * simulation.log.
 */
package io.fairslice.loadgen;
