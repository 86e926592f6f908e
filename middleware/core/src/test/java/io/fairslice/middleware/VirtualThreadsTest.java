package io.fairslice.middleware;

import static io.fairslice.middleware.FairsliceFilterTest.cpuSeconds;
import static io.fairslice.middleware.FairsliceFilterTest.eventually;
import static io.fairslice.middleware.FairsliceFilterTest.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * Tomcat serving every request on a virtual thread (useVirtualThreads="true", Java 21+), whose CPU time the JVM does
 * not measure: fairslice stands the request's elapsed time in for it, less its parks and its declared blocking calls.
 * Before, every request read 0 s of CPU: every page was learnt light, and the shares were charged nothing.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Records whether it ran on a virtual thread; computes for {@code nanos} of wall time. */
    static final class Page extends HttpServlet {
        final Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
        private final long nanos;

        Page(long nanos) {
            this.nanos = nanos;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            try {
                virtual.add((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            long until = System.nanoTime() + nanos;
            long x = 0;
            while (System.nanoTime() < until) {
                x += x ^ until;
            }
            resp.getWriter().write(Long.toString(x));
        }
    }

    @Test
    void shouldLearnAComputingPageHeavyAndACheapOneLight() throws Exception {
        Page burn = new Page(50 * MS);
        Page cheap = new Page(0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // bounds far from both pages: a cheap request stalled 30 ms on a loaded machine reads 30 ms here
        try (EmbeddedTomcat t = new EmbeddedTomcat("/vt", Map.of("fairslice.adaptive.min-samples", "3",
                "fairslice.adaptive.heavy-above", "25ms", "fairslice.adaptive.light-below", "20ms",
                "fairslice.cpu.sample-interval", "0ns"), registry).virtualThreads()
                .servlet("/burn", burn, false).servlet("/cheap", cheap, false).start()) {
            for (int i = 0; i < 5; i++) {
                assertThat(t.get("/burn").statusCode()).isEqualTo(200);
                assertThat(t.get("/cheap").statusCode()).isEqualTo(200);
            }
            assertThat(burn.virtual).as("served on virtual threads").containsExactly(true);
            assertThat(t.filter().classifier().route("/burn").heavy()).as("50 ms of CPU a request").isTrue();
            assertThat(t.filter().classifier().route("/cheap").heavy()).isFalse();
            eventually(() -> assertThat(cpuSeconds(registry, "page", "/burn")).as("five requests of 50 ms")
                    .isGreaterThanOrEqualTo(0.25));
        }
    }

    /**
     * A page that waits in a declared blocking call for a second, and a cheap one that waits as long for admission
     * behind it (its class's cap is 1), are neither charged nor metered their waits.
     */
    @Test
    void shouldNotCountADeclaredBlockingCallOrAnAdmissionWaitAsCpu() throws Exception {
        FairsliceFilterTest.Blocking hold = new FairsliceFilterTest.Blocking(true);
        Page quick = new Page(0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/vtwait", Map.of("fairslice.rule.1", "heavy path=/hold*",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.cpu.sample-interval", "0ns"), registry)
                .virtualThreads().servlet("/hold", hold, false).servlet("/hold-quick", quick, false).start()) {
            CompletableFuture<HttpResponse<String>> held = NewThread.supply(() -> get(t, "/hold"));
            assertThat(hold.entered.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<HttpResponse<String>> waiting =
                    NewThread.supply(() -> get(t, "/hold-quick"));
            var heavy = t.filter().scheduler().classState(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heavy.waitingAdmission() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(heavy.waitingAdmission()).as("the quick page waits for the cap").isEqualTo(1);
            Thread.sleep(1000);
            hold.release.countDown();
            assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(quick.virtual).containsExactly(true);
            for (String page : new String[] {"/hold", "/hold-quick"}) {
                eventually(() -> assertThat(cpuSeconds(registry, "page", page))
                        .as(page + ": some CPU, not its wait of 1 s").isPositive().isLessThan(0.5));
            }
        }
    }
}
