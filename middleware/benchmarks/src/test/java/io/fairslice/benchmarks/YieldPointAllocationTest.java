package io.fairslice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.Fairslice;
import jakarta.servlet.FilterChain;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The yield point allocates nothing, outside a request and inside one, armed or not: measured with the thread's
 * own allocation counter over many calls (one allocation per call would be at least 16 bytes x calls).
 */
class YieldPointAllocationTest {

    private static final int CALLS = 2_000_000;
    /** Slack for the measurement itself and one-off allocations (class init, JIT deoptimisation), not per call. */
    private static final long SLACK_BYTES = 4_096;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @BeforeAll
    static void allocationCountingWorks() {
        assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
        THREADS.setThreadAllocatedMemoryEnabled(true);
        long before = THREADS.getCurrentThreadAllocatedBytes();
        Object[] garbage = new Object[1000];
        assertThat(THREADS.getCurrentThreadAllocatedBytes() - before).as("a 1000-slot array is counted")
                .isGreaterThanOrEqualTo(4000L);
        assertThat(garbage).hasSize(1000);
    }

    @Test
    void shouldAllocateNothingOutsideARequest() {
        for (int i = 0; i < CALLS; i++) {
            Fairslice.yieldPoint(); // warm up: let the JIT compile the loop
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++) {
            Fairslice.yieldPoint();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

        System.out.printf("yield point outside a request: %d bytes over %d calls%n", allocated, CALLS);
        assertThat(allocated).isLessThan(SLACK_BYTES);
    }

    @Test
    void shouldAllocateNothingInsideARequestWhenTheGateIsNotArmed() throws Exception {
        try (FilterHarness harness = harness("share")) {
            Measured measured = bytesForYieldPointsInOneRequest(harness);
            assertThat(measured.armed()).isFalse();
            assertThat(measured.bytes()).isLessThan(SLACK_BYTES);
        }
    }

    @Test
    void shouldAllocateNothingInsideARequestWhenObserveArmsTheGate() throws Exception {
        try (FilterHarness harness = harness("observe")) {
            Measured measured = bytesForYieldPointsInOneRequest(harness);
            assertThat(measured.armed()).isTrue();
            assertThat(measured.bytes()).isLessThan(SLACK_BYTES);
        }
    }

    @Test
    void shouldAllocateNothingInsideARequestWhenShareArmsTheGate() throws Exception {
        // "nothing to do": the request stays within its quantum, so no yield point reaches a park decision (a park
        // may allocate in the lock and wait queue; a cold JIT makes 2M yield points outlast the 5 ms default)
        try (FilterHarness harness = harness("share", "share.quantum", "1s")) {
            harness.holdRequestOpen("/heavy");
            Measured measured = bytesForYieldPointsInOneRequest(harness);
            assertThat(measured.armed()).as("two classes in flight arm the gate").isTrue();
            assertThat(measured.bytes()).isLessThan(SLACK_BYTES);
        }
    }

    private static FilterHarness harness(String policy, String... extra) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(Map.of("policy", policy, "adaptive", "false",
                "jmx", "false", "rule.1", "heavy path=/heavy"));
        for (int i = 0; i < extra.length; i += 2) {
            settings.put(extra[i], extra[i + 1]);
        }
        return new FilterHarness(settings);
    }

    /**
     * A request with {@link #CALLS} yield points, minus the same request with none: what the yield points
     * allocated, without the filter's own per-request objects.
     */
    private static Measured bytesForYieldPointsInOneRequest(FilterHarness harness) throws Exception {
        long[] inside = new long[2];
        boolean[] armed = new boolean[1];
        FilterChain yieldPoints = (req, res) -> {
            armed[0] = harness.armed();
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < CALLS; i++) {
                Fairslice.yieldPoint();
            }
            inside[0] = THREADS.getCurrentThreadAllocatedBytes() - before;
        };
        FilterChain none = (req, res) -> {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            inside[1] = THREADS.getCurrentThreadAllocatedBytes() - before;
        };
        FilterHarness.Request request = new FilterHarness.Request("/light");
        FilterHarness.Response response = new FilterHarness.Response();
        harness.send(request, response, yieldPoints); // warm up
        harness.send(request, response, yieldPoints);
        harness.send(request, response, none);
        long allocated = inside[0] - inside[1];
        System.out.printf("yield points inside a request (gate armed: %s): %d bytes over %d calls%n", armed[0],
                allocated, CALLS);
        return new Measured(allocated, armed[0]);
    }

    private record Measured(long bytes, boolean armed) {
    }
}
