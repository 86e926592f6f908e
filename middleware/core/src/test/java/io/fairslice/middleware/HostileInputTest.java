package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.schedule.Ticket;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Hostile clients against the filter in a real embedded Tomcat: endless distinct URLs and query strings, malformed
 * and evasive paths, huge and forged headers. The route table and the meter registry stay bounded, every request
 * that reaches the application is counted, and a client cannot choose its class except through a rule the
 * operator configured.
 */
class HostileInputTest {

    /** Answers every path with the class the middleware gave the request. */
    static final class EchoClass extends HttpServlet {
        final AtomicInteger served = new AtomicInteger();

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            served.incrementAndGet();
            Object ticket = req.getAttribute(FairsliceFilter.TICKET_ATTRIBUTE);
            resp.setContentType("text/plain");
            byte[] body = (ticket instanceof Ticket t ? t.className() : "none").getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    @Test
    void shouldKeepRoutesAndMetersBoundedUnderAHundredThousandDistinctUrls() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EchoClass app = new EchoClass();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/urls", Map.of(), registry).servlet("/", app, false)) {
            t.tomcat.getConnector().setProperty("maxKeepAliveRequests", "-1"); // one scanner, two connections
            t.start();
            int port = t.tomcat.getConnector().getLocalPort();
            int total = 100_000;
            int checkpoint = 20_000;
            // a scanner's fresh path and fresh query string each time, in segments that do not collapse to {n}/{id}
            IntFunction<String> target = i -> "/urls/scan/p" + Integer.toString(i, 36) + "z/q" + (i % 7) + "?session="
                    + i + "&x=" + i * 31;
            long start = System.nanoTime();
            int ok = pipelined(port, 0, checkpoint, target);
            int meters20k = registry.getMeters().size();
            int routes20k = routes(registry);
            ok += pipelined(port, checkpoint, total, target);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ok).as("answered 200").isEqualTo(total);
            int routeCount = routes(registry);
            int meterCount = registry.getMeters().size();
            assertThat(routeCount).as("route table at its configured bound").isEqualTo(1000);
            assertThat(routes20k).isEqualTo(1000);
            assertThat(meterCount).as("meters after 100000 URLs equal meters after 20000").isEqualTo(meters20k);
            Set<String> pages = new HashSet<>();
            for (Meter m : registry.getMeters()) {
                String page = m.getId().getTag("page");
                if (page != null) {
                    pages.add(page);
                }
            }
            assertThat(pages).as("page tag values: routes.max-pages plus 'other'").hasSize(51).contains("other");
            FairsliceFilterTest.eventually(() -> assertThat(requestsCounted(registry)).isEqualTo(total));
            assertThat(app.served.get()).isEqualTo(total);
            // a request joins the route table (or overflows it) as it ends, after its client has the answer
            FunctionCounter overflow = registry.get("fairslice.classify.routes.overflow").functionCounter();
            FairsliceFilterTest.eventually(() -> assertThat(overflow.count()).as("routes past the table's bound")
                    .isEqualTo(total - 1000));
            System.out.printf("100000 distinct URLs in %d ms: routes %d (at 20000: %d), meters %d (at 20000: %d), "
                    + "route overflow %.0f, page tag values %d%n", ms, routeCount, routes20k, meterCount, meters20k,
                    overflow.count(), pages.size());
        }
    }

    /**
     * Requests {@code from..to} on two keep-alive connections, pipelined in batches as a scanner would send them;
     * returns how many were answered 200.
     */
    static int pipelined(int port, int from, int to, IntFunction<String> target) throws Exception {
        int connections = 2;
        int batch = 64;
        var pool = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Integer>> parts = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                int lane = c;
                parts.add(pool.submit(() -> {
                    int ok = 0;
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        s.setTcpNoDelay(true);
                        s.setSoTimeout(30_000);
                        OutputStream out = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
                        BufferedInputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
                        List<Integer> mine = new ArrayList<>();
                        for (int i = from + lane; i < to; i += connections) {
                            mine.add(i);
                        }
                        for (int b = 0; b < mine.size(); b += batch) {
                            int n = Math.min(batch, mine.size() - b);
                            for (int k = 0; k < n; k++) {
                                out.write(("GET " + target.apply(mine.get(b + k))
                                        + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                                        .getBytes(StandardCharsets.ISO_8859_1));
                            }
                            out.flush();
                            for (int k = 0; k < n; k++) {
                                if (readResponse(in) == 200) {
                                    ok++;
                                }
                            }
                        }
                    }
                    return ok;
                }));
            }
            int ok = 0;
            for (var p : parts) {
                ok += p.get(120, TimeUnit.SECONDS);
            }
            return ok;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Reads one response with a Content-Length body (EchoClass sets it); returns its status. */
    private static int readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after: " + head);
            }
            head.append((char) b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                    : b == '\r' ? 1 : 0;
        }
        String h = head.toString();
        int status = Integer.parseInt(h.substring(9, 12));
        int at = h.toLowerCase(Locale.ROOT).indexOf("content-length:");
        int length = at < 0 ? 0 : Integer.parseInt(h.substring(at + 15, h.indexOf("\r\n", at)).trim());
        in.readNBytes(length);
        return status;
    }

    @Test
    void shouldKeepOneRouteForEndlessQueryStringsAndPathParameters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/q", Map.of(), registry).servlet("/", new EchoClass(), false)) {
            t.tomcat.getConnector().setProperty("maxKeepAliveRequests", "-1");
            t.start();
            int ok = pipelined(t.tomcat.getConnector().getLocalPort(), 0, 5000, i -> i % 2 == 0
                    ? "/q/search?q=" + i + "&page=" + (i * 7) : "/q/search;jsessionid=S" + i + "?t=" + i);
            assertThat(ok).isEqualTo(5000);
            assertThat(routes(registry)).as("query strings and path parameters are not part of the route").isEqualTo(1);
        }
    }

    @Test
    void shouldClassifyEvasiveSpellingsOfARulePathLikeThePathItself() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EchoClass app = new EchoClass();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/ev", Map.of("fairslice.rule.1", "heavy path=/reports/**"),
                registry).servlet("/", app, false).start()) {
            int port = t.tomcat.getConnector().getLocalPort();
            // what Tomcat normalises to /reports/... before the filter sees it: none of these escapes the rule
            for (String evasive : List.of("/ev/reports/a", "/ev/reports/a;jsessionid=X1", "/ev//reports//a",
                    "/ev/x/../reports/a", "/ev/./reports/a", "/ev/%72eports/a", "/ev/x/%2e%2e/reports/a",
                    "/ev/reports;v=1/a", "/ev/reports/a?class=light")) {
                Raw r = raw(port, "GET " + evasive + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                assertThat(r.status).as(evasive).isEqualTo(200);
                assertThat(r.body).as("class of %s", evasive).isEqualTo("heavy");
            }
            assertThat(raw(port, "GET /ev/reportsX HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").body)
                    .isEqualTo("light");
        }
    }

    @Test
    void shouldSurviveMalformedPathsHugeHeadersAndCountEveryRequestThatReachesTheApplication() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EchoClass app = new EchoClass();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/m", Map.of("fairslice.rule.1", "heavy header:X-Tenant=batch*"),
                registry).servlet("/", app, false).start()) {
            int port = t.tomcat.getConnector().getLocalPort();
            Map<String, Integer> statuses = new LinkedHashMap<>();
            List<String> targets = new ArrayList<>(List.of("/m/%zz", "/m/%", "/m/%00", "/m/a%2Fb", "/m/%ff%fe%fd",
                    "/m/%c0%ae%c0%ae/x", "/m/../../etc/passwd", "/m/..;/x", "/m/\\..\\x", "/m/a%5c..%5cb",
                    "/m/" + "a/".repeat(3000), "/m/" + "%41".repeat(2000), "/m/x?" + "a=1&".repeat(1500),
                    "/m/x?%zz=%%", "/m/x?\u00e9=\u00ff", "/m/\u00e9\u00ff", "/m/\u0001", "*", "m/no-slash",
                    "http://evil.example/m/x"));
            // Tomcat refuses most before the filter (400; "..;" 404 in 11.0); the long ones and a bad query string are
            // served: a filter that threw on one would turn its 200 into a 500 (and then count nothing)
            Set<String> served = Set.of("/m/" + "a/".repeat(3000), "/m/" + "%41".repeat(2000),
                    "/m/x?" + "a=1&".repeat(1500), "/m/x?%zz=%%");
            for (String target : targets) {
                Raw r = raw(port, "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                statuses.put(target.length() > 40 ? target.substring(0, 40) + "..." : target, r.status);
                if (served.contains(target)) {
                    assertThat(r.status).as("status of %s", target).isEqualTo(200);
                } else { // the client's fault, whichever code this Tomcat gives; never a server error
                    assertThat(r.status).as("status of %s", target).isBetween(400, 499);
                }
            }
            // one header over Tomcat's 8 KB limit, then many ordinary headers, then a long value on the rule's header
            Raw huge = raw(port, "GET /m/x HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b".repeat(64 * 1024)
                    + "\r\nConnection: close\r\n\r\n");
            statuses.put("64 KB header", huge.status);
            assertThat(huge.status).isEqualTo(400);
            StringBuilder many = new StringBuilder("GET /m/x HTTP/1.1\r\nHost: localhost\r\n");
            for (int i = 0; i < 90; i++) {
                many.append("X-H").append(i).append(": v").append(i).append("\r\n");
            }
            Raw manyHeaders = raw(port, many + "Connection: close\r\n\r\n");
            statuses.put("90 headers", manyHeaders.status);
            assertThat(manyHeaders.body).isEqualTo("light");
            Raw longRuleHeader = raw(port, "GET /m/x HTTP/1.1\r\nHost: localhost\r\nX-Tenant: batch"
                    + "x".repeat(7000) + "\r\nConnection: close\r\n\r\n");
            statuses.put("7 KB X-Tenant", longRuleHeader.status);
            assertThat(longRuleHeader.body).isEqualTo("heavy");
            System.out.println("malformed input -> status: " + statuses);

            assertThat(t.get("/x").statusCode()).as("still serving").isEqualTo(200);
            FairsliceFilterTest.eventually(() -> assertThat(requestsCounted(registry)).isEqualTo(app.served.get()));
            assertThat(t.filter().scheduler().classState(0).inflight()).isZero();
            assertThat(t.filter().scheduler().classState(1).inflight()).isZero();
        }
    }

    @Test
    void shouldIgnoreClientHeadersUnlessARuleNamesThatHeader() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/h", Map.of("fairslice.rule.1", "heavy header:X-Tenant=batch*"),
                registry).servlet("/", new EchoClass(), false).start()) {
            int port = t.tomcat.getConnector().getLocalPort();
            List<String> forged = List.of("X-Fairslice-Class: heavy", "X-Request-Class: heavy", "X-Class: heavy",
                    "X-Forwarded-For: 10.0.0.1", "X-Forwarded-Path: /reports/x", "X-Original-URL: /reports/a",
                    "X-Rewrite-URL: /reports/a", "Cookie: class=heavy; JSESSIONID=1", "User-Agent: heavy",
                    "X-Tenant-Id: batch", "x-tenant : batch", "Referer: /heavy", "Priority: u=0");
            for (String header : forged) {
                Raw r = raw(port, "GET /h/page HTTP/1.1\r\nHost: localhost\r\n" + header
                        + "\r\nConnection: close\r\n\r\n");
                if (r.status == 200) {
                    assertThat(r.body).as("class with '%s'", header).isEqualTo("light");
                } else {
                    assertThat(r.status).as("a malformed header is refused by Tomcat: %s", header).isEqualTo(400);
                }
            }
            // the configured header does decide, whatever its case, and only with a matching value
            assertThat(raw(port, "GET /h/page HTTP/1.1\r\nHost: localhost\r\nx-tenant: batch-7\r\nConnection: close"
                    + "\r\n\r\n").body).isEqualTo("heavy");
            assertThat(raw(port, "GET /h/page HTTP/1.1\r\nHost: localhost\r\nX-Tenant: web\r\nConnection: close"
                    + "\r\n\r\n").body).isEqualTo("light");
        }
        try (EmbeddedTomcat t = new EmbeddedTomcat("/none", Map.of(), new SimpleMeterRegistry())
                .servlet("/", new EchoClass(), false).start()) {
            int port = t.tomcat.getConnector().getLocalPort();
            assertThat(raw(port, "GET /none/page HTTP/1.1\r\nHost: localhost\r\nX-Tenant: batch\r\n"
                    + "X-Fairslice-Class: heavy\r\nConnection: close\r\n\r\n").body)
                    .as("no rule on any header: headers never choose the class").isEqualTo("light");
        }
    }

    /** The route table's size as the middleware exports it. */
    static int routes(SimpleMeterRegistry registry) {
        return (int) registry.get("fairslice.classify.routes").gauge().value();
    }

    static long requestsCounted(SimpleMeterRegistry registry) {
        long n = 0;
        for (Timer timer : registry.find("fairslice.requests").timers()) {
            n += timer.count();
        }
        return n;
    }

    /** A response as read off the socket; {@code head}: its status line and headers. */
    record Raw(int status, String body, String head) {

        Raw(int status, String body) {
            this(status, body, "");
        }

        /** The value of header {@code name} (any case), or null. */
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    /** One request written byte for byte (a client library would refuse or repair most of these). */
    static Raw raw(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    all.write(buf, 0, n);
                }
            } catch (SocketException e) {
                // Tomcat may reset after answering a request it refused
            }
            String text = all.toString(StandardCharsets.ISO_8859_1);
            if (!text.startsWith("HTTP/1.1 ")) {
                return new Raw(-1, text);
            }
            int status = Integer.parseInt(text.substring(9, 12));
            int bodyAt = text.indexOf("\r\n\r\n");
            String body = bodyAt < 0 ? "" : text.substring(bodyAt + 4);
            if (text.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
                body = dechunk(body);
            }
            return new Raw(status, body, bodyAt < 0 ? text : text.substring(0, bodyAt));
        }
    }

    private static String dechunk(String chunked) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < chunked.length()) {
            int eol = chunked.indexOf("\r\n", i);
            if (eol < 0) {
                break;
            }
            int size = Integer.parseInt(chunked.substring(i, eol).trim(), 16);
            if (size == 0) {
                break;
            }
            out.append(chunked, eol + 2, eol + 2 + size);
            i = eol + 2 + size + 2;
        }
        return out.toString();
    }
}
