package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.weavingtest.shop.Inventory;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Heavy and light pages that share a monitor, in a real embedded Tomcat under {@code share} with one run slot: the
 * heavy page works inside {@code synchronized Inventory.recount}, past its quantum, reaching a woven yield point at
 * every step; the light page needs the same monitor. A heavy request parked there would hold the monitor, and light
 * requests would wait for its next turn (before the fix 312 of 399 thread dumps showed it;
 * docs/measurements/monitor-park-20261127). The thread dumps taken while the load runs must never show a request parked
 * in the scheduler holding the monitor.
 */
class LockHolderInTomcatTest {

    @TempDir
    Path work;

    public static class Heavy extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().print(Inventory.recount(20_000_000L));
        }
    }

    public static class Light extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().print(Inventory.total());
        }
    }

    @Test
    void shouldNeverParkARequestThatHoldsTheApplicationsMonitor() throws Exception {
        Tomcat tomcat = EmbeddedTomcats.onLoopback(work);
        Context context = tomcat.addContext("", work.toString());
        Tomcat.addServlet(context, "heavy", new Heavy());
        Tomcat.addServlet(context, "light", new Light());
        context.addServletMapping("/heavy", "heavy");
        context.addServletMapping("/light", "light");
        EmbeddedTomcats.addFairslice(context, Map.of("policy", "share", "share.cpus", "1", "jmx", "false",
                "adaptive", "false", "rule.1", "heavy path=/heavy"));
        tomcat.start();
        int port = tomcat.getConnector().getLocalPort();

        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger heavyServed = new AtomicInteger();
        AtomicInteger dumps = new AtomicInteger();
        AtomicInteger parkedHolding = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                threads.add(started(() -> {
                    while (!stop.get()) {
                        get(port, "/heavy");
                        heavyServed.incrementAndGet();
                    }
                }));
            }
            threads.add(started(() -> {
                while (!stop.get()) {
                    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, false)) {
                        if (parkedInScheduler(info) && holdsInventory(info)) {
                            parkedHolding.incrementAndGet();
                        }
                    }
                    dumps.incrementAndGet();
                    sleep(5);
                }
            }));
            int light = 0;
            for (long end = System.nanoTime() + 2_000_000_000L; System.nanoTime() < end; light++) {
                get(port, "/light");
                sleep(10);
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }

            assertThat(light).as("light requests served").isPositive();
            assertThat(heavyServed.get()).as("heavy requests served").isPositive();
            assertThat(dumps.get()).as("thread dumps taken").isGreaterThan(20);
            assertThat(parkedHolding.get()).as("dumps with a request parked in the scheduler holding the monitor")
                    .isZero();
        } finally {
            stop.set(true);
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static Thread started(Runnable task) {
        Thread t = new Thread(task);
        t.start();
        return t;
    }

    private static boolean parkedInScheduler(ThreadInfo info) {
        return Arrays.stream(info.getStackTrace()).anyMatch(f -> f.getMethodName().equals("await")
                && f.getClassName().equals("io.fairslice.middleware.schedule.Scheduler"));
    }

    private static boolean holdsInventory(ThreadInfo info) {
        return Arrays.stream(info.getLockedMonitors()).anyMatch(m -> m.getClassName().equals("java.lang.Class")
                && m.getLockedStackFrame().getClassName().equals(Inventory.class.getName()));
    }

    private static void get(int port, String path) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                    .openConnection();
            assertThat(c.getResponseCode()).as(path).isEqualTo(200);
            try (InputStream in = c.getInputStream()) {
                in.readAllBytes();
            }
        } catch (IOException e) {
            throw new IllegalStateException(path, e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
