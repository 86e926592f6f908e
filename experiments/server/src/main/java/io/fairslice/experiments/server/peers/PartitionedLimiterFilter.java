package io.fairslice.experiments.server.peers;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;

/**
 * The peer from Netflix concurrency-limits: its partitioned limiter (an adaptive Gradient2 limit on concurrent
 * requests, with a guaranteed percentage of it per partition) in front of the study pages, one partition for light
 * pages and one for heavy ones. Netflix's own servlet filter (concurrency-limits-servlet-jakarta) does not resolve
 * from this project's Maven mirror in any version, so this filter does what it does, with the core library: acquire
 * a permit per request, answer 429 without Retry-After when there is none, release the permit with onSuccess when
 * the request completes and onIgnore when it throws. Like Netflix's filter, it releases the permit when doFilter
 * returns, which is early for async requests (the study's pages are synchronous).
 */
public final class PartitionedLimiterFilter implements Filter {

    /** Heavy pages by exact path (within the context); everything else is light. */
    private final Set<String> heavyPaths;
    private final Limiter<HttpServletRequest> limiter;
    private final Counter lightAdmitted;
    private final Counter lightRejected;
    private final Counter heavyAdmitted;
    private final Counter heavyRejected;

    /**
     * @param settings   the partitions' shares and the heavy pages
     * @param registry   where the admitted/rejected counters go (a no-op registry if null)
     */
    public PartitionedLimiterFilter(PeerSettings settings, MeterRegistry registry) {
        this.heavyPaths = Set.copyOf(settings.heavyPaths());
        Limit limit = Gradient2Limit.newBuilder()
                .minLimit(settings.minLimit())
                .initialLimit(settings.initialLimit())
                .maxConcurrency(settings.maxLimit())
                .build();
        this.limiter = new Builder()
                .named("fairslice-study")
                .limit(limit)
                .partitionResolver(this::partitionOf)
                .partition("light", settings.lightShare())
                .partition("heavy", settings.heavyShare())
                .build();
        MeterRegistry r = registry != null ? registry : new CompositeMeterRegistry();
        lightAdmitted = counter(r, "light", "admitted");
        lightRejected = counter(r, "light", "rejected");
        heavyAdmitted = counter(r, "heavy", "admitted");
        heavyRejected = counter(r, "heavy", "rejected");
    }

    private static Counter counter(MeterRegistry registry, String partition, String outcome) {
        return Counter.builder("fairslice.peer.requests")
                .description("Requests seen by the peer limiter, by partition and outcome")
                .tag("peer", "netflix-partitioned").tag("partition", partition).tag("outcome", outcome)
                .register(registry);
    }

    String partitionOf(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return heavyPaths.contains(path) ? "heavy" : "light";
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        boolean heavy = "heavy".equals(partitionOf(request));
        Optional<Limiter.Listener> permit = limiter.acquire(request);
        if (permit.isEmpty()) {
            (heavy ? heavyRejected : lightRejected).increment();
            // what Netflix's filter answers: 429, no Retry-After
            ((HttpServletResponse) res).setStatus(429);
            return;
        }
        (heavy ? heavyAdmitted : lightAdmitted).increment();
        Limiter.Listener listener = permit.get();
        try {
            chain.doFilter(req, res);
            listener.onSuccess();
        } catch (IOException | ServletException | RuntimeException | Error e) {
            listener.onIgnore();
            throw e;
        }
    }

    /** The partitioned limiter needs a concrete builder; this is the whole of it. */
    private static final class Builder extends AbstractPartitionedLimiter.Builder<Builder, HttpServletRequest> {
        @Override
        protected Builder self() {
            return this;
        }
    }
}
