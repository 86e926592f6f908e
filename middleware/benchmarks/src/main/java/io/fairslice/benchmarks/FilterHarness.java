package io.fairslice.benchmarks;

import io.fairslice.middleware.FairsliceFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real {@link FairsliceFilter}, initialised through its public API with a stub servlet context, and stub requests
 * and responses that answer what a filter asks (anything else throws, naming the method, so that the stubs cannot
 * silently drift from what the filter really uses). Not thread-safe: one request object per thread.
 */
public final class FilterHarness implements AutoCloseable {

    /** The request attribute slot is the only per-request state of a stub request. */
    public static final class Request extends HttpServletRequestWrapper {
        private final String path;
        private String attributeName;
        private Object attributeValue;

        public Request(String path) {
            super(unsupported(HttpServletRequest.class));
            this.path = path;
        }

        @Override public String getServletPath() { return path; }
        @Override public String getPathInfo() { return null; }
        @Override public String getRequestURI() { return path; }
        @Override public String getContextPath() { return ""; }
        @Override public String getMethod() { return "GET"; }
        @Override public String getHeader(String name) { return null; }
        @Override public DispatcherType getDispatcherType() { return DispatcherType.REQUEST; }
        @Override public boolean isAsyncStarted() { return false; }
        @Override public boolean isAsyncSupported() { return true; }

        @Override
        public Object getAttribute(String name) {
            return name.equals(attributeName) ? attributeValue : null;
        }

        @Override
        public void setAttribute(String name, Object value) {
            attributeName = name;
            attributeValue = value;
        }

        @Override
        public void removeAttribute(String name) {
            if (name.equals(attributeName)) {
                reset();
            }
        }

        /** Makes the next dispatch a new request (the filter keeps its ticket in an attribute). */
        public void reset() {
            attributeName = null;
            attributeValue = null;
        }
    }

    /** A response that is always 200 and discards what is written. */
    public static final class Response extends HttpServletResponseWrapper {
        private int status = 200;

        public Response() {
            super(unsupported(HttpServletResponse.class));
        }

        @Override public int getStatus() { return status; }
        @Override public void setStatus(int sc) { status = sc; }
        @Override public void setHeader(String name, String value) { }
        @Override public void setContentType(String type) { }
        @Override public PrintWriter getWriter() { return new PrintWriter(Writer.nullWriter()); }
    }

    private final FairsliceFilter filter = new FairsliceFilter();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Thread holder;
    private CountDownLatch release;

    /** A filter configured by {@code initParameters} (filter init-params, keys without the fairslice. prefix). */
    public FilterHarness(Map<String, String> initParameters) throws ServletException {
        ServletContext context = servletContext(registry);
        filter.init(new FilterConfig() {
            @Override public String getFilterName() { return "fairslice"; }
            @Override public ServletContext getServletContext() { return context; }
            @Override public String getInitParameter(String name) { return initParameters.get(name); }
            @Override public Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(initParameters.keySet());
            }
        });
        if (filter.scheduler() == null) {
            throw new IllegalStateException("the filter did not start (enabled=false?) with " + initParameters);
        }
    }

    /**
     * A filter under {@code policy} whose classes are {@code /heavy} (a rule) and everything else (light), nothing
     * learnt; with {@code competing}, a {@code /heavy} request held open ({@link #holdRequestOpen}), so that the
     * classes compete and a {@code /light} request sent meets an armed scheduler.
     */
    public static FilterHarness heavyRule(String policy, boolean competing)
            throws ServletException, InterruptedException {
        FilterHarness harness = new FilterHarness(Map.of("policy", policy, "adaptive", "false", "jmx", "false",
                "rule.1", "heavy path=/heavy"));
        if (competing) {
            harness.holdRequestOpen("/heavy");
        }
        return harness;
    }

    public FairsliceFilter filter() {
        return filter;
    }

    /** One request through the filter; {@code request} is reset afterwards so it can be sent again. */
    public void send(Request request, Response response, FilterChain chain) throws IOException, ServletException {
        try {
            filter.doFilter(request, response, chain);
        } finally {
            request.reset();
        }
    }

    /**
     * Keeps one request of the path's class in flight (its thread waits inside the chain) until {@link #close()}:
     * with two classes busy the share scheduler arms the yield gate. Returns once the gate is armed.
     */
    public void holdRequestOpen(String path) throws InterruptedException {
        release = new CountDownLatch(1);
        CountDownLatch inside = new CountDownLatch(1);
        holder = new Thread(() -> {
            try {
                send(new Request(path), new Response(), (req, res) -> {
                    inside.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (IOException | ServletException e) {
                throw new IllegalStateException(e);
            }
        }, "fairslice-benchmark-open-request");
        holder.setDaemon(true);
        holder.start();
        if (!inside.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the held request to " + path + " did not reach the chain in 10 s");
        }
    }

    /** Whether the filter's scheduler has armed the global yield gate. */
    public boolean armed() {
        return filter.scheduler().armed();
    }

    @Override
    public void close() throws InterruptedException {
        if (release != null) {
            release.countDown();
            holder.join(10_000);
        }
        filter.destroy();
        registry.close();
    }

    private static ServletContext servletContext(SimpleMeterRegistry registry) {
        ClassLoader loader = FilterHarness.class.getClassLoader();
        return (ServletContext) Proxy.newProxyInstance(loader, new Class<?>[] {ServletContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getInitParameter", "getResourceAsStream", "getResource", "getResourcePaths" -> null;
                    case "getInitParameterNames", "getAttributeNames" -> Collections.emptyEnumeration();
                    case "getClassLoader" -> loader;
                    case "getContextPath" -> "";
                    case "getServletContextName" -> "benchmark";
                    case "getAttribute" -> "io.fairslice.meterRegistry".equals(args[0]) ? registry : null;
                    case "log" -> null;
                    case "toString" -> "benchmark servlet context";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException("benchmark servlet context: " + method);
                });
    }

    private static <T> T unsupported(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(FilterHarness.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> "stub " + type.getSimpleName();
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException("benchmark stub " + type.getSimpleName()
                            + " does not answer " + method.getName() + "()");
                }));
    }
}
