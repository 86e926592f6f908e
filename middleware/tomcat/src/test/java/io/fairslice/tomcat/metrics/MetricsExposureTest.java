package io.fairslice.tomcat.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Who can read {@code /fairslice/metrics} of the Tomcat bundle, through the servlet's public entry point with the
 * addresses a connector reports: by default only a client on this host talking to a loopback connector, never one
 * relayed by a proxy, never one that reached a public interface; a port the operator lists in
 * {@code metrics.ports} opens that connector to any client. Refused clients get 404 and no metric.
 */
class MetricsExposureTest {

    private static final String PUBLIC_LOCAL = "192.0.2.2";
    private static final String PUBLIC_CLIENT = "198.51.100.7";

    record Answer(int status, String body, String contentType) {
    }

    @Test
    void shouldServeOnlyLoopbackClientsOnLoopbackConnectorsByDefault() throws Exception {
        MetricsServlet servlet = servlet(null);
        assertThat(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of()).status()).isEqualTo(200);
        assertThat(get(servlet, 8080, "0:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:1", Map.of()).status()).isEqualTo(200);
        Answer ok = get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of());
        assertThat(ok.body()).contains("jvm_threads_live_threads");

        // a connector on all interfaces reached through the public one, from elsewhere or from this host's address
        assertRefused(get(servlet, 8080, PUBLIC_LOCAL, PUBLIC_CLIENT, Map.of()));
        assertRefused(get(servlet, 8080, PUBLIC_LOCAL, PUBLIC_LOCAL, Map.of()));
        // a proxy on this host relaying someone else (its headers, whatever they claim)
        assertRefused(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("X-Forwarded-For", "127.0.0.1")));
        assertRefused(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("Forwarded", "for=127.0.0.1")));
        // nginx's common setup sets only X-Real-IP; a snippet only X-Forwarded-Proto; a proxy may set only Via
        assertRefused(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("X-Real-IP", "203.0.113.7")));
        assertRefused(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("X-Forwarded-Proto", "https")));
        assertRefused(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("Via", "1.1 nginx")));
        // a connector on a Unix domain socket, there for a front-end proxy: port 0, 127.0.0.1 at both ends
        assertRefused(get(servlet, 0, "127.0.0.1", "127.0.0.1", Map.of()));
        // a host name is never resolved, an odd literal never trusted
        assertRefused(get(servlet, 8080, "localhost", "localhost", Map.of()));
        assertRefused(get(servlet, 8080, "127.0.0.1", "0.0.0.0", Map.of()));
    }

    @Test
    void shouldOpenOnlyTheConnectorPortsTheOperatorLists() throws Exception {
        MetricsServlet servlet = servlet("9404");
        assertThat(get(servlet, 9404, PUBLIC_LOCAL, PUBLIC_CLIENT, Map.of()).status()).isEqualTo(200);
        assertRefused(get(servlet, 8080, PUBLIC_LOCAL, PUBLIC_CLIENT, Map.of()));
        assertThat(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of()).status())
                .as("loopback stays allowed beside the listed port").isEqualTo(200);
    }

    /**
     * The format follows the Accept header, and the bundle's Prometheus library has three writers: a scraper that
     * prefers protobuf (Prometheus with native histograms, whose Accept lists it first) gets protobuf, not only the
     * "Prometheus text or OpenMetrics" the docs named.
     */
    @Test
    void shouldAnswerInTheFormatTheAcceptHeaderAsksForProtobufIncluded() throws Exception {
        MetricsServlet servlet = servlet(null);
        assertThat(get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of()).contentType()).startsWith("text/plain");
        assertThat(get(servlet, 8080, "127.0.0.1", "127.0.0.1",
                Map.of("Accept", "application/openmetrics-text;version=1.0.0")).contentType())
                .startsWith("application/openmetrics-text");
        Answer protobuf = get(servlet, 8080, "127.0.0.1", "127.0.0.1", Map.of("Accept",
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,"
                        + "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1"));
        assertThat(protobuf.status()).isEqualTo(200);
        assertThat(protobuf.contentType()).startsWith("application/vnd.google.protobuf");
        assertThat(protobuf.body()).isNotEmpty();
    }

    /**
     * A refused client gets 404 whatever the method: the check was in doGet only, so a POST, PUT or DELETE from
     * anywhere got HttpServlet's 405, and an OPTIONS its Allow header, telling a remote client the endpoint is there.
     */
    @Test
    void shouldAnswerARefusedClient404WhateverTheMethod() throws Exception {
        MetricsServlet servlet = servlet(null);
        for (String method : List.of("POST", "PUT", "DELETE", "OPTIONS", "HEAD")) {
            assertRefused(send(servlet, method, 8080, PUBLIC_LOCAL, PUBLIC_CLIENT, Map.of()));
            assertRefused(send(servlet, method, 8080, "127.0.0.1", "127.0.0.1", Map.of("X-Forwarded-For", "x")));
        }
        assertThat(send(servlet, "POST", 8080, "127.0.0.1", "127.0.0.1", Map.of()).status())
                .as("a client that may read them, with a method the endpoint does not take").isEqualTo(405);
    }

    private static void assertRefused(Answer a) {
        assertThat(a.status()).isEqualTo(404);
        assertThat(a.body()).doesNotContain("fairslice_").doesNotContain("jvm_");
    }

    private static MetricsServlet servlet(String ports) throws Exception {
        ServletContext context = proxy(ServletContext.class, (name, args) -> switch (name) {
            case "getInitParameter" -> MetricsServlet.PORTS.equals(args[0]) ? ports : null;
            case "getInitParameterNames", "getAttributeNames" -> Collections.emptyEnumeration();
            case "log" -> null;
            default -> null;
        });
        ServletConfig config = proxy(ServletConfig.class, (name, args) -> switch (name) {
            case "getServletContext" -> context;
            case "getServletName" -> "metrics";
            case "getInitParameterNames" -> Collections.emptyEnumeration();
            default -> null;
        });
        MetricsServlet servlet = new MetricsServlet();
        servlet.init(config);
        return servlet;
    }

    private static Answer get(MetricsServlet servlet, int localPort, String localAddr, String remoteAddr,
                              Map<String, String> headers) throws Exception {
        return send(servlet, "GET", localPort, localAddr, remoteAddr, headers);
    }

    private static Answer send(MetricsServlet servlet, String method, int localPort, String localAddr,
                               String remoteAddr, Map<String, String> headers) throws Exception {
        HttpServletRequest request = proxy(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getMethod" -> method;
            case "getProtocol" -> "HTTP/1.1";
            case "getLocalPort" -> localPort;
            case "getLocalAddr" -> localAddr;
            case "getRemoteAddr" -> remoteAddr;
            case "getHeader" -> headers.get((String) args[0]);
            case "getHeaders" -> headers.containsKey((String) args[0])
                    ? Collections.enumeration(List.of(headers.get((String) args[0])))
                    : Collections.emptyEnumeration();
            case "getHeaderNames" -> Collections.enumeration(headers.keySet());
            case "getDateHeader", "getIntHeader" -> -1L;
            default -> null;
        });
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int[] status = {200};
        String[] contentType = {null};
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
            }

            @Override
            public void write(int b) {
                body.write(b);
            }
        };
        HttpServletResponse response = proxy(HttpServletResponse.class, (name, args) -> {
            switch (name) {
                case "sendError", "setStatus" -> status[0] = (Integer) args[0];
                case "setContentType" -> contentType[0] = (String) args[0];
                case "getOutputStream" -> {
                    return out;
                }
                case "getStatus" -> {
                    return status[0];
                }
                case "isCommitted" -> {
                    return false;
                }
                default -> {
                }
            }
            return null;
        });
        servlet.service(request, response);
        return new Answer(status[0], body.toString(StandardCharsets.UTF_8), contentType[0]);
    }

    interface Answerer {
        Object answer(String method, Object[] args) throws Exception;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Answerer answerer) {
        return (T) Proxy.newProxyInstance(MetricsExposureTest.class.getClassLoader(), new Class<?>[] {type},
                (p, m, a) -> {
                    if (m.getName().equals("getDateHeader") || m.getName().equals("getIntHeader")) {
                        return m.getReturnType() == long.class ? -1L : -1;
                    }
                    Object r = answerer.answer(m.getName(), a);
                    if (r == null && m.getReturnType().isPrimitive()) {
                        return m.getReturnType() == boolean.class ? false : m.getReturnType() == long.class ? 0L : 0;
                    }
                    return r;
                });
    }
}
