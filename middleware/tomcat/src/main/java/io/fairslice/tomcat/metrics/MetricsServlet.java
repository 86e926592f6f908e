package io.fairslice.tomcat.metrics;

import io.fairslice.tomcat.IpLiterals;
import io.fairslice.tomcat.TcpPorts;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Serves {@link BundleMetrics} in the format the scraper's Accept header asks for: Prometheus text (the default),
 * OpenMetrics, or Prometheus protobuf ({@code application/vnd.google.protobuf}, which the bundle's Prometheus library
 * writes too and a Prometheus with native histograms asks for first), in fairslice's metrics web application
 * ({@code /fairslice/metrics}), to allowed clients only; everyone else gets 404, as if there were nothing here.
 *
 * <p>Allowed by default: a request that arrived on a loopback TCP connector from a loopback address with none of a
 * proxy's headers ({@code Forwarded}, {@code X-Forwarded-For}, {@code Via}, ...), that is a client on this host and
 * not a reverse proxy on this host relaying someone else. Context parameter {@code metrics.ports} lists connector
 * ports (comma-separated) where any client is allowed: a connector bound to an internal network for a remote
 * Prometheus. A bad value stops the application as it deploys, with a message naming the parameter (the installer's
 * web.xml starts the servlet then, and its descriptor fails the context when a servlet fails to start).
 */
public final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The context parameter with the connector ports open to any client. */
    public static final String PORTS = "metrics.ports";

    private transient Set<Integer> ports = Set.of();
    private transient ExpositionFormats formats;

    @Override
    public void init() throws ServletException {
        ports = parsePorts(getServletContext().getInitParameter(PORTS));
        // it starts as /fairslice deploys, often before any application: the bundle's shared state is created under
        // the bundle's class loader, never this web application's (as TomcatInitializer does)
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(MetricsServlet.class.getClassLoader());
        try {
            formats = ExpositionFormats.init();
            BundleMetrics.prometheus();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    static Set<Integer> parsePorts(String value) throws ServletException {
        Set<Integer> out = new TreeSet<>();
        if (value == null || value.isBlank()) {
            return Set.of();
        }
        for (String part : value.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int port = TcpPorts.parse(p);
            if (port < 0) {
                throw new ServletException("fairslice metrics: " + PORTS + " must list TCP ports (" + TcpPorts.MIN
                        + ".." + TcpPorts.MAX + ") in digits 0-9, got '" + p + "' in '" + value + "'");
            }
            out.add(port);
        }
        return Set.copyOf(out);
    }

    /**
     * A client that may not read the metrics gets 404 whatever the method, before HttpServlet picks one: the check
     * was in {@code doGet} only, so a POST, PUT or DELETE from anywhere got HttpServlet's 405 and an OPTIONS its
     * {@code Allow} header, which told a remote client that something answers here.
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        if (!allowed(request)) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        super.service(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ExpositionFormatWriter writer = formats.findWriter(request.getHeader("Accept"));
        response.setContentType(writer.getContentType());
        response.setHeader("Cache-Control", "no-store");
        try (OutputStream out = response.getOutputStream()) {
            writer.write(out, BundleMetrics.prometheus().getPrometheusRegistry().scrape());
        }
    }

    /**
     * A listed port, or a client on this host on a loopback TCP connector without a proxy's header. A connector on a
     * Unix domain socket (port 0; Tomcat reports 127.0.0.1 at both ends) exists for a front-end proxy, whose clients
     * are elsewhere: it is never taken for this host.
     */
    boolean allowed(HttpServletRequest request) {
        if (ports.contains(request.getLocalPort())) {
            return true;
        }
        return request.getLocalPort() > 0 && isLoopback(request.getLocalAddr()) && isLoopback(request.getRemoteAddr())
                && !proxied(request);
    }

    /**
     * Headers a reverse proxy on the same host sets for the client it forwards (nginx's X-Real-IP, a snippet's
     * X-Forwarded-Proto alone, Via). A proxy that sets none of them is not told from a client on this host: it must
     * deny /fairslice/ itself (docs/tomcat.md).
     */
    private static final List<String> PROXY_HEADERS = List.of("Forwarded", "X-Forwarded-For", "X-Real-IP",
            "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port", "X-Forwarded-Server", "X-Forwarded-Prefix",
            "X-Client-IP", "True-Client-IP", "Via");

    /** A loopback request that a proxy forwarded: its client is elsewhere. */
    private static boolean proxied(HttpServletRequest request) {
        for (String h : PROXY_HEADERS) {
            if (request.getHeader(h) != null) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code address} (an IP literal, as the container reports it) is a loopback address. */
    static boolean isLoopback(String address) {
        InetAddress ip = IpLiterals.parse(address); // not an IP literal: null, never a name looked up
        return ip != null && ip.isLoopbackAddress();
    }
}
