package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.middleware.schedule.Scheduler;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ValveBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults while requests hold or wait for a permit, through the filter in a real embedded Tomcat: the application
 * throws, a waiting thread is interrupted, an async request times out or its dispatch fails after the commit, a
 * client leaves while its request waits or while its event stream runs, an async request is completed or times out
 * while its dispatch is parked at a yield point,
 * the application blocks without reaching a yield point (and no weaving agent is present), a request listener (the
 * kernel probe's SPI) throws. Each case ends with the scheduler back at zero (nothing in flight, running or
 * waiting) and no thread left behind once the server stops. Written against behaviour, not scheduler internals.
 */
class FaultToleranceTest {

    private Set<Long> threadsBefore;

    @BeforeEach
    void snapshotThreads() {
        threadsBefore = liveThreadIds();
    }

    @AfterEach
    void noThreadLeftBehind() throws InterruptedException {
        List<String> left = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            left.clear();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!threadsBefore.contains(t.getId()) && t.isAlive() && !jdkPool(t.getName())) {
                    left.add(t.getName());
                }
            }
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        assertThat(left).as("threads started by the test and alive 10 s after the server stopped").isEmpty();
    }

    /** The JDK's shared pools (the HTTP client's selector, CompletableFuture's common pool) outlive any test. */
    private static boolean jdkPool(String name) {
        return name.startsWith("HttpClient-") || name.startsWith("ForkJoinPool.commonPool")
                || name.startsWith("process reaper") || name.equals("Attach Listener");
    }

    private static Set<Long> liveThreadIds() {
        Set<Long> ids = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.getId());
        }
        return ids;
    }

    // ---- applications --------------------------------------------------------------------------------------------

    static final class Throwing extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException {
            switch (req.getParameter("kind")) {
                case "runtime" -> throw new IllegalStateException("application bug");
                case "servlet" -> throw new ServletException("application failure");
                case "error" -> throw new StackOverflowError("deep recursion");
                default -> {
                }
            }
        }
    }

    /** Keeps its thread busy on the CPU until released. */
    static final class BusyHolding extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            entered.countDown();
            long x = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (release.getCount() > 0 && System.nanoTime() < until) {
                for (int i = 0; i < 10_000; i++) {
                    x += i ^ x;
                }
            }
            resp.getWriter().write("done " + x);
        }
    }

    static final class Hello extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("hello");
        }
    }

    /** Burns CPU calling the public yield point, as woven code would, until its thread is interrupted. */
    static final class SpinUntilInterrupted extends HttpServlet {
        final AtomicReference<Thread> thread = new AtomicReference<>();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            thread.set(Thread.currentThread());
            long x = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < until) {
                for (int i = 0; i < 10_000; i++) {
                    x += i ^ x;
                }
                Fairslice.yieldPoint();
            }
            boolean interrupted = Thread.interrupted();
            resp.getWriter().write(interrupted ? "interrupted " + x : "timed out");
        }
    }

    /** Burns CPU until released (or 20 s): light work that competes for the processor. */
    static final class BusyLight extends HttpServlet {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long x = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (release.getCount() > 0 && System.nanoTime() < until) {
                for (int i = 0; i < 10_000; i++) {
                    x += i ^ x;
                }
            }
            resp.getWriter().write(Long.toString(x));
        }
    }

    /** Starts an async cycle that nobody ever completes. */
    static final class AbandonedAsync extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            ac.setTimeout(300);
        }
    }

    /** Which dispatch of an async request parks at a yield point, and what ends its cycle meanwhile. */
    enum ParkedDispatch {
        /** The first dispatch starts the cycle and parks; another thread calls complete(). */
        FIRST_COMPLETED,
        /** The first dispatch starts the cycle and parks; nobody completes it: it times out. */
        FIRST_TIMED_OUT,
        /** An async dispatch starts a new cycle and parks; another thread calls complete() on it. */
        LATER_NEW_CYCLE_COMPLETED,
        /** An async dispatch parks; another thread calls complete() on the cycle that dispatched it. */
        LATER_COMPLETED
    }

    /**
     * An async request whose dispatch ({@link ParkedDispatch}) spins through yield points until stopped, as woven code
     * would, each of its cycles with a 100 ms timeout; records its cycles' events, and whether they came while that
     * dispatch ran.
     */
    static final class ParkingAsync extends HttpServlet {
        final AtomicReference<AsyncContext> context = new AtomicReference<>();
        final CountDownLatch stop = new CountDownLatch(1);
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        volatile boolean inDispatch;
        private final ParkedDispatch parked;
        private final AsyncListener recorder = new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                record("complete");
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                record("timeout");
            }

            @Override
            public void onError(AsyncEvent event) {
                record("error");
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
                event.getAsyncContext().addListener(this); // a new cycle drops the listeners
            }

            private void record(String event) {
                events.add(inDispatch ? event + " during the parked dispatch" : event);
            }
        };

        ParkingAsync(ParkedDispatch parked) {
            this.parked = parked;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            boolean first = req.getDispatcherType() == DispatcherType.REQUEST;
            boolean later = parked == ParkedDispatch.LATER_NEW_CYCLE_COMPLETED
                    || parked == ParkedDispatch.LATER_COMPLETED;
            if (first || parked == ParkedDispatch.LATER_NEW_CYCLE_COMPLETED) {
                AsyncContext ac = req.startAsync();
                ac.setTimeout(100);
                if (first) {
                    ac.addListener(recorder);
                }
                context.set(ac);
                if (first && later) {
                    ac.dispatch();
                    return;
                }
            }
            inDispatch = true;
            try {
                long x = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (stop.getCount() > 0 && System.nanoTime() < until) {
                    for (int i = 0; i < 10_000; i++) {
                        x += i ^ x;
                    }
                    Fairslice.yieldPoint();
                }
                if (parked != ParkedDispatch.FIRST_TIMED_OUT) {
                    resp.getWriter().write("served " + x);
                }
            } finally {
                inDispatch = false;
            }
        }
    }

    /**
     * An event stream: one event as the request starts (the response is committed, 200), then one every 20 ms from
     * another thread until a write fails, as it does once the client has left.
     */
    static final class EventStream extends HttpServlet {
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final CountDownLatch writeFailed = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/event-stream");
            AsyncContext ac = req.startAsync();
            ac.setTimeout(20_000);
            ac.addListener(new AsyncListener() {
                @Override
                public void onError(AsyncEvent event) {
                    error.set(event.getThrowable());
                }

                @Override
                public void onComplete(AsyncEvent event) {
                }

                @Override
                public void onTimeout(AsyncEvent event) {
                }

                @Override
                public void onStartAsync(AsyncEvent event) {
                }
            });
            ServletOutputStream out = resp.getOutputStream();
            out.write("data: hello\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            ac.start(() -> {
                try {
                    for (int i = 0; i < 1_000; i++) {
                        Thread.sleep(20);
                        out.write(("data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                } catch (IOException e) {
                    writeFailed.countDown(); // the container ends the request (AsyncListener.onError)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    /** Which dispatch of a request {@link Download} streams on. */
    enum Streaming {
        /** The request's only one. */
        PLAIN,
        /** The one that starts its async cycle (an event stream or a long poll that writes as it goes). */
        FIRST_ASYNC_DISPATCH,
        /** An async dispatch ({@code AsyncContext.dispatch()}) that starts a new async cycle. */
        LATER_ASYNC_DISPATCH
    }

    /** Answers 200 and streams until its client leaves; lets the write's IOException propagate, as pages do. */
    static final class Download extends HttpServlet {
        final CountDownLatch writeFailed = new CountDownLatch(1);
        private final Streaming streaming;

        Download(Streaming streaming) {
            this.streaming = streaming;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (streaming == Streaming.LATER_ASYNC_DISPATCH && req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().dispatch();
                return;
            }
            if (streaming != Streaming.PLAIN) {
                req.startAsync().setTimeout(20_000);
            }
            resp.setContentType("application/octet-stream");
            ServletOutputStream out = resp.getOutputStream();
            out.write("begin\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] chunk = new byte[64 * 1024];
            try {
                for (int i = 0; i < 10_000; i++) {
                    out.write(chunk);
                    out.flush();
                    Thread.sleep(5);
                }
            } catch (IOException e) {
                writeFailed.countDown();
                throw e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Answers "partial" with 200, committed, then dispatches to itself: the async dispatch throws (a bug). */
    static final class FailingAfterCommit extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (req.getDispatcherType() == DispatcherType.ASYNC) {
                throw new IllegalStateException("application bug in an async dispatch");
            }
            resp.getWriter().write("partial");
            resp.flushBuffer();
            req.startAsync().dispatch();
        }
    }

    /** Stuck in a blocking call or a CPU loop without yield points, as an unwoven application is. */
    static final class Stuck extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long ms = Long.parseLong(req.getParameter("ms"));
            if ("cpu".equals(req.getParameter("how"))) {
                var threads = ManagementFactory.getThreadMXBean();
                long until = threads.getCurrentThreadCpuTime() + ms * 1_000_000L;
                long x = 0;
                while (threads.getCurrentThreadCpuTime() < until) {
                    for (int i = 0; i < 10_000; i++) {
                        x += i ^ x;
                    }
                }
                resp.getWriter().write(Long.toString(x));
            } else {
                try {
                    Thread.sleep(ms);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                resp.getWriter().write("slept");
            }
        }
    }

    /**
     * The adaptive bound the failing pages below never reach: they fail cheaply, so their paths stay out of the route
     * table (under page {@code other}), which a cold JVM's first request, using more than the default 5 ms of CPU,
     * would otherwise change (a failure after {@code adaptive.heavy-above} of CPU joins the table,
     * RequestClassifier.end).
     */
    private static final String NEVER_COSTLY = "10s";

    // ---- cases ---------------------------------------------------------------------------------------------------

    @Test
    void shouldReleaseThePermitWhenTheApplicationThrows() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/throw", Map.of("fairslice.rule.1", "heavy path=/t",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0",
                "fairslice.adaptive.heavy-above", NEVER_COSTLY), registry)
                .servlet("/t", new Throwing(), false).start()) {
            for (String kind : List.of("runtime", "servlet", "error", "runtime", "error")) {
                assertThat(t.get("/t?kind=" + kind).statusCode()).as(kind + ": a 500, not a 503 from a leaked permit")
                        .isEqualTo(500);
            }
            assertThat(t.get("/t?kind=none").statusCode()).isEqualTo(200);
            // failed before the page had been served once: under page other, not the page's own tag
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("class", "heavy", "page", "other", "outcome", "server_error").timer().count()).isEqualTo(5));
            assertSettled(t.filter());
        }
    }

    @Test
    void shouldReleaseARequestSleepingAtAYieldPointWhenItsThreadIsInterrupted() throws Exception {
        // the sleep policy parks a heavy request at its first yield point after 1 ms, here for 20 s: deterministic
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpinUntilInterrupted spin = new SpinUntilInterrupted();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/sintr", Map.of("fairslice.rule.1", "heavy path=/spin",
                "fairslice.policy", "sleep", "fairslice.sleep.quantum", "1ms", "fairslice.sleep.duration", "10s"),
                registry).servlet("/spin", spin, false).start()) {
            assertInterruptReleasesThePark(t, spin);
        }
    }

    @Test
    void shouldReleaseARequestParkedAtAYieldPointUnderShareWhenItsThreadIsInterrupted() throws Exception {
        // share: the heavy request runs alone, then two light requests burn CPU, so it must park for them
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpinUntilInterrupted spin = new SpinUntilInterrupted();
        BusyLight light = new BusyLight();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/yintr", Map.of("fairslice.rule.1", "heavy path=/spin",
                "fairslice.share.cpus", "1", "fairslice.share.quantum", "2ms", "fairslice.share.max-park", "10s"),
                registry).servlet("/spin", spin, false).servlet("/light", light, false).start()) {
            CompletableFuture<HttpResponse<String>> lightA;
            CompletableFuture<HttpResponse<String>> lightB;
            CompletableFuture<HttpResponse<String>> heavyResponse =
                    NewThread.supply(() -> get(t, "/spin"));
            awaitTrue(() -> spin.thread.get() != null, "the heavy request runs");
            lightA = NewThread.supply(() -> get(t, "/light"));
            lightB = NewThread.supply(() -> get(t, "/light"));
            try {
                assertInterruptReleasesThePark(t, spin, heavyResponse);
            } finally {
                light.release.countDown();
            }
            assertThat(lightA.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(lightB.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertSettled(t.filter());
        }
    }

    private static void assertInterruptReleasesThePark(EmbeddedTomcat t, SpinUntilInterrupted spin) throws Exception {
        CompletableFuture<HttpResponse<String>> heavyResponse = NewThread.supply(() -> get(t, "/spin"));
        assertInterruptReleasesThePark(t, spin, heavyResponse);
        assertSettled(t.filter());
    }

    /** Waits until the spinning request's thread is parked (it only parks inside a yield point), interrupts it. */
    private static void assertInterruptReleasesThePark(EmbeddedTomcat t, SpinUntilInterrupted spin,
                                                      CompletableFuture<HttpResponse<String>> heavyResponse)
            throws Exception {
        ClassState heavy = t.filter().scheduler().classState(1);
        awaitTrue(() -> spin.thread.get() != null && spin.thread.get().getState() == Thread.State.TIMED_WAITING,
                "the heavy request parks at a yield point");
        long interruptedAt = System.nanoTime();
        spin.thread.get().interrupt();
        HttpResponse<String> r = heavyResponse.get(10, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - interruptedAt) / 1_000_000;
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).as("the application still sees its interrupt").startsWith("interrupted");
        assertThat(ms).as("ms from interrupt to answer (the park could last 10 s)").isLessThan(5_000);
        assertThat(heavy.parks(Scheduler.WHERE_YIELD)).as("the park was counted").isPositive();
    }

    @Test
    void shouldRejectAndCountARequestInterruptedWhileWaitingForAdmission() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FairsliceFilterTest.Blocking holding = new FairsliceFilterTest.Blocking(); // holds its permit
        try (EmbeddedTomcat t = new EmbeddedTomcat("/intr", Map.of("fairslice.rule.1", "heavy path=/h",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-timeout", "20s"), registry)
                .servlet("/h", holding, false).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/h"));
            assertThat(holding.entered.await(10, TimeUnit.SECONDS)).isTrue();
            // a raw client: java.net.http would retry a GET whose connection dropped, hiding what happened
            int port = t.tomcat.getConnector().getLocalPort();
            CompletableFuture<HostileInputTest.Raw> second = NewThread.supply(() -> {
                try {
                    return HostileInputTest.raw(port, "GET /intr/h HTTP/1.1\r\nHost: localhost\r\nConnection: close"
                            + "\r\n\r\n");
                } catch (IOException e) {
                    return new HostileInputTest.Raw(-2, e.toString());
                }
            });
            awaitTrue(() -> heavy.waitingAdmission() == 1, "the second request waits for admission");

            Thread waiter = threadWaitingForAdmission();
            assertThat(waiter).as("the container thread waiting in the filter").isNotNull();
            long interruptedAt = System.nanoTime();
            waiter.interrupt();
            HostileInputTest.Raw rejected = second.get(10, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - interruptedAt) / 1_000_000;
            assertThat(rejected.status()).as("released at once and answered 503; got: %s", rejected.body())
                    .isEqualTo(503);
            assertThat(ms).as("ms from interrupt to answer (queue timeout 20 s)").isLessThan(5_000);
            assertThat(rejected.header("Retry-After")).as("Retry-After of the 503").matches("[1-9][0-9]*");
            assertThat(registry.get("fairslice.rejections").tags("class", "heavy", "reason", "interrupted")
                    .functionCounter().count()).isEqualTo(1);

            holding.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(t.get("/h").statusCode()).as("the permit went back").isEqualTo(200);
            assertSettled(t.filter());
        }
    }

    /**
     * A request refused at once (its class's queue full) on a container thread whose interrupt flag is already set
     * (a valve's, a stuck-thread detector's left from an earlier wait): the 503 reaches the client. The filter cleared
     * the flag only when the interrupt had cancelled the wait itself.
     */
    @Test
    void shouldAnswerA503OnAThreadThatCameInterrupted() throws Exception {
        FairsliceFilterTest.Blocking holding = new FairsliceFilterTest.Blocking(); // holds its class's one permit
        EmbeddedTomcat server = new EmbeddedTomcat("/pending", Map.of("fairslice.rule.1", "heavy path=/h",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0"),
                new SimpleMeterRegistry()).servlet("/h", holding, false);
        server.context.getPipeline().addValve(new ValveBase() {
            @Override
            public void invoke(Request request, Response response) throws IOException, ServletException {
                if ("interrupt".equals(request.getQueryString())) {
                    Thread.currentThread().interrupt();
                }
                getNext().invoke(request, response);
            }
        });
        try (EmbeddedTomcat t = server.start()) {
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/h"));
            assertThat(holding.entered.await(10, TimeUnit.SECONDS)).isTrue();
            // a raw client: java.net.http would retry a GET whose connection dropped, hiding what happened
            HostileInputTest.Raw refused = HostileInputTest.raw(t.tomcat.getConnector().getLocalPort(),
                    "GET /pending/h?interrupt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertThat(refused.status()).as("the queue is full: 503; got: %s", refused.body()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");

            holding.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertSettled(t.filter());
        }
    }

    @Test
    void shouldReleaseThePermitOfAnAsyncRequestThatTimesOut() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/atimeout", Map.of("fairslice.rule.1", "heavy path=/a",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0",
                "fairslice.adaptive.heavy-above", NEVER_COSTLY), registry)
                .servlet("/a", new AbandonedAsync(), true).start()) {
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/a").statusCode()).as("timed out by the container, not refused").isEqualTo(500);
                // the container completes the cycle (and the filter's listener returns the permit) just after the
                // client has the 500: a next request sent at once may find the permit still held, rightly a 503
                assertSettled(t.filter());
            }
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("class", "heavy", "page", "other", "outcome", "server_error").timer().count()).isEqualTo(3));
            assertSettled(t.filter());
        }
    }

    /**
     * An async request whose dispatch is parked at a yield point (its class over its share) while another thread calls
     * complete(), or its cycle's timeout passes, is released once, as its dispatch returns: Tomcat (11.0.25) defers
     * complete() on a cycle that the parked dispatch started until that dispatch's thread has returned to the container
     * (AsyncStateMachine's COMPLETE_PENDING), refuses it on the cycle that dispatched it (IllegalStateException: the
     * request is no longer async during that dispatch), and checks a cycle's timeout only while no thread runs the
     * request (its processor is back among the waiting ones only once the dispatch returned; and the event a timeout
     * posts runs under the connection's lock, which the dispatch holds). So the filter never completes a ticket that
     * waits in its yield queue, which Scheduler.complete would leave there: its later grant would take a run slot
     * that nothing frees.
     */
    @Test
    void shouldReleaseAnAsyncRequestOnceWhenCompletedOrTimedOutWhileItsDispatchIsParkedAtAYieldPoint()
            throws Exception {
        for (ParkedDispatch parked : ParkedDispatch.values()) {
            assertReleasedOnceAfterTheParkedDispatch(parked);
        }
    }

    private static void assertReleasedOnceAfterTheParkedDispatch(ParkedDispatch parked) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ParkingAsync page = new ParkingAsync(parked);
        BusyLight light = new BusyLight();
        String context = "/apark" + parked.ordinal();
        try (EmbeddedTomcat t = new EmbeddedTomcat(context, Map.of("fairslice.rule.1", "heavy path=/park",
                "fairslice.share.cpus", "1", "fairslice.share.quantum", "2ms", "fairslice.share.max-park", "10s",
                "fairslice.adaptive.heavy-above", NEVER_COSTLY), registry)
                .servlet("/park", page, true).servlet("/light", light, false).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> response = NewThread.supply(() -> get(t, "/park"));
            awaitTrue(() -> page.inDispatch, parked + ": the dispatch runs");
            // two light requests burn CPU: the heavy one parks for them at its next yield point
            CompletableFuture<HttpResponse<String>> lightA = NewThread.supply(() -> get(t, "/light"));
            CompletableFuture<HttpResponse<String>> lightB = NewThread.supply(() -> get(t, "/light"));
            try {
                awaitTrue(() -> heavy.waiting() - heavy.waitingAdmission() == 1,
                        parked + ": the dispatch parks at a yield point");
                Throwable refused = null;
                if (parked != ParkedDispatch.FIRST_TIMED_OUT) {
                    // on another thread than the dispatch's, as an application's executor would
                    refused = NewThread.run(() -> page.context.get().complete())
                            .handle((done, e) -> e == null ? null : e.getCause()).get(10, TimeUnit.SECONDS);
                }
                if (parked == ParkedDispatch.LATER_COMPLETED) {
                    assertThat(refused).as("%s: complete() on the cycle that dispatched it: refused", parked)
                            .isInstanceOf(IllegalStateException.class);
                } else {
                    assertThat(refused).as("%s: complete() accepted (deferred)", parked).isNull();
                }
                Thread.sleep(1_500); // past the cycle's 100 ms timeout and the container's check, once a second
                assertThat(page.inDispatch).as("%s: the dispatch has not returned", parked).isTrue();
                assertThat(page.events).as("%s: no event of its cycle while the dispatch runs", parked).isEmpty();
                assertThat(heavy.inflight()).as("%s: in flight", parked).isEqualTo(1);
                assertThat(heavy.permits()).as("%s: its permit", parked).isEqualTo(1);
                assertThat(response).as("%s: no answer yet", parked).isNotDone();
            } finally {
                light.release.countDown();
                page.stop.countDown();
            }
            HttpResponse<String> r = response.get(10, TimeUnit.SECONDS);
            assertThat(r.statusCode()).as("%s", parked).isEqualTo(parked == ParkedDispatch.FIRST_TIMED_OUT ? 500 : 200);
            assertThat(lightA.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(lightB.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertSettled(t.filter());
            FairsliceFilterTest.eventually(() -> assertThat(page.events).as("%s", parked)
                    .contains("complete").noneMatch(e -> e.endsWith("during the parked dispatch")));
            assertThat(page.events).as("%s", parked).startsWith(parked == ParkedDispatch.FIRST_TIMED_OUT
                    ? "timeout" : "complete");
            FairsliceFilterTest.eventually(() -> assertThat(registry.find("fairslice.requests").tag("class", "heavy")
                    .timers().stream().mapToLong(Timer::count).sum()).as("%s: counted once", parked).isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tags("class", "heavy", "outcome",
                    parked == ParkedDispatch.FIRST_TIMED_OUT ? "server_error" : "success").timers().stream()
                    .mapToLong(Timer::count).sum()).as("%s", parked).isEqualTo(1);
        }
    }

    /**
     * An event stream whose client leaves: the container ends it with onError (an IOException from the next write).
     * The page was served until the client left: counted by the status it was sent, 200, and it joins the route
     * table; the permit and the route are released once.
     */
    @Test
    void shouldCountAnEventStreamWhoseClientLeftByTheStatusItWasSent() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        EventStream stream = new EventStream();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/sse", Map.of(), registry).servlet("/events", stream, true)
                .start()) {
            try (Socket s = new Socket("127.0.0.1", t.tomcat.getConnector().getLocalPort())) {
                s.getOutputStream().write("GET /sse/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                String received = readUntil(s.getInputStream(), "data: hello");
                assertThat(received).startsWith("HTTP/1.1 200");
                s.setSoLinger(true, 0); // the client leaves: a reset, so the stream's next writes fail
            }
            assertThat(stream.writeFailed.await(10, TimeUnit.SECONDS)).isTrue();
            assertSettled(t.filter());
            assertThat(stream.error.get()).as("the container ended the stream with onError").isInstanceOf(
                    IOException.class);
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("page", "/events", "outcome", "success").timer().count()).isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tag("outcome", "server_error").timers().stream()
                    .mapToLong(Timer::count).sum()).isZero();
            assertThat(t.filter().classifier().routes().size()).isEqualTo(1);
        }
    }

    /**
     * A download whose client leaves: the page's next write throws (Tomcat's ClientAbortException) and the page lets
     * it propagate. Served until the client left, it counts by the status it was sent, 200, not as a server error, as
     * an async request whose client leaves does; the permit and the route are released once.
     */
    @Test
    void shouldCountARequestWhoseClientLeftMidAnswerByTheStatusItWasSent() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Download download = new Download(Streaming.PLAIN);
        try (EmbeddedTomcat t = new EmbeddedTomcat("/dl", Map.of(), registry).servlet("/file", download, false)
                .start()) {
            try (Socket s = new Socket("127.0.0.1", t.tomcat.getConnector().getLocalPort())) {
                s.getOutputStream().write("GET /dl/file HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                assertThat(readUntil(s.getInputStream(), "begin")).startsWith("HTTP/1.1 200");
                s.setSoLinger(true, 0); // the client leaves: a reset, so the page's next writes fail
            }
            assertThat(download.writeFailed.await(10, TimeUnit.SECONDS)).isTrue();
            assertSettled(t.filter());
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("page", "/file", "outcome", "success").timer().count()).isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tag("outcome", "server_error").timers().stream()
                    .mapToLong(Timer::count).sum()).isZero();
            assertThat(t.filter().classifier().routes().size()).isEqualTo(1);
        }
    }

    /**
     * An async request whose client leaves while a dispatch that starts an async cycle writes (an event stream or a
     * long poll streaming on the dispatch's thread; the first dispatch, or one after {@code AsyncContext.dispatch()}):
     * the write's IOException (Tomcat's ClientAbortException) propagates out of the dispatch after the commit. Tomcat
     * 11.0.25 then calls onError before onComplete after a first dispatch, onComplete first after a later one. The
     * request was served until the client left, so it counts by the status it was sent, 200, as a download whose
     * client leaves does, and its page joins the route table and teaches its route (the first dispatch's case counted
     * as a server error, and a cheap one taught nothing).
     */
    @Test
    void shouldCountAnAsyncRequestWhoseClientLeftDuringADispatchByTheStatusItWasSent() throws Exception {
        for (Streaming streaming : new Streaming[] {Streaming.FIRST_ASYNC_DISPATCH, Streaming.LATER_ASYNC_DISPATCH}) {
            assertCountedByTheStatusSentWhenTheClientLeaves(streaming);
        }
    }

    private static void assertCountedByTheStatusSentWhenTheClientLeaves(Streaming streaming) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Download stream = new Download(streaming);
        String context = "/adl" + streaming.ordinal();
        try (EmbeddedTomcat t = new EmbeddedTomcat(context, Map.of("fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/events", stream, true).start()) {
            try (Socket s = new Socket("127.0.0.1", t.tomcat.getConnector().getLocalPort())) {
                s.getOutputStream().write(("GET " + context + "/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                assertThat(readUntil(s.getInputStream(), "begin")).startsWith("HTTP/1.1 200");
                s.setSoLinger(true, 0); // the client leaves: a reset, so the page's next writes fail
            }
            assertThat(stream.writeFailed.await(10, TimeUnit.SECONDS)).as("%s", streaming).isTrue();
            assertSettled(t.filter());
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("page", "/events", "outcome", "success").timer().count()).as("%s", streaming).isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tag("outcome", "server_error").timers().stream()
                    .mapToLong(Timer::count).sum()).as("%s", streaming).isZero();
            assertThat(t.filter().classifier().routes().size()).as("%s", streaming).isEqualTo(1);
            FairsliceFilterTest.eventually(() -> assertThat(t.filter().classifier().route("/events").samples())
                    .as("%s: what the page cost, learnt", streaming).isEqualTo(1));
        }
    }

    /**
     * A page that throws an IOException before it answered anything (a backend's connection refused, say) failed on
     * the server, not at the client: a 500 and a server error, as any exception before the commit.
     */
    @Test
    void shouldCountAnIoExceptionBeforeTheCommitAsAServerError() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HttpServlet failing = new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                throw new IOException("the backend refused the connection");
            }
        };
        try (EmbeddedTomcat t = new EmbeddedTomcat("/io", Map.of(), registry).servlet("/fail", failing, false)
                .start()) {
            assertThat(t.get("/fail").statusCode()).isEqualTo(500);
            FairsliceFilterTest.eventually(() -> assertThat(registry.find("fairslice.requests")
                    .tag("outcome", "server_error").timers().stream().mapToLong(Timer::count).sum()).isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tag("outcome", "success").timers().stream()
                    .mapToLong(Timer::count).sum()).isZero();
            assertSettled(t.filter());
        }
    }

    /**
     * An async dispatch that throws after the response was committed with 200 fails the request as a synchronous one
     * that throws does: a server error, whether or not the host has the error report valve that marks the response
     * 500 after its commit. The permit and the route are released once.
     */
    @Test
    void shouldCountAnAsyncRequestWhoseDispatchFailsAfterTheCommitAsAServerError() throws Exception {
        for (boolean errorReportValve : new boolean[] {true, false}) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (EmbeddedTomcat t = new EmbeddedTomcat("/afail" + errorReportValve,
                    Map.of("fairslice.adaptive.heavy-above", NEVER_COSTLY), registry)
                    .servlet("/f", new FailingAfterCommit(), true)) {
                if (!errorReportValve) {
                    ((StandardHost) t.tomcat.getHost()).setErrorReportValveClass("");
                }
                t.start();
                try {
                    t.get("/f");
                } catch (IOException e) {
                    // the valve closes the connection on a committed response that failed: the client sees it cut
                }
                FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                        .tags("page", "other", "outcome", "server_error").timer().count())
                        .as("error report valve: %s", errorReportValve).isEqualTo(1));
                assertThat(registry.find("fairslice.requests").tag("outcome", "success").timers().stream()
                        .mapToLong(Timer::count).sum()).isZero();
                assertThat(t.filter().classifier().routes().size()).isZero();
                assertSettled(t.filter());
            }
        }
    }

    /** Starts an async cycle and dispatches it; the async dispatch fails before it has answered. */
    static final class FailingInItsAsyncDispatch extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().dispatch();
                return;
            }
            throw new IllegalStateException("failed in its async dispatch");
        }
    }

    /** Starts an async cycle, then fails before it has answered: an application bug. */
    static final class FailingAfterStartAsync extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            req.startAsync();
            throw new IllegalStateException("failed after startAsync");
        }
    }

    /**
     * An async dispatch that throws before anything was sent: Tomcat 11.0.25 then calls the listeners' onError (twice)
     * but never their onComplete, so a request released there kept its permit and stayed in flight for good. It is
     * a server error, and its permit comes back.
     */
    @Test
    void shouldReleaseThePermitOfAnAsyncRequestWhoseDispatchFailsBeforeItAnswered() throws Exception {
        assertAServerErrorThatGivesItsPermitBack("/astart", new FailingAfterStartAsync());
    }

    /**
     * The same in a later dispatch: the first starts an async cycle and dispatches it, the async dispatch throws
     * before anything was sent and starts no cycle of its own. A server error, and its permit comes back.
     */
    @Test
    void shouldReleaseThePermitOfAnAsyncRequestWhoseLaterDispatchFailsBeforeItAnswered() throws Exception {
        assertAServerErrorThatGivesItsPermitBack("/alater", new FailingInItsAsyncDispatch());
    }

    /** One GET of {@code servlet}, a heavy page capped at one request with no queue: a server error, nothing held. */
    private static void assertAServerErrorThatGivesItsPermitBack(String contextPath, HttpServlet servlet)
            throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat(contextPath, Map.of("fairslice.rule.1", "heavy path=/f",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0"), registry)
                .servlet("/f", servlet, true).start()) {
            try (Socket s = new Socket("127.0.0.1", t.tomcat.getConnector().getLocalPort())) {
                // one request on a raw socket: the JDK client would retry the GET on a connection the container closes
                s.getOutputStream().write(("GET " + contextPath + "/f HTTP/1.1\r\nHost: localhost\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                s.getInputStream().readAllBytes();
            }
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("class", "heavy", "outcome", "server_error").timer().count()).isEqualTo(1));
            assertSettled(t.filter());
        }
    }

    @Test
    void shouldReleaseThePermitOfARequestWhoseClientLeftWhileItWaited() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FairsliceFilterTest.Blocking holding = new FairsliceFilterTest.Blocking(); // holds its permit
        try (EmbeddedTomcat t = new EmbeddedTomcat("/gone", Map.of("fairslice.rule.1", "heavy path=/h",
                "fairslice.class.heavy.max-concurrency", "1"), registry).servlet("/h", holding, false).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/h"));
            assertThat(holding.entered.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 3; i++) {
                try (Socket s = new Socket("127.0.0.1", t.tomcat.getConnector().getLocalPort())) {
                    OutputStream out = s.getOutputStream();
                    out.write("GET /gone/h HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    int waiting = i + 1;
                    awaitTrue(() -> heavy.waitingAdmission() == waiting, "queued before the client leaves");
                } // the client closes its connection while its request waits
            }
            holding.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertSettled(t.filter());
            assertThat(t.get("/h").statusCode()).as("the permits went back").isEqualTo(200);
            // the three whose clients left were admitted in turn, ran and were counted: none refused, none lost
            FairsliceFilterTest.eventually(() -> assertThat(registry.find("fairslice.requests").tag("page", "/h")
                    .timers().stream().mapToLong(Timer::count).sum()).isEqualTo(5));
            assertThat(registry.find("fairslice.requests").tag("outcome", "rejected").timers().stream()
                    .mapToLong(Timer::count).sum()).isZero();
        }
    }

    /**
     * What light requests may wait while heavy ones block or spin without yield points: share.max-park (500 ms), after
     * which a slot holder that reached no yield point stops keeping others out, plus 1 s for a busy machine.
     */
    static final long LIGHT_BOUND_MS = 1_500;

    @Test
    void shouldKeepServingLightRequestsWhileHeavyOnesAreStuckWithoutYieldPointsAndNoWeavingAgent() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/stuck", Map.of("fairslice.rule.1", "heavy path=/stuck",
                "fairslice.class.light.queue-timeout", "5s", "fairslice.class.heavy.queue-timeout", "5s"), registry)
                .servlet("/stuck", new Stuck(), false).servlet("/light", new Hello(), false).start()) {
            assertThat(registry.get("fairslice.weaving.classes").gauge().value())
                    .as("no weaving agent in this JVM: yield points exist only where code calls them").isZero();
            long blocked = lightWhileHeavyRuns(t, 6, "/stuck?ms=3000", 1500, LIGHT_BOUND_MS);
            long spinning = lightWhileHeavyRuns(t, 2, "/stuck?how=cpu&ms=1500", 1500, LIGHT_BOUND_MS);
            System.out.printf("light requests while heavy ones are stuck without yield points: worst %d ms beside 6 "
                    + "heavy blocked 3 s, worst %d ms beside 2 heavy spinning 1.5 s of CPU%n", blocked, spinning);
            assertThat(t.filter().scheduler().classState(1).yieldPoints()).as("no yield point fired").isZero();
            assertSettled(t.filter());
        }
    }

    /**
     * Starts {@code heavyCount} heavy requests, sends light requests one after the other for {@code lightMs}, checks
     * every request is answered (light: 200 within the light queue timeout) and returns the worst light latency.
     */
    private static long lightWhileHeavyRuns(EmbeddedTomcat t, int heavyCount, String heavyPath, long lightMs,
                                            long boundMs) throws Exception {
        ExecutorService heavyClients = Executors.newFixedThreadPool(heavyCount);
        try {
            List<Future<HttpResponse<String>>> heavy = new ArrayList<>();
            for (int i = 0; i < heavyCount; i++) {
                heavy.add(heavyClients.submit(() -> t.get(heavyPath)));
            }
            Thread.sleep(200);
            long worstMs = 0;
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lightMs);
            while (System.nanoTime() < until) {
                long start = System.nanoTime();
                HttpResponse<String> r = t.get("/light");
                worstMs = Math.max(worstMs, (System.nanoTime() - start) / 1_000_000);
                assertThat(r.statusCode()).as("light request while heavy ones are stuck").isEqualTo(200);
            }
            assertThat(worstMs).as("worst light latency, ms").isLessThan(boundMs);
            for (Future<HttpResponse<String>> f : heavy) {
                assertThat(f.get(30, TimeUnit.SECONDS).statusCode()).as("heavy answered").isEqualTo(200);
            }
            return worstMs;
        } finally {
            heavyClients.shutdownNow();
            heavyClients.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldServeEveryRequestWhenARequestListenerThrowsOnExitOrLacksItsNativeLibrary() throws Exception {
        for (String cls : List.of("exitboom", "nativeboom")) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (EmbeddedTomcat t = new EmbeddedTomcat("/" + cls, Map.of("fairslice.classes", "light," + cls,
                    "fairslice.rule.1", cls + " path=/x"), registry).servlet("/x", new Hello(), false).start()) {
                for (int i = 0; i < 5; i++) {
                    assertThat(t.get("/x").statusCode()).as(cls).isEqualTo(200);
                }
                FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                        .tags("class", cls, "outcome", "success").timer().count()).isEqualTo(5));
                assertThat(registry.get("fairslice.listener.failures").tag("listener", "faulty").functionCounter()
                        .count()).as("disabled once, not per request").isEqualTo(1);
                assertSettled(t.filter());
            }
        }
    }

    /**
     * A listener that fails the JVM's way (a stack overflow) on entry fails its request (500), but the request is
     * completed and counted, and its class's permit comes back: with a cap of one, every next request gets in.
     */
    @Test
    void shouldCompleteAndCountARequestWhoseListenerFailsWithAVirtualMachineError() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/vm", Map.of("fairslice.classes", "light,vmboom",
                "fairslice.rule.1", "vmboom path=/x", "fairslice.class.vmboom.max-concurrency", "1"), registry)
                .servlet("/x", new Hello(), false).start()) {
            assertThat(t.get("/x").statusCode()).as("the failed request").isEqualTo(500);
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/x").statusCode()).as("the listener is disabled").isEqualTo(200);
            }
            FairsliceFilterTest.eventually(() -> assertThat(registry.get("fairslice.requests")
                    .tags("class", "vmboom").timers().stream().mapToLong(m -> m.count()).sum()).isEqualTo(4));
            assertThat(registry.get("fairslice.listener.failures").tag("listener", "faulty").functionCounter()
                    .count()).as("disabled once").isEqualTo(1);
            assertSettled(t.filter());
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    /**
     * Every class of the filter's scheduler back at zero: nothing in flight, running or waiting, no permit held (a
     * leaked one would cap the class below its {@code max-concurrency} for good); and no route candidate held (every
     * request that was given a route ended it).
     */
    static void assertSettled(FairsliceFilter filter) throws InterruptedException {
        Scheduler scheduler = filter.scheduler();
        FairsliceFilterTest.eventually(() -> {
            for (ClassState c : scheduler.classes()) {
                assertThat(c.inflight()).as("%s in flight", c.name()).isZero();
                assertThat(c.running()).as("%s running", c.name()).isZero();
                assertThat(c.waiting()).as("%s waiting", c.name()).isZero();
                assertThat(c.permits()).as("%s permits", c.name()).isZero();
            }
            assertThat(filter.classifier().routes().candidates()).as("route candidates held").isZero();
        });
    }

    /** Reads {@code in} until what was read contains {@code marker} (10 s at most); returns what was read. */
    private static String readUntil(InputStream in, String marker) throws IOException {
        StringBuilder read = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        byte[] buffer = new byte[1024];
        while (read.indexOf(marker) < 0) {
            assertThat(System.nanoTime()).as("timed out reading until: " + marker + "; read: " + read)
                    .isLessThan(deadline);
            int n = in.read(buffer);
            assertThat(n).as("the server closed the connection; read: " + read).isPositive();
            read.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        }
        return read.toString();
    }

    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting until: " + what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /**
     * The container thread parked in the filter before its request reached the application: its stack has the
     * filter's doFilter, a park, and no application frame (the filter's serve) in between.
     */
    static Thread threadWaitingForAdmission() {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            boolean inFilter = false;
            boolean serving = false;
            boolean parked = false;
            for (StackTraceElement f : e.getValue()) {
                boolean filter = f.getClassName().equals(FairsliceFilter.class.getName());
                inFilter |= filter && f.getMethodName().equals("doFilter");
                serving |= filter && f.getMethodName().equals("serve");
                parked |= f.getClassName().equals("java.util.concurrent.locks.LockSupport");
            }
            if (inFilter && parked && !serving) {
                return e.getKey();
            }
        }
        return null;
    }

    private static HttpResponse<String> get(EmbeddedTomcat t, String path) {
        return FairsliceFilterTest.get(t, path);
    }
}
