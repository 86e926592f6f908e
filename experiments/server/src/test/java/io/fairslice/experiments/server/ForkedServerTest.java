package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What OverheadCompare reads of a real forked study server: its CPU time and its JIT compiler threads' part of it. */
class ForkedServerTest {

    @Test
    void shouldReadTheCompilerThreadsCpuTimeAsPartOfTheServersCpuTime() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        try (ForkedServer server = ForkedServer.start(null, ServerOptions.JVM_OPTIONS,
                List.of("--port", "0", "--policy", "none"));
             ClosedLoopLoad load = new ClosedLoopLoad(server.port())) {
            long cpu0 = server.cpuTicks();
            long jit0 = server.compilerTicks();
            load.clients("/light", 4);
            List<ClosedLoopLoad.Count> counts = load.measure(0, 3_000);
            long cpu = server.cpuTicks() - cpu0;
            long jit = server.compilerTicks() - jit0;

            assertThat(counts.get(0).ok()).as("light requests served").isPositive();
            // a JVM that has just started serving compiles its hot paths: its compiler threads were busy
            assertThat(jit).as("compiler ticks in 3 s of first load (server ticks %d)", cpu).isPositive();
            assertThat(jit).as("compiler ticks within the server's own").isLessThanOrEqualTo(cpu);
        }
    }
}
