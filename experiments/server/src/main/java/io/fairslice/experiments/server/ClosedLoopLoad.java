package io.fairslice.experiments.server;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop HTTP/1.1 load: each client thread owns one keep-alive connection and sends its next request as soon
 * as the previous response has been read (no think time), as in the 2005 study. Raw sockets keep the client's own
 * CPU cost small on a machine it shares with the server. Counts completions only inside the measured window.
 */
final class ClosedLoopLoad implements AutoCloseable {

    /** Completed and failed requests of one page inside the window. */
    record Count(long ok, long failed) {
    }

    private final int port;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile boolean counting;
    private final List<AtomicLong[]> counters = new ArrayList<>();
    private final List<String> pages = new ArrayList<>();
    /**
     * How many examples of errors are kept ({@link #errors}); every error is counted ({@link #errorCount}). A client
     * whose server is gone fails a connection as often as it tries, and every one was kept: the list grew by the
     * hundred thousand a second for as long as the load ran.
     */
    static final int ERROR_EXAMPLES = 20;
    /**
     * How long a client waits after a connection that served no response (refused, or closed before its answer)
     * before it connects again. It tried again at once: a client whose server was gone kept a core busy failing
     * connections every few microseconds, on the machine the server's next run shares.
     */
    static final long RECONNECT_PAUSE_MILLIS = 10;
    private final AtomicLong errorCount = new AtomicLong();
    private final List<String> errors = new ArrayList<>(); // guarded by itself

    ClosedLoopLoad(int port) {
        this.port = port;
    }

    /** Starts {@code clients} threads hammering {@code page}. */
    ClosedLoopLoad clients(String page, int clients) {
        AtomicLong[] c = {new AtomicLong(), new AtomicLong()};
        counters.add(c);
        pages.add(page);
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> loop(page, c), "load-" + page + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return this;
    }

    private void loop(String page, AtomicLong[] count) {
        byte[] request = ("GET " + page + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: fairslice-test\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        while (!stop.get()) {
            boolean served = false;
            try (Socket s = new Socket()) {
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                s.setSoTimeout(60_000);
                OutputStream out = s.getOutputStream();
                InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
                boolean open = true;
                while (open && !stop.get()) {
                    out.write(request);
                    out.flush();
                    Response response = readResponse(in);
                    served = true;
                    if (counting) {
                        count[response.status() == 200 ? 0 : 1].incrementAndGet();
                    }
                    if (response.status() != 200) {
                        error(page + " -> HTTP " + response.status());
                    }
                    // the server closes the connection after it (Tomcat does after every 503): the next request goes
                    // on a new one; written on this one, it failed and counted a 503 twice
                    open = !response.closes();
                }
            } catch (IOException e) {
                if (!stop.get()) {
                    if (counting) {
                        count[1].incrementAndGet();
                    }
                    error(page + " -> " + e);
                }
            }
            if (!served && !stop.get()) {
                try {
                    Thread.sleep(RECONNECT_PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return; // a daemon interrupted: it ends, as it would at stop
                }
            }
        }
    }

    /** A response's status, and whether the server closes the connection after it ({@code Connection: close}). */
    record Response(int status, boolean closes) {
    }

    /** Reads one response (status line, headers, Content-Length or chunked body). */
    static Response readResponse(InputStream in) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("connection closed by the server");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        long length = -1;
        boolean chunked = false;
        boolean closes = false;
        String h;
        while ((h = line(in)) != null && !h.isEmpty()) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("connection:") && lower.contains("close")) {
                closes = true;
            }
        }
        if (chunked) {
            while (true) {
                long size = Long.parseLong(line(in).split(";")[0].trim(), 16);
                skip(in, size);
                line(in);
                if (size == 0) {
                    break;
                }
            }
        } else if (length > 0) {
            skip(in, length);
        }
        return new Response(status, closes);
    }

    private static void skip(InputStream in, long n) throws IOException {
        while (n > 0) {
            long s = in.skip(n);
            if (s <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed inside a body");
                }
                s = 1;
            }
            n -= s;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder(64);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int len = b.length();
                return len > 0 && b.charAt(len - 1) == '\r' ? b.substring(0, len - 1) : b.toString();
            }
            b.append((char) c);
        }
        return b.length() == 0 ? null : b.toString();
    }

    /** Lets the load run {@code warmupMillis}, then counts for {@code windowMillis}; returns counts per page. */
    List<Count> measure(long warmupMillis, long windowMillis) throws InterruptedException {
        return measure(warmupMillis, windowMillis, () -> { });
    }

    /** As {@link #measure(long, long)}, running {@code atWindowStart} as the window opens. */
    List<Count> measure(long warmupMillis, long windowMillis, Runnable atWindowStart) throws InterruptedException {
        Thread.sleep(warmupMillis);
        atWindowStart.run();
        for (AtomicLong[] c : counters) {
            c[0].set(0);
            c[1].set(0);
        }
        counting = true;
        Thread.sleep(windowMillis);
        counting = false;
        List<Count> result = new ArrayList<>();
        for (AtomicLong[] c : counters) {
            result.add(new Count(c[0].get(), c[1].get()));
        }
        return result;
    }

    private void error(String what) {
        errorCount.incrementAndGet();
        synchronized (errors) {
            if (errors.size() < ERROR_EXAMPLES) {
                errors.add(what);
            }
        }
    }

    /** The first {@link #ERROR_EXAMPLES} errors (a failed status or connection), in the order they came. */
    List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }

    /** Every error so far, inside the window or not ({@link #errors} keeps the first few). */
    long errorCount() {
        return errorCount.get();
    }

    /** Stops sending: each client ends as its response in flight comes, or as the server closes its connection. */
    void stop() {
        stop.set(true);
    }

    /** Stops sending and waits up to 5 s for the clients to end (daemons: the server's stop ends the rest). */
    @Override
    public void close() {
        stop();
        long deadline = System.currentTimeMillis() + 5_000;
        try {
            for (Thread t : threads) {
                t.join(Math.max(1, deadline - System.currentTimeMillis()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the clients are daemons: nothing is left running for long
        }
    }
}
