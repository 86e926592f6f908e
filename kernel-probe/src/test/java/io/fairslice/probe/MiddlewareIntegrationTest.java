package io.fairslice.probe;

import static io.fairslice.probe.ProbeMeterNames.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.FairsliceInitializer;
import io.fairslice.probe.internal.Sampler;
import io.fairslice.probe.linux.BusyBurstyMain;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe jar on the class path of a web application that uses the middleware, in a real embedded Tomcat: the
 * middleware finds the listener, passes it {@code kernel-probe.*} settings, and calls it around every request.
 */
@EnabledOnOs(OS.LINUX)
class MiddlewareIntegrationTest {

    private static final KernelProbe PROBE = KernelProbes.create();

    /** The Tomcat's base and docBase: a kernel-probe-it* folder of /tmp, which was never deleted. */
    @TempDir
    Path base;

    /** Answers with the serving thread's nice value, read back from the kernel. */
    static final class NiceServlet extends HttpServlet {
        private final long cpuNanos;

        NiceServlet(long cpuNanos) {
            this.cpuNanos = cpuNanos;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            BusyBurstyMain.burnCpu(cpuNanos);
            resp.getWriter().print(niceOfThisThread());
        }
    }

    @Test
    void shouldAttributeRequestsAndNiceHeavyOnesWhenTheMiddlewareRunsTheProbe() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Tomcat tomcat = new Tomcat();
        Context ctx = fairsliceContext(tomcat, "/heavy", registry);
        Tomcat.addServlet(ctx, "light", new NiceServlet(1_000_000L));
        ctx.addServletMapping("/light", "light");
        Tomcat.addServlet(ctx, "heavy", new NiceServlet(20_000_000L));
        ctx.addServletMapping("/heavy", "heavy");
        tomcat.start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            String root = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
            for (int i = 0; i < 5; i++) {
                assertThat(get(client, root + "/heavy")).as("nice inside a heavy request").isEqualTo("10");
                assertThat(get(client, root + "/light")).as("nice inside a light request").isEqualTo("0");
            }

            assertThat(registry.get(RUN_TIME).tag(TAG_CLASS, "heavy").functionCounter().count())
                    .as("heavy CPU seen by the probe, s").isGreaterThan(0.09);
            assertThat(registry.get(REQUEST_CPU).tag(TAG_CLASS, "light").summary().count()).isEqualTo(5);
            assertThat(registry.get(REQUEST_CPU).tag(TAG_CLASS, "heavy").summary().mean())
                    .as("CPU per heavy request, s").isGreaterThan(0.018);
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(
                t -> t.getName().equals(Sampler.THREAD_NAME) && t.isAlive());
    }

    /** Hands 20 ms of CPU to an executor of its own as a task of the request, and answers the task's nice. */
    static final class TaskServlet extends HttpServlet {
        final ExecutorService pool = Executors.newSingleThreadExecutor();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            pool.execute(Fairslice.task(() -> {
                try {
                    BusyBurstyMain.burnCpu(20_000_000L);
                    ac.getResponse().getWriter().print(niceOfThisThread());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    ac.complete();
                }
            }));
        }
    }

    private static long niceOfThisThread() {
        ThreadStats s = new ThreadStats();
        PROBE.actuator().readScheduling(PROBE.currentThreadId(), s);
        return s.nice();
    }

    /**
     * Work a heavy request hands to an executor ({@code Fairslice.task}) is heavy's to the probe: its thread's CPU
     * counts for heavy, heavy's nice applies while it runs and is undone after, and it is no request of its own.
     */
    @Test
    void shouldAttributeATasksThreadToItsRequestsClassWithoutCountingItAsARequest() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Tomcat tomcat = new Tomcat();
        Context ctx = fairsliceContext(tomcat, "/report", registry);
        TaskServlet report = new TaskServlet();
        Tomcat.addServlet(ctx, "report", report).setAsyncSupported(true);
        ctx.addServletMapping("/report", "report");
        tomcat.start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            String root = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
            for (int i = 0; i < 5; i++) {
                assertThat(get(client, root + "/report")).as("nice inside the heavy request's task").isEqualTo("10");
            }
            assertThat(report.pool.submit(MiddlewareIntegrationTest::niceOfThisThread).get())
                    .as("the executor's thread after the tasks").isEqualTo(0L);

            assertThat(registry.get(RUN_TIME).tag(TAG_CLASS, "heavy").functionCounter().count())
                    .as("heavy CPU seen by the probe, s: the tasks' 5 x 20 ms").isGreaterThan(0.09);
            assertThat(registry.get(REQUEST_CPU).tag(TAG_CLASS, "heavy").summary().count())
                    .as("the requests' dispatches, not their tasks").isEqualTo(5);
        } finally {
            tomcat.stop();
            tomcat.destroy();
            report.pool.shutdownNow();
        }
    }

    /**
     * A registry that refuses one of the probe's meters (a strict Prometheus registry does when a meter of that name
     * with other tag keys is there) fails the application's start, as a refusal of the middleware's own meters does,
     * and leaves none of the probe's meters behind: Micrometer would hand them to the next deploy under the same name
     * still reading the dead probe, frozen for that whole deploy.
     */
    @Test
    void shouldLeaveNoProbeMeterBehindWhenTheRegistryRefusesOneSoThatTheNextDeployMetersItsOwn() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicBoolean refuse = new AtomicBoolean(true);
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (refuse.get() && id.getName().equals(THREADS)) { // late in bindTo: ~38 probe meters before it
                    throw new IllegalArgumentException("a meter named " + THREADS + " with other tag keys is there");
                }
                return id;
            }
        });
        List<String> severe = new CopyOnWriteArrayList<>();
        Logger filterLog = Logger.getLogger(FairsliceFilter.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == Level.SEVERE) {
                    severe.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        filterLog.addHandler(handler);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        tomcat.start();
        try {
            Context refused = deploy(tomcat, base, "/shop", registry);
            assertThat(refused.getState()).as("the deploy whose probe meter was refused").isNotEqualTo(
                    LifecycleState.STARTED);
            assertThat(severe).singleElement().asString().contains("fairslice[/shop]: not started")
                    .contains("kernel-probe: its meters could not be registered in SimpleMeterRegistry")
                    .contains("a meter named " + THREADS + " with other tag keys is there");
            assertThat(registry.getMeters()).as("meters left by the deploy that did not start")
                    .noneMatch(m -> m.getId().getName().startsWith("fairslice.probe."));
            tomcat.getHost().removeChild(refused);
            refuse.set(false);

            Context next = deploy(tomcat, base, "/shop", registry);

            assertThat(next.getState()).isEqualTo(LifecycleState.STARTED);
            HttpClient client = HttpClient.newHttpClient();
            String root = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/shop";
            for (int i = 0; i < 5; i++) {
                get(client, root + "/heavy");
            }
            assertThat(registry.get(RUN_TIME).tags(TAG_APPLICATION, "/shop", TAG_CLASS, "heavy").functionCounter()
                    .count()).as("heavy CPU the redeployed application's probe saw, s").isGreaterThan(0.09);
            assertThat(registry.get(REQUEST_CPU).tags(TAG_APPLICATION, "/shop", TAG_CLASS, "heavy").summary()
                    .count()).isEqualTo(5);
        } finally {
            filterLog.removeHandler(handler);
            tomcat.stop();
            tomcat.destroy();
        }
    }

    /** Deploys {@code path} with the middleware and the probe (classes light and heavy, /heavy heavy, no actuator). */
    private static Context deploy(Tomcat tomcat, Path base, String path, SimpleMeterRegistry registry) {
        StandardContext ctx = new StandardContext(); // as Tomcat.addContext, with the servlet added before the start
        ctx.setName(path);
        ctx.setPath(path);
        ctx.setDocBase(base.toString());
        ctx.addLifecycleListener(new Tomcat.FixContextListener());
        Map.of("fairslice.classes", "light,heavy", "fairslice.rule.1", "heavy path=/heavy")
                .forEach(ctx::addParameter);
        // its servlet context exists once it is attached: the registry is handed over as it starts
        ctx.addServletContainerInitializer((classes, sc) -> sc.setAttribute("io.fairslice.meterRegistry", registry),
                null);
        ctx.addServletContainerInitializer(new FairsliceInitializer(), null);
        Tomcat.addServlet(ctx, "heavy", new NiceServlet(20_000_000L));
        ctx.addServletMapping("/heavy", "heavy");
        tomcat.getHost().addChild(ctx); // starts it: the host runs
        return ctx;
    }

    /**
     * The root context of an embedded Tomcat on loopback with the middleware (and so the probe): classes light and
     * heavy, {@code heavyPath} heavy by a rule, heavy at nice 10, meters in {@code registry}.
     */
    private Context fairsliceContext(Tomcat tomcat, String heavyPath, SimpleMeterRegistry registry) {
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context ctx = tomcat.addContext("", base.toString());
        Map.of("fairslice.classes", "light,heavy", "fairslice.rule.1", "heavy path=" + heavyPath,
                "fairslice.kernel-probe.nice.heavy", "10").forEach(ctx::addParameter);
        ctx.getServletContext().setAttribute("io.fairslice.meterRegistry", registry);
        ctx.addServletContainerInitializer(new FairsliceInitializer(), null);
        return ctx;
    }

    private static String get(HttpClient client, String uri) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(uri)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(uri + ": " + r.body()).isEqualTo(200);
        return r.body();
    }
}
