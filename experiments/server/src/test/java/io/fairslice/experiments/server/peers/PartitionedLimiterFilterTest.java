package io.fairslice.experiments.server.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PartitionedLimiterFilterTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** A limit of 2 split 50/50: each partition is guaranteed one permit once the limit is reached. */
    private PartitionedLimiterFilter filter() {
        return new PartitionedLimiterFilter(new PeerSettings(0.5, 0.5, 2, 2, 2, List.of("/heavy")), registry);
    }

    @Test
    void shouldAnswer429ToHeavyWhenTheLimitIsFullAndHeavyHoldsItsShareButStillAdmitLight() throws Exception {
        PartitionedLimiterFilter filter = filter();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch inside = new CountDownLatch(2);
        FilterChain blocking = (req, res) -> {
            inside.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        for (int i = 0; i < 2; i++) {
            pool.submit(() -> {
                filter.doFilter(request("/heavy"), response(new AtomicInteger()), blocking);
                return null;
            });
        }
        assertThat(inside.await(10, TimeUnit.SECONDS)).as("two heavy requests inside").isTrue();

        AtomicInteger heavyStatus = new AtomicInteger(200);
        AtomicInteger heavyChain = new AtomicInteger();
        filter.doFilter(request("/heavy"), response(heavyStatus), (req, res) -> heavyChain.incrementAndGet());
        AtomicInteger lightStatus = new AtomicInteger(200);
        AtomicInteger lightChain = new AtomicInteger();
        filter.doFilter(request("/light"), response(lightStatus), (req, res) -> lightChain.incrementAndGet());
        release.countDown();

        assertThat(heavyStatus.get()).isEqualTo(429);
        assertThat(heavyChain.get()).isZero();
        assertThat(lightStatus.get()).isEqualTo(200);
        assertThat(lightChain.get()).isEqualTo(1);
        assertThat(count("heavy", "rejected")).isEqualTo(1.0);
        assertThat(count("light", "admitted")).isEqualTo(1.0);
    }

    @Test
    void shouldReleaseThePermitWhenTheRequestThrows() throws Exception {
        PartitionedLimiterFilter filter = filter();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> filter.doFilter(request("/heavy"), response(new AtomicInteger()),
                    (req, res) -> {
                        throw new IllegalStateException("boom");
                    })).hasMessage("boom");
        }
        AtomicInteger status = new AtomicInteger(200);

        filter.doFilter(request("/heavy"), response(status), (req, res) -> { });

        assertThat(status.get()).isEqualTo(200);
        assertThat(count("heavy", "admitted")).isEqualTo(6.0);
    }

    @Test
    void shouldClassifyByPathWithinTheContext() {
        PartitionedLimiterFilter filter = filter();

        assertThat(filter.partitionOf(request("/heavy"))).isEqualTo("heavy");
        assertThat(filter.partitionOf(request("/light2"))).isEqualTo("light");
        assertThat(filter.partitionOf(request("/heavy/x"))).isEqualTo("light");
    }

    @Test
    void shouldDefaultToNetflixsNinetyTenSplitAndGradient2Defaults() {
        PeerSettings s = PeerSettings.from(Map.<String, String>of()::get);

        assertThat(s.lightShare()).isEqualTo(0.9);
        assertThat(s.heavyShare()).isEqualTo(0.1);
        assertThat(s.minLimit()).isEqualTo(20);
        assertThat(s.maxLimit()).isEqualTo(200);
        assertThat(s.heavyPaths()).containsExactly("/heavy");
    }

    @Test
    void shouldRejectSharesAboveOneNamingTheProperties() {
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.light-share", "0.95")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("fairslice.peer.netflix.light-share + heavy-share must be at most 1, got 1.0");
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.max-limit", "lots")::get))
                .hasMessage("fairslice.peer.netflix.max-limit must be a whole number, got 'lots'");
    }

    /** A share with an exponent, as the middleware takes a decimal (adaptive.alpha=5e-2): it was refused here. */
    @Test
    void shouldReadAShareWithAnExponentAsTheMiddlewareDoes() {
        PeerSettings s = PeerSettings.from(Map.of("fairslice.peer.netflix.light-share", "8e-1",
                "fairslice.peer.netflix.heavy-share", "2E-1")::get);

        assertThat(s.lightShare()).isEqualTo(0.8);
        assertThat(s.heavyShare()).isEqualTo(0.2);
    }

    /** Java's literal forms were read as numbers: light-share=0.5d ran as 0.5, heavy-share=0x1p-3 as 0.125. */
    @Test
    void shouldRefuseJavaLiteralFormsOfANumberNamingTheSettingAndTheValue() {
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.light-share", "0.5d")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fairslice.peer.netflix.light-share must be a number such as 0.9 or 12.5, got '0.5d'");
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.heavy-share", "0x1p-3")::get))
                .hasMessage("fairslice.peer.netflix.heavy-share must be a number such as 0.9 or 12.5, got '0x1p-3'");
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.max-limit", "\u0662\u0660\u0660")
                ::get)).hasMessage("fairslice.peer.netflix.max-limit must be a whole number, got '\u0662\u0660\u0660'");
    }

    @Test
    void shouldRefuseAnUnknownSettingAndNameMaxLimitWhenItIsBelowTheInitialLimit() {
        assertThatThrownBy(() -> PeerSettings.refuseUnknown(List.of("java.home", "fairslice.peer.netflix.max_limit")))
                .hasMessage("fairslice.peer.netflix.max_limit is not a setting of the netflix peer (known: light-share,"
                        + " heavy-share, min-limit, initial-limit, max-limit, heavy-paths)");
        PeerSettings.refuseUnknown(List.of("fairslice.peer.netflix.max-limit", "fairslice.peer=netflix"));
        assertThatThrownBy(() -> PeerSettings.from(Map.of("fairslice.peer.netflix.max-limit", "10")::get))
                .hasMessage("fairslice.peer.netflix.initial-limit must be at most max-limit (10), got 20");
    }

    private double count(String partition, String outcome) {
        return registry.get("fairslice.peer.requests").tag("partition", partition).tag("outcome", outcome).counter()
                .count();
    }

    private static HttpServletRequest request(String path) {
        return (HttpServletRequest) Proxy.newProxyInstance(PartitionedLimiterFilterTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getRequestURI" -> path;
                    case "getContextPath" -> "";
                    case "toString" -> "GET " + path;
                    default -> null;
                });
    }

    private static HttpServletResponse response(AtomicInteger status) {
        return (HttpServletResponse) Proxy.newProxyInstance(PartitionedLimiterFilterTest.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                    if (method.getName().equals("setStatus")) {
                        status.set((Integer) args[0]);
                    }
                    return null;
                });
    }
}
