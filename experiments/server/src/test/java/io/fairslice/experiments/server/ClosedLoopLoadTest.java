package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The closed-loop load of QuickCompare and the server's tests, against a stand-in server. */
class ClosedLoopLoadTest {

    /**
     * A server that closes the connection after its answer (Tomcat does after every 503): the client's next request
     * goes on a new connection. Written on the closed one, it failed as "connection closed by the server", and
     * QuickCompare's failed column counted each 503 twice.
     */
    @Test
    void shouldCountEachRefusalOnceWhenTheServerClosesTheConnectionAfterIt() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Connection", "close");
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
        try (ClosedLoopLoad load = new ClosedLoopLoad(server.getAddress().getPort())) {
            load.clients("/page", 2);
            List<ClosedLoopLoad.Count> counts = load.measure(200, 1_000);
            load.stop();

            assertThat(counts.get(0).failed()).as("refusals counted").isPositive();
            assertThat(load.errors()).as("every error a 503, none a connection the client wrote on after it was closed")
                    .isNotEmpty().allMatch(e -> e.equals("/page -> HTTP 503"));
        } finally {
            server.stop(0);
        }
    }

    /**
     * Clients whose server is gone fail a connection every {@link ClosedLoopLoad#RECONNECT_PAUSE_MILLIS} for as long
     * as the load runs: each error is counted, and only the first few are kept (every one was, without bound).
     */
    @Test
    void shouldCountEveryErrorButKeepOnlyTheFirstFewWhileTheServerIsGone() throws Exception {
        try (ClosedLoopLoad load = new ClosedLoopLoad(closedPort())) {
            load.clients("/page", 2);
            long deadline = System.currentTimeMillis() + 10_000;
            while (load.errorCount() <= 10L * ClosedLoopLoad.ERROR_EXAMPLES && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            load.stop();

            assertThat(load.errorCount()).as("errors counted").isGreaterThan(10L * ClosedLoopLoad.ERROR_EXAMPLES);
            assertThat(load.errors()).hasSize(ClosedLoopLoad.ERROR_EXAMPLES)
                    .allMatch(e -> e.startsWith("/page -> java.net.ConnectException"));
        }
    }

    /**
     * A client whose server is gone pauses after each failed connection: it tried again at once, some tens of
     * thousands of times a second, and kept a core busy. One client for one second makes at most 1000 /
     * RECONNECT_PAUSE_MILLIS attempts (100); the bound leaves room for a slow machine's timer, none for the old loop.
     */
    @Test
    void shouldPauseBetweenConnectionsWhileTheServerIsGone() throws Exception {
        try (ClosedLoopLoad load = new ClosedLoopLoad(closedPort())) {
            load.clients("/page", 1);
            Thread.sleep(1_000);
            load.stop();

            assertThat(load.errorCount()).as("connections tried in one second").isBetween(1L,
                    2 * 1_000 / ClosedLoopLoad.RECONNECT_PAUSE_MILLIS);
        }
    }

    /** A loopback port nothing listens on (one just closed): a connection to it is refused. */
    static int closedPort() throws IOException {
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return gone.getLocalPort();
        }
    }
}
