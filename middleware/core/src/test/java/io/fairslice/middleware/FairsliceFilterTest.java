package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.classify.Route;
import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.middleware.schedule.Scheduler;
import io.fairslice.middleware.schedule.Ticket;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.Attribute;
import javax.management.ObjectName;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.tomcat.util.descriptor.web.ErrorPage;
import org.junit.jupiter.api.Test;

/** The filter in a real embedded Tomcat, registered by its ServletContainerInitializer. */
class FairsliceFilterTest {

    /** Answers its text. */
    static final class Text extends HttpServlet {
        private final String text;

        Text(String text) {
            this.text = text;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(text);
        }
    }

    /** Allocates 64 MB of short-lived garbage. */
    static final class Garbage extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long sum = 0;
            for (int i = 0; i < 64; i++) {
                byte[] chunk = new byte[1 << 20];
                chunk[i] = (byte) i;
                sum += chunk[i] + chunk.length;
            }
            resp.getWriter().write(Long.toString(sum));
        }
    }

    static final class NotFound extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.sendError(404);
        }
    }

    /** An expensive page: each request uses 20 ms of its thread's CPU time. */
    static final class Expensive extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(Long.toString(burnCpu(20)));
        }
    }

    /** {@link #burnCpu} on another thread, as the calling request's task (Fairslice.task), waited for. */
    static void burnCpuInTask(long millis) {
        Thread worker = new Thread(Fairslice.task(() -> burnCpu(millis)));
        worker.start();
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Uses {@code millis} of the calling thread's CPU time. */
    static long burnCpu(long millis) {
        var threads = ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < until) {
            for (int i = 0; i < 10_000; i++) {
                x += i ^ x;
            }
        }
        return x;
    }

    /** A report that throws at its end: 20 ms of its thread's CPU, then {@code status} (500 unless told). */
    static final class FailsAfterItsWork extends HttpServlet {
        private final int status;

        FailsAfterItsWork(int status) {
            this.status = status;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if ("task".equals(req.getQueryString())) {
                burnCpuInTask(20);
            } else {
                burnCpu(20);
            }
            resp.sendError(status);
        }
    }

    /**
     * A front controller: forwards to the view its {@code view} parameter names, declaring the request heavy first
     * when the view is the report (20 ms of CPU); {@code view=unknown} declares a class that does not exist.
     */
    static final class FrontController extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
            String view = req.getParameter("view");
            if ("unknown".equals(view)) {
                resp.getWriter().write(Boolean.toString(Fairslice.classify("reports")));
                return;
            }
            if ("report".equals(view)) {
                Fairslice.classify("heavy");
            }
            req.getRequestDispatcher("/views/" + view).forward(req, resp);
        }
    }

    /** A view a front controller forwards to: the report uses 20 ms of CPU. */
    static final class View extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(req.getPathInfo().equals("/report") ? Long.toString(burnCpu(20)) : "view");
        }
    }

    /** Holds its thread (and the request's permit) until released; not a yield point in sight. */
    static final class Blocking extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        /** Whether the wait is declared to fairslice as a blocking call (Fairslice.blocking()), as a query would be. */
        private final boolean declared;

        Blocking() {
            this(false);
        }

        Blocking(boolean declared) {
            this.declared = declared;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (declared) {
                try (Fairslice.Blocking ignored = Fairslice.blocking()) {
                    await();
                }
            } else {
                await();
            }
            resp.getWriter().write("done");
        }

        private void await() {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static final class Async extends HttpServlet {
        final LinkedBlockingQueue<AsyncContext> started = new LinkedBlockingQueue<>();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            ac.setTimeout(30_000);
            started.add(ac);
        }
    }

    private static void complete(AsyncContext ac) throws IOException {
        ac.getResponse().getWriter().write("async done");
        ac.complete();
    }

    /** A null task or executor is refused where it is given, inside a request or not (not later, on a pool thread). */
    @Test
    void shouldRefuseANullTaskOrExecutorAtOnce() {
        assertThatNullPointerException().isThrownBy(() -> Fairslice.task(null))
                .withMessage("Fairslice.task(work): work is null");
        assertThatNullPointerException().isThrownBy(() -> Fairslice.executor(null))
                .withMessage("Fairslice.executor(executor): executor is null");
        assertThatNullPointerException()
                .isThrownBy(() -> Fairslice.holdingExecutor(null))
                .withMessage("Fairslice.holdingExecutor(executor): executor is null");
        // the Executor API calls it command: "work" named a parameter the caller never saw
        assertThatNullPointerException()
                .isThrownBy(() -> Fairslice.executor(Runnable::run).execute(null))
                .withMessage("Fairslice.executor(...).execute(command): command is null");
        assertThatNullPointerException()
                .isThrownBy(() -> Fairslice.holdingExecutor(Runnable::run).execute(null))
                .withMessage("Fairslice.holdingExecutor(...).execute(command): command is null");
    }

    @Test
    void shouldKeepReportingTheActivePolicyAfterGarbageCollection() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/policy", Map.of("fairslice.policy", "observe"), registry)
                .servlet("/x", new Text("hello"), false).start()) {
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            for (int i = 0; i < 3; i++) {
                System.gc(); // a gauge that holds its state weakly reads NaN once it is collected
            }
            assertThat(registry.get("fairslice.policy").tag("policy", "observe").gauge().value()).isEqualTo(1.0);
            assertThat(registry.get("fairslice.policy").tag("policy", "share").gauge().value()).isEqualTo(0.0);
        }
    }

    @Test
    void shouldServeAndRecordLatencyAndCpuByClassAndPage() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/record", Map.of("fairslice.rule.1", "heavy path=/slow/*"),
                registry).servlet("/fast", new Text("hello"), false).servlet("/slow/*", new Text("hello"), false)
                .servlet("/missing", new NotFound(), false).start()) {
            assertThat(t.get("/fast").statusCode()).isEqualTo(200);
            assertThat(t.get("/slow/17").body()).isEqualTo("hello");
            assertThat(t.get("/missing").statusCode()).isEqualTo(404);
            // the filter records after the response is complete, which may be after the client has read it
            // a path never served has no page of its own (a scan of 404s would take them all)
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "light", "page", "other",
                    "outcome", "client_error").timer().count()).isEqualTo(1));
            assertThat(registry.get("fairslice.requests").tags("class", "light", "page", "/fast", "outcome", "success")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page", "/slow/{n}", "outcome",
                    "success").timer().count()).isEqualTo(1);
            assertThat(registry.get("fairslice.requests.cpu")
                    .tags("class", "heavy", "page", "/slow/{n}").counter().count())
                    .isPositive();
        }
        assertThat(registry.find("fairslice.requests").meters()).as("meters removed with the application").isEmpty();
    }

    @Test
    void shouldClassifyOneRouteByAParameterOfItsQueryString() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/query", Map.of("fairslice.rule.1",
                "heavy path=/search query:scope=all"), registry).servlet("/search", new Text("hello"), false).start()) {
            assertThat(t.get("/search?q=shoes&scope=all").statusCode()).isEqualTo(200);
            assertThat(t.get("/search?q=shoes").statusCode()).isEqualTo(200);
            assertThat(t.get("/search?q=shoes&scope=al%6C").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("class", "heavy").timers().stream()
                    .mapToLong(Timer::count).sum()).as("scope=all, as sent and encoded").isEqualTo(2));
            assertThat(registry.find("fairslice.requests").tags("class", "light").timers().stream()
                    .mapToLong(Timer::count).sum()).isEqualTo(1);
        }
    }

    /**
     * An application's own registry in the servlet context attribute, of its own copy of Micrometer (in a standalone
     * Tomcat the bundle's is relocated), is ignored and said, naming the attribute, both classes' loaders and where
     * the meters go instead.
     */
    @Test
    void shouldWarnOfAMeterRegistryAttributeOfAnotherCopyOfMicrometer() throws Exception {
        List<URL> jars = new ArrayList<>();
        for (String type : List.of("io.micrometer.core.instrument.MeterRegistry", "io.micrometer.common.KeyValue",
                "io.micrometer.observation.Observation", "org.HdrHistogram.Histogram")) {
            jars.add(Class.forName(type).getProtectionDomain().getCodeSource().getLocation());
        }
        List<String> logged;
        try (URLClassLoader war = new URLClassLoader("war", jars.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader()); LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            Object registry = war.loadClass(SimpleMeterRegistry.class.getName()).getConstructor().newInstance();
            try (EmbeddedTomcat t = new EmbeddedTomcat("/foreign", Map.of(), registry)
                    .servlet("/hello", new Text("hello"), false).start()) {
                assertThat(t.get("/hello").statusCode()).isEqualTo(200);
            }
            logged = log.lines();
        }
        assertThat(logged).filteredOn(l -> l.startsWith("WARNING")).singleElement().asString()
                .startsWith("WARNING fairslice[/foreign]: the servlet context attribute io.fairslice.meterRegistry"
                        + " holds io.micrometer.core.instrument.simple.SimpleMeterRegistry (loaded by"
                        + " java.net.URLClassLoader 'war'), a MeterRegistry of another copy of Micrometer (fairslice's"
                        + " is io.micrometer.core.instrument.MeterRegistry (loaded by ")
                .endsWith("), so it is ignored: fairslice's meters go to Micrometer's global registry instead"
                        + " (docs/tomcat.md)");
    }

    /** An attribute that is no registry at all is said too; none there, or this Micrometer's, is said nothing. */
    @Test
    void shouldWarnOfAMeterRegistryAttributeThatIsNoRegistry() {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            FairsliceFilter.warnForeignRegistry(null, "/shop");
            FairsliceFilter.warnForeignRegistry(new SimpleMeterRegistry(), "/shop");
            assertThat(log.lines()).isEmpty();
            FairsliceFilter.warnForeignRegistry("prometheus", "/shop");
            logged = log.lines();
        }
        assertThat(logged).singleElement().asString().startsWith("WARNING fairslice[/shop]: the servlet context"
                + " attribute io.fairslice.meterRegistry holds java.lang.String (loaded by the JVM's bootstrap class"
                + " loader), no MeterRegistry (fairslice's is io.micrometer.core.instrument.MeterRegistry (loaded by ")
                .endsWith("), so it is ignored: fairslice's meters go to Micrometer's global registry instead"
                        + " (docs/tomcat.md)");
    }

    /** A header rule reads every value of a header sent more than once, not the first alone (getHeader). */
    @Test
    void shouldClassifyByAnyValueOfAHeaderSentMoreThanOnce() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/headers", Map.of("fairslice.rule.1", "heavy header:X-Tier=batch"),
                registry).servlet("/work", new Text("hello"), false).start()) {
            assertThat(t.getWithHeaders("/work", "X-Tier", "web", "X-Tier", "batch").statusCode()).isEqualTo(200);
            assertThat(t.getWithHeaders("/work", "X-Tier", "web").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("class", "heavy").timers().stream()
                    .mapToLong(Timer::count).sum()).as("batch on the second line").isEqualTo(1));
            assertThat(registry.find("fairslice.requests").tags("class", "light").timers().stream()
                    .mapToLong(Timer::count).sum()).isEqualTo(1);
        }
    }

    @Test
    void shouldChargeTheCollectorsPausesToTheClassWhosePagesMadeTheGarbage() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/gc", Map.of("fairslice.rule.1", "heavy path=/garbage",
                "fairslice.cpu.sample-interval", "0ns"), registry).servlet("/garbage", new Garbage(), false)
                .servlet("/x", new Text("hello"), false).start()) {
            ClassState light = t.filter().scheduler().classState(0);
            ClassState heavy = t.filter().scheduler().classState(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // a pause can read 0 ms (the collectors report milliseconds), and a request completes just after its
            // response: make garbage and collect until a pause is charged. Only heavy pages run: which pause is
            // charged to whom when both classes allocate is SchedulerTest's (a pause's notification comes after it,
            // so a young collection a page's own allocation triggers is charged with the bytes of the pause before)
            while (heavy.gcNanos() == 0 && System.nanoTime() < deadline) {
                assertThat(t.get("/garbage").statusCode()).isEqualTo(200);
                Thread.sleep(50);
                System.gc();
                Thread.sleep(100);
            }
            assertThat(heavy.gcNanos()).as("pause time charged to the class that allocated").isPositive();
            assertThat(heavy.allocatedBytes()).isGreaterThanOrEqualTo(64L << 20);
            assertThat(light.allocatedBytes()).isZero();
            assertThat(light.gcNanos()).as("a class that allocated nothing pays nothing").isZero();
            assertThat(registry.get("fairslice.class.gc").tags("class", "heavy").functionCounter().count())
                    .isPositive();
        }
    }

    /**
     * A page that fails on every request after 20 ms of work: before, it never joined the route table (no request
     * served), stayed under {@code other}, which does not learn, and ran in the light class whatever it cost. So did
     * one whose work is its task's on another thread (Fairslice.task): its failure was judged without the task's CPU.
     */
    @Test
    void shouldLearnAPageThatFailsAfterItsWorkAsHeavyUnderItsOwnPageTag() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/fails", Map.of("fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/report", new FailsAfterItsWork(500), false).servlet("/missing", new NotFound(), false)
                .servlet("/guarded/*", new FailsAfterItsWork(404), false)
                .servlet("/export", new FailsAfterItsWork(500), false).start()) {
            for (int i = 0; i < 5; i++) {
                assertThat(t.get("/report").statusCode()).isEqualTo(500);
                assertThat(t.get("/export?task").statusCode()).isEqualTo(500);
                assertThat(t.get("/missing").statusCode()).isEqualTo(404);
                assertThat(t.get("/guarded/slug-" + i).statusCode()).isEqualTo(404);
            }
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/report", "class", "heavy",
                    "outcome", "server_error").timer()).as("learnt heavy, under its own page").isNotNull());
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/export", "class", "heavy",
                    "outcome", "server_error").timer()).as("its task's work counted: it joins the table and learns")
                    .isNotNull());
            assertThat(registry.find("fairslice.requests").tags("page", "/missing").timers())
                    .as("a cheap failure still takes no place").isEmpty();
            assertThat(t.filter().classifier().routes().size())
                    .as("a 404 after 20 ms of work (a rendered not-found page) is no page either: a scan of slugs"
                            + " takes no place").isEqualTo(2);
        }
    }

    /**
     * Rules and routes see the client's URL, never a forward's target: a front controller declares the class of the
     * request it forwards to an expensive view (Fairslice.classify). Its route learns nothing from such requests, so
     * the controller's cheap views stay light.
     */
    @Test
    void shouldRunARequestInTheClassTheApplicationDeclaresAndNotLearnItsRouteFromIt() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/mvc", Map.of("fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/front", new FrontController(), false).servlet("/views/*", new View(), false).start()) {
            for (int i = 0; i < 5; i++) {
                assertThat(t.get("/front?view=report").statusCode()).isEqualTo(200);
            }
            for (int i = 0; i < 5; i++) {
                assertThat(t.get("/front?view=list").body()).isEqualTo("view");
            }
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("page", "/front", "class", "light",
                    "outcome", "success").timer().count()).isEqualTo(5));
            assertThat(registry.get("fairslice.requests").tags("page", "/front", "class", "heavy", "outcome", "success")
                    .timer().count())
                    .as("declared heavy, counted under the page the client asked for").isEqualTo(5);
            assertThat(t.filter().classifier().route("/front").heavy())
                    .as("its route learnt only from the five cheap views").isFalse();
            try (LogCapture log = LogCapture.of(Scheduler.class)) {
                assertThat(t.get("/front?view=unknown").body()).as("no such class: a hint, not a failure")
                        .isEqualTo("false");
                assertThat(t.get("/front?view=unknown").statusCode()).isEqualTo(200);
                assertThat(log.lines()).as("said once").containsExactly("WARNING fairslice[/mvc]:"
                        + " Fairslice.classify(\"reports\") names no class; the classes are [light, heavy]: the"
                        + " request stays in light");
            }
        }
    }

    /**
     * A rule or route written with the context path matches only paths that repeat it: said at startup, with the fix.
     */
    @Test
    void shouldWarnOfARulePathThatStartsWithTheApplicationsContextPath() {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            FairsliceConfig config = FairsliceConfig.parse(Map.of("rule.5", "heavy path=/shop/export/**",
                    "rule.6", "heavy path=/export/**", "rule.7", "heavy path=/shop", "route.1", "/shop/products/*",
                    "route.2", "/products/*", "route.3", "/shopping/*"));
            FairsliceFilter.warnRules(config.rules(), "/shop", "/shop");
            FairsliceFilter.warnContextPathRoutes(config, "/shop", "/shop");
            FairsliceFilter.warnRules(config.rules(), "/", "/");
            FairsliceFilter.warnContextPathRoutes(config, "/", "/");
            logged = log.lines();
        }
        assertThat(logged).containsExactly("WARNING fairslice[/shop]: rule.5=heavy path=/shop/export/**:"
                        + " path=/shop/export/** starts with this application's context path /shop, but rules match"
                        + " the path inside the application, so it matches /shop/shop/export/** only; did you mean"
                        + " path=/export/**?",
                "WARNING fairslice[/shop]: rule.7=heavy path=/shop: path=/shop starts with this application's"
                        + " context path /shop, but rules match the path inside the application, so it matches"
                        + " /shop/shop only; did you mean path=/?",
                "WARNING fairslice[/shop]: route.1=/shop/products/* starts with this application's context path"
                        + " /shop, but routes match the path inside the application, so it matches"
                        + " /shop/shop/products/* only; did you mean route.1=/products/*?");
    }

    /** A rule's method name that no HTTP registry knows is most likely a typo: said at startup, not refused. */
    @Test
    void shouldWarnOfARuleMethodNameThatNoRegistryKnows() {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            FairsliceConfig config = FairsliceConfig.parse(Map.of("rule.5", "heavy path=/reports/** method=GTE|head",
                    "rule.6", "heavy method=PROPFIND|M-SEARCH|purge|Patch|QUERY", "rule.7",
                    "heavy path=/x method=PSOT|FETCH|GET"));
            FairsliceFilter.warnRules(config.rules(), "/shop", "/shop");
            logged = log.lines();
        }
        assertThat(logged).containsExactly("WARNING fairslice[/shop]: rule.5=heavy path=/reports/** method=GTE|head:"
                        + " method GTE is no HTTP method this filter knows, so the rule matches no request of it unless"
                        + " the application serves such a method; a typo of GET, POST, PUT, DELETE or PATCH?",
                "WARNING fairslice[/shop]: rule.7=heavy path=/x method=PSOT|FETCH|GET: method FETCH, PSOT are no HTTP"
                        + " method this filter knows, so the rule matches no request of them unless the application"
                        + " serves such a method; a typo of GET, POST, PUT, DELETE or PATCH?");
    }

    /** A rule or adaptive class changed through JMX is warned of as at startup; what the change kept is not again. */
    @Test
    void shouldWarnOfWhatAChangeThroughJmxBrings() throws Exception {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
                EmbeddedTomcat t = new EmbeddedTomcat("/jmx-warn", Map.of("fairslice.classes", "interactive,batch",
                        "fairslice.default-class", "interactive", "fairslice.rule.1", "batch method=PSOT"),
                        new SimpleMeterRegistry()).servlet("/x", new Text("hello"), false).start()) {
            var server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.fairslice:type=Fairslice,application="
                    + ObjectName.quote("/jmx-warn"));
            String[] signature = {"java.lang.String", "java.lang.String"};
            log.clear(); // startup's warnings, rule.1's included
            server.invoke(name, "set", new Object[] {"rule.2", "batch path=/jmx-warn/export/**"}, signature);
            server.invoke(name, "set", new Object[] {"class.batch.share", "10"}, signature);
            server.invoke(name, "set", new Object[] {"rule.1", "batch method=PSOT|GTE"}, signature);
            server.invoke(name, "set", new Object[] {"adaptive.class", "interactive"}, signature);
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            logged = log.lines();
        }
        assertThat(logged).filteredOn(l -> l.startsWith("WARNING")).containsExactly(
                "WARNING fairslice[/jmx-warn]: rule.2=batch path=/jmx-warn/export/**: path=/jmx-warn/export/** starts"
                        + " with this application's context path /jmx-warn, but rules match the path inside the"
                        + " application, so it matches /jmx-warn/jmx-warn/export/** only; did you mean"
                        + " path=/export/**?",
                "WARNING fairslice[/jmx-warn]: rule.1=batch method=PSOT|GTE: method GTE, PSOT are no HTTP method this"
                        + " filter knows, so the rule matches no request of them unless the application serves such a"
                        + " method; a typo of GET, POST, PUT, DELETE or PATCH?",
                "WARNING fairslice[/jmx-warn]: adaptive.class and default-class are both 'interactive', so the"
                        + " adaptive mode moves no page: set adaptive.class to the class expensive pages go to, or"
                        + " adaptive=false");
    }

    /** The adaptive mode into the default class moves nothing: said at startup; one class alone is that way. */
    @Test
    void shouldWarnWhenTheAdaptiveClassIsTheDefaultClass() {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            FairsliceFilter.warnAdaptiveIntoDefault(FairsliceConfig.parse(Map.of("classes", "interactive,batch",
                    "default-class", "batch")), "/shop");
            FairsliceFilter.warnAdaptiveIntoDefault(FairsliceConfig.parse(Map.of("classes", "interactive,batch",
                    "default-class", "batch", "adaptive", "false")), "/shop");
            FairsliceFilter.warnAdaptiveIntoDefault(FairsliceConfig.parse(Map.of("classes", "light")), "/shop");
            FairsliceFilter.warnAdaptiveIntoDefault(FairsliceConfig.parse(Map.of()), "/shop");
            logged = log.lines();
        }
        assertThat(logged).containsExactly("WARNING fairslice[/shop]: adaptive.class and default-class are both"
                + " 'batch', so the adaptive mode moves no page: set adaptive.class to the class expensive pages go"
                + " to, or adaptive=false");
    }

    /**
     * A WAR's Spring Boot property files set fairslice.* keys, but it lacks fairslice-spring-boot, which alone hands
     * them to the filter: the filter runs without them, and says so, naming the files, the keys and the ways out (it
     * went unsaid). A warning, not a failure: the keys may be for a profile that is not active.
     */
    @Test
    void shouldWarnOfFairsliceKeysInTheApplicationsBootPropertiesThatNothingHandsToTheFilter() throws Exception {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/boot-war", Map.of(), null)
                .file("WEB-INF/classes/application.properties", "spring.application.name=shop",
                        "fairslice.policy=observe", "fairslice.rule.1=heavy path=/reports/**",
                        "fairslice.adaptive=false", "fairslice.class.heavy.share=10", "fairslice.jmx=false")
                .file("WEB-INF/classes/config/application-prod.yml", "spring:", "  application:", "    name: shop",
                        "fairslice:", "  policy: share")
                .servlet("/x", new Text("hello"), false)) {
            t.start();
            assertThat(t.get("/x").body()).as("served: a warning, not a failure").isEqualTo("hello");
            logged = log.lines();
        }
        assertThat(logged).anyMatch(line -> line.startsWith("WARNING fairslice[/boot-war]:"
                + " /WEB-INF/classes/application.properties sets fairslice.policy, fairslice.rule.1,"
                + " fairslice.adaptive and 2 more, and /WEB-INF/classes/config/application-prod.yml sets"
                + " fairslice.policy,") && line.contains("io.fairslice:fairslice-spring-boot")
                && line.contains("conf/fairslice.properties") && line.contains("context parameters"));
    }

    /**
     * Declared in web.xml without async support, the filter turns async off for the servlets behind it, which fail
     * as they start an async request, and Tomcat blames the servlet: the filter says so, once, as requests arrive.
     */
    @Test
    void shouldWarnOnceWhenRequestsReachItWithoutAsyncSupport() throws Exception {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/no-async", Map.of(), null).declaredFilter(false)
                .servlet("/x", new Text("hello"), true)) {
            t.start();
            assertThat(t.get("/x").body()).isEqualTo("hello");
            assertThat(t.get("/x").body()).isEqualTo("hello");
            logged = log.lines();
        }
        assertThat(logged.stream().filter(line -> line.contains("without async support"))).singleElement()
                .asString().startsWith("WARNING fairslice[/no-async]: a request reached the fairslice filter"
                        + " without async support: its web.xml declaration, or a filter before it, lacks"
                        + " <async-supported>true</async-supported>");

        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/async", Map.of(), null).declaredFilter(true)
                .servlet("/x", new Text("hello"), true)) {
            t.start();
            assertThat(t.get("/x").body()).isEqualTo("hello");
            assertThat(log.lines()).as("declared with async support")
                    .noneMatch(line -> line.contains("without async support"));
        }
    }

    /**
     * A web.xml mapping that lists ERROR, FORWARD and INCLUDE besides REQUEST and ASYNC. A filter before fairslice
     * answers some requests itself: a 403 (its error page rendered by an ERROR dispatch), a forward to its login page,
     * an include. Their REQUEST dispatch never reached fairslice, so those dispatches came without a ticket and were
     * each admitted as a request of its own: counted, and, their class full, answered 503 in place of the error page
     * and the login page (the include's 503 text inside a 200). They pass through. An error page of a request fairslice
     * admitted passes through as before, the request counted once.
     */
    @Test
    void shouldPassErrorForwardAndIncludeDispatchesOfARequestItNeverAdmittedStraightThrough() throws Exception {
        Blocking blocking = new Blocking();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Filter guard = (req, res, chain) -> {
            switch (((HttpServletRequest) req).getServletPath()) {
                case "/private" -> ((HttpServletResponse) res).sendError(403);
                case "/account" -> req.getRequestDispatcher("/login").forward(req, res);
                case "/banner" -> req.getRequestDispatcher("/fragment").include(req, res);
                default -> chain.doFilter(req, res);
            }
        };
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/dispatches", Map.of("fairslice.class.light.max-concurrency", "1",
                "fairslice.class.light.queue-size", "0"), registry)
                .applicationFilter("guard", guard).declaredFilter(true, "REQUEST", "ASYNC", "ERROR", "FORWARD",
                        "INCLUDE")
                .servlet("/", new Text("hello"), true) // what the guard answers itself: Tomcat's mapper needs a servlet
                .servlet("/block", blocking, true).servlet("/missing", new NotFound(), true)
                .servlet("/denied", new Text("denied page"), true)
                .servlet("/not-found", new Text("not found page"), true)
                .servlet("/login", new Text("login page"), true).servlet("/fragment", new Text("fragment"), true)) {
            var forbidden = new ErrorPage();
            forbidden.setErrorCode(403);
            forbidden.setLocation("/denied");
            t.context.addErrorPage(forbidden);
            var notFound = new ErrorPage();
            notFound.setErrorCode(404);
            notFound.setLocation("/not-found");
            t.context.addErrorPage(notFound);
            t.start();
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/block"));
            assertThat(blocking.entered.await(10, TimeUnit.SECONDS)).as("light's one permit held").isTrue();

            HttpResponse<String> denied = t.get("/private");
            assertThat(denied.statusCode()).isEqualTo(403);
            assertThat(denied.body()).isEqualTo("denied page");
            HttpResponse<String> login = t.get("/account");
            assertThat(login.statusCode()).isEqualTo(200);
            assertThat(login.body()).isEqualTo("login page");
            assertThat(t.get("/account").body()).isEqualTo("login page");
            assertThat(log.lines()).as("the unscheduled forward, said once").filteredOn(l -> l.contains("FORWARD"))
                    .containsExactly("INFO fairslice[/dispatches]: a FORWARD dispatch (to /login) of a request"
                            + " fairslice did not admit runs unscheduled and uncounted (said once): a login or denied"
                            + " page is expected; if a filter mapped before fairslice forwards requests (URL"
                            + " rewriting), map fairslice before it (docs/configuration.md)");
            HttpResponse<String> banner = t.get("/banner");
            assertThat(banner.statusCode()).isEqualTo(200);
            assertThat(banner.body()).isEqualTo("fragment");

            blocking.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            HttpResponse<String> missing = t.get("/missing");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.body()).isEqualTo("not found page");
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "light", "page", "other",
                    "outcome", "client_error").timer().count()).as("the 404, once").isEqualTo(1));
            eventually(() -> assertThat(registry.find("fairslice.requests").timers().stream()
                    .mapToLong(Timer::count).sum()).as("the two requests fairslice admitted, and nothing else")
                    .isEqualTo(2));
            assertThat(t.filter().scheduler().classState(0).rejections(
                    Scheduler.REJECTED_QUEUE_FULL)).isZero();
        }
    }

    /**
     * The line that says a FORWARD of a request fairslice never admitted runs unscheduled names the path it goes to,
     * which a URL-rewriting filter (the case the line is for) takes from the client's path: decoded, a {@code %0A} in
     * it was a line break that started a forged log line. Percent-encoded as the route keys of the log and the JMX
     * listing are ({@code RouteTable.printable}).
     */
    @Test
    void shouldNotLetAClientsPathBreakTheLineThatSaysAForwardRunsUnscheduled() throws Exception {
        Filter rewrite = (req, res, chain) -> {
            HttpServletRequest r = (HttpServletRequest) req;
            String rest = r.getRequestURI().substring(r.getContextPath().length());
            if (rest.startsWith("/app/")) {
                chain.doFilter(req, res);
            } else {
                req.getRequestDispatcher("/app" + rest).forward(req, res); // as sent: the dispatcher decodes it
            }
        };
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/rewrite", Map.of(), new SimpleMeterRegistry())
                     .applicationFilter("rewrite", rewrite).declaredFilter(true, "REQUEST", "ASYNC", "FORWARD")
                     .servlet("/", new Text("root"), false).servlet("/app/*", new Text("page"), false).start()) {
            HttpResponse<String> page = t.get("/p%0AWARNING%20forged");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).isEqualTo("page");
            assertThat(log.lines()).filteredOn(l -> l.contains("FORWARD")).singleElement()
                    .satisfies(l -> assertThat(l).doesNotContain("\n").contains("(to /app/p%0AWARNING%20forged)"));
        }
    }

    /**
     * An application whose filter "guard", before fairslice, answers /outer outside it: it starts the async cycle,
     * writes {@code head} first (flushed: the response committed with 200) unless it is empty, and dispatches the
     * request to /inner, where fairslice sees it first. Light, /inner's class, runs one request (/block), queues none.
     */
    private static EmbeddedTomcat dispatchingOutside(String contextPath, String head, Blocking blocking,
            SimpleMeterRegistry registry) throws Exception {
        Filter guard = (req, res, chain) -> {
            if (((HttpServletRequest) req).getServletPath().equals("/outer")) {
                AsyncContext async = req.startAsync();
                if (!head.isEmpty()) {
                    res.getWriter().write(head);
                    res.flushBuffer();
                }
                async.dispatch("/inner");
            } else {
                chain.doFilter(req, res);
            }
        };
        return new EmbeddedTomcat(contextPath, Map.of("fairslice.class.light.max-concurrency", "1",
                "fairslice.class.light.queue-size", "0"), registry)
                .applicationFilter("guard", guard).declaredFilter(true)
                .servlet("/", new Text("hello"), true) // /outer, answered by the guard: the mapper needs a servlet
                .servlet("/block", blocking, true).servlet("/inner", new Text("inner"), true);
    }

    /**
     * An ASYNC dispatch of a request fairslice never admitted (a filter before it started the async cycle and
     * dispatched it on) is admitted then, as a request of its own: served and counted once while its class has room,
     * answered 503 with a Retry-After and counted as rejected while its class is full.
     */
    @Test
    void shouldAdmitAnAsyncDispatchOfARequestItNeverAdmitted() throws Exception {
        Blocking blocking = new Blocking();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = dispatchingOutside("/async-dispatch", "", blocking, registry)) {
            t.start();
            HttpResponse<String> served = t.get("/outer");
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(served.body()).isEqualTo("inner");
            eventually(() -> assertThat(registry.find("fairslice.requests").timers().stream()
                    .mapToLong(Timer::count).sum()).as("the async dispatch, once").isEqualTo(1));

            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/block"));
            assertThat(blocking.entered.await(10, TimeUnit.SECONDS)).as("light's one permit held").isTrue();
            HttpResponse<String> refused = t.get("/outer");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            blocking.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

            assertThat(t.filter().scheduler().classState(0).rejections(
                    Scheduler.REJECTED_QUEUE_FULL)).isEqualTo(1);
            eventually(() -> assertThat(registry.find("fairslice.requests").timers().stream()
                    .mapToLong(Timer::count).sum()).as("served, held, refused").isEqualTo(3));
        }
    }

    /**
     * The same when the page that started the async cycle had sent part of its answer (the response committed with 200)
     * before it dispatched: a 503 can no longer reach the client. While the class was full the dispatch was counted as
     * rejected and its 503 text ended the page the client had under 200. It goes on unscheduled and uncounted, said
     * once.
     */
    @Test
    void shouldPassThroughAnAsyncDispatchOfARequestItNeverAdmittedWhoseResponseIsCommitted() throws Exception {
        Blocking blocking = new Blocking();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = dispatchingOutside("/async-committed", "head ", blocking, registry)) {
            t.start();
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/block"));
            assertThat(blocking.entered.await(10, TimeUnit.SECONDS)).as("light's one permit held").isTrue();
            HttpResponse<String> passed = t.get("/outer");
            assertThat(passed.statusCode()).isEqualTo(200);
            assertThat(passed.body()).isEqualTo("head inner");
            assertThat(t.get("/outer").body()).as("and again").isEqualTo("head inner");
            blocking.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

            assertThat(t.filter().scheduler().classState(0).rejections(
                    Scheduler.REJECTED_QUEUE_FULL)).isZero();
            eventually(() -> assertThat(registry.find("fairslice.requests").timers().stream()
                    .mapToLong(Timer::count).sum()).as("the held one only").isEqualTo(1));
            assertThat(log.lines()).filteredOn(l -> l.contains("ASYNC dispatch")).singleElement()
                    .satisfies(l -> assertThat(l).contains("(to /inner)").contains("response committed"));
        }
    }

    /** Spring Boot property files without fairslice.* keys (one nested under another key) are no one's business. */
    @Test
    void shouldNotWarnOfTheApplicationsBootPropertiesWithoutFairsliceKeys() throws Exception {
        List<String> logged;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/boot-quiet", Map.of(), null)
                .file("WEB-INF/classes/application.properties", "spring.application.name=shop",
                        "shop.fairslice.policy=observe", "# fairslice.policy=observe")
                .file("WEB-INF/classes/application.yml", "shop:", "  fairslice:", "    policy: observe",
                        "# fairslice:")
                .servlet("/x", new Text("hello"), false)) {
            t.start();
            assertThat(t.get("/x").body()).isEqualTo("hello");
            logged = log.lines();
        }
        assertThat(logged).anyMatch(line -> line.startsWith("INFO fairslice[/boot-quiet]: started (settings: defaults"
                        + " only), FairsliceConfig{"))
                .noneMatch(line -> line.contains("application.properties") || line.contains("application.yml"));
    }

    /**
     * A vulnerability scan (5 x routes.max distinct URLs that answer 404, as the container's default servlet does
     * for files that do not exist) before an expensive page is first reached: the page still gets a route of its own,
     * is learnt heavy and has its own page tag; the scan took no route.
     */
    @Test
    void shouldLearnAPageFirstReachedAfterAScanOfNotFoundUrlsAndGiveItItsOwnPageTag() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/scanned", Map.of("fairslice.routes.max", "100",
                "fairslice.routes.max-pages", "10", "fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/", new NotFound(), false).servlet("/reports/yearly", new Expensive(), false).start()) {
            for (int i = 0; i < 500; i++) {
                assertThat(t.get("/scan/p" + i + "x.php").statusCode()).isEqualTo(404);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            }
            var routes = t.filter().classifier().routes();
            eventually(() -> assertThat(routes.size()).as("routes in the table: the page, none of the scan")
                    .isEqualTo(1));
            Route report = t.filter().classifier().route("/reports/yearly");
            assertThat(report.page()).isEqualTo("/reports/yearly");
            eventually(() -> assertThat(report.heavy()).as("three requests of 20 ms CPU measured").isTrue());
            assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page",
                    "/reports/yearly", "outcome", "success").timer().count()).isEqualTo(1));
            assertThat(registry.get("fairslice.requests").tags("class", "light", "page", "other", "outcome",
                    "client_error").timer().count()).isEqualTo(500);
            assertThat(registry.get("fairslice.classify.routes.overflow").functionCounter().count())
                    .as("no served page was refused").isZero();
            assertThat(routes.candidates()).as("nothing held once no request is in flight").isZero();
            assertThat(registry.find("fairslice.requests").meters().stream().map(m -> m.getId().getTag("page"))
                    .distinct()).containsExactlyInAnyOrder("other", "/reports/yearly");
        }
    }

    /**
     * A crawl of slugs that all answer 200 fills the route table; an expensive page first reached after it takes the
     * place of a crawled route once those have had no request for routes.evict-after, and is learnt heavy.
     */
    @Test
    void shouldLearnAPageFirstReachedAfterACrawlOfServedSlugsFilledTheRouteTable() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/crawled", Map.of("fairslice.routes.max", "20",
                "fairslice.routes.max-pages", "5", "fairslice.routes.evict-after", "1s",
                "fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/", new Text("hello"), false).servlet("/reports/yearly", new Expensive(), false).start()) {
            for (int i = 0; i < 200; i++) {
                assertThat(t.get("/articles/slug-" + Integer.toString(i + 100, 26).replace('0', 'z')).statusCode())
                        .isEqualTo(200);
            }
            var routes = t.filter().classifier().routes();
            assertThat(routes.size()).isEqualTo(20);
            // each crawled page beyond the table's 20 overflowed, or took the place of a crawled one idle for 1 s
            eventually(() -> assertThat(routes.overflowCount() + routes.evictionCount()).isEqualTo(180));
            double evictedByTheCrawl = registry.get("fairslice.classify.routes.evicted").functionCounter().count();
            Thread.sleep(1_100); // the crawl's routes idle for routes.evict-after
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(routes.routes()).extracting(Route::key).contains("/reports/yearly"));
            Route report = t.filter().classifier().route("/reports/yearly");
            eventually(() -> assertThat(report.heavy()).as("three requests of 20 ms CPU measured").isTrue());
            assertThat(routes.size()).isEqualTo(20);
            assertThat(registry.get("fairslice.classify.routes.evicted").functionCounter().count())
                    .isEqualTo(evictedByTheCrawl + 1);
            assertThat(routes.routes()).extracting(Route::page).as("the page tags stay the first five pages'")
                    .filteredOn(page -> !page.equals("other")).hasSize(5).doesNotContain("/reports/yearly");
        }
    }

    /**
     * The same scan sent as OPTIONS, which Tomcat's default servlet answers 200 for files that do not exist: the scan
     * is measured and counted under page other, and takes no route; the page reached after it gets its own.
     */
    @Test
    void shouldLearnAPageFirstReachedAfterAScanOfOptionsRequestsThatTheContainerAnswersForAnyPath() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/optionsscan", Map.of("fairslice.routes.max", "100",
                "fairslice.routes.max-pages", "10", "fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/", new DefaultServlet(), false).servlet("/reports/yearly", new Expensive(), false).start()) {
            for (int i = 0; i < 500; i++) {
                assertThat(t.send("OPTIONS", "/scan/p" + i + "x.php").statusCode())
                        .as("the default servlet answers OPTIONS on a file that does not exist").isEqualTo(200);
            }
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            }
            var routes = t.filter().classifier().routes();
            eventually(() -> assertThat(routes.size()).as("routes in the table: the page, none of the scan")
                    .isEqualTo(1));
            assertThat(t.filter().classifier().route("/reports/yearly").page()).isEqualTo("/reports/yearly");
            assertThat(registry.get("fairslice.classify.routes.overflow").functionCounter().count()).isZero();
            assertThat(registry.get("fairslice.requests").tags("class", "light", "page", "other", "outcome",
                    "success").timer().count()).as("the scan's requests, measured and counted").isEqualTo(500);
            eventually(() -> assertThat(routes.candidates()).isZero());
        }
    }

    /**
     * A CORS preflight (OPTIONS) before each call to an expensive page of another origin is answered by the servlet
     * API without running the page: it teaches the route nothing, or the cheap preflights would make the page light.
     */
    @Test
    void shouldNotLearnARouteFromOptionsRequestsAnsweredWithoutItsPage() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/preflight", Map.of("fairslice.adaptive.min-samples", "3",
                "fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/reports/yearly", new Expensive(), false).start()) {
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            }
            Route route = t.filter().classifier().route("/reports/yearly");
            eventually(() -> assertThat(route.samples()).isEqualTo(3));
            assertThat(route.heavy()).as("20 ms of CPU per request").isTrue();
            for (int i = 0; i < 60; i++) { // at alpha 0.05, 45 samples of a preflight would take 20 ms under 2 ms
                assertThat(t.send("OPTIONS", "/reports/yearly").statusCode()).isEqualTo(200);
            }
            assertThat(t.get("/reports/yearly").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(route.samples()).as("the GET after them, none of them").isEqualTo(4));
            assertThat(route.heavy()).isTrue();
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("page", "/reports/yearly").timers()
                    .stream().mapToLong(Timer::count).sum()).as("the preflights counted all the same").isEqualTo(64));
        }
    }

    /**
     * Reports of 20 ms at {@code /reports/{n}}: a report that does not exist is a cheap 404, a client without
     * credentials a cheap 401. Such failures teach the route nothing, or a client sending many of them (most
     * measurements, at one per cpu.sample-interval) would make the heavy reports light; a report that fails after its
     * work still teaches.
     */
    @Test
    void shouldNotLearnARouteFromItsCheapFailures() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/cheapfail", Map.of("fairslice.adaptive.min-samples", "3",
                "fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/reports/*", new Reports(), false).start()) {
            for (int i = 0; i < 3; i++) {
                assertThat(t.get("/reports/" + (i + 1)).statusCode()).isEqualTo(200);
            }
            Route route = t.filter().classifier().route("/reports/1");
            eventually(() -> assertThat(route.samples()).isEqualTo(3));
            assertThat(route.heavy()).as("20 ms of CPU per request").isTrue();
            for (int i = 0; i < 60; i++) { // more than the 45 (alpha 0.05) or 11 (alpha 0.2) that take 20 ms under 2 ms
                assertThat(t.get("/reports/999999").statusCode()).isEqualTo(404);
                assertThat(t.get("/reports/" + i + "?anonymous").statusCode()).isEqualTo(401);
            }
            assertThat(t.get("/reports/4?fail").statusCode()).isEqualTo(500);
            eventually(() -> assertThat(route.samples()).as("the costly 500, none of the cheap failures")
                    .isEqualTo(4));
            assertThat(t.get("/reports/5?taskfail").statusCode()).isEqualTo(500);
            eventually(() -> assertThat(route.samples()).as("a 500 after its task's work: costly with the task's CPU")
                    .isEqualTo(5));
            assertThat(route.heavy()).isTrue();
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("page", "/reports/{n}").timers()
                    .stream().mapToLong(Timer::count).sum()).as("the failures counted all the same").isEqualTo(125));
        }
    }

    /**
     * {@code /reports/<n>}: 20 ms of CPU; a cheap 404 for 999999, a cheap 401 with {@code ?anonymous}, a 500 after its
     * work with {@code ?fail}, and after the work of its task on another thread ({@code Fairslice.task}) with
     * {@code ?taskfail}.
     */
    static final class Reports extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if ("/999999".equals(req.getPathInfo())) {
                resp.sendError(404);
            } else if ("anonymous".equals(req.getQueryString())) {
                resp.sendError(401);
            } else if ("taskfail".equals(req.getQueryString())) {
                burnCpuInTask(20);
                resp.sendError(500);
            } else {
                long x = burnCpu(20);
                if ("fail".equals(req.getQueryString())) {
                    resp.sendError(500);
                } else {
                    resp.getWriter().write(Long.toString(x));
                }
            }
        }
    }

    /**
     * A catalogue whose product pages differ by slug, which the normalisation keeps: each product seen once is a
     * route of its own that never has enough samples to learn; with {@code route.1 = /products/*} they are one route,
     * learnt heavy from different products, and a product never requested before runs heavy from its first request.
     */
    @Test
    void shouldLearnAConfiguredRouteFromAllThePathsItMatches() throws Exception {
        for (boolean configured : new boolean[] {false, true}) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            Map<String, String> keys = new HashMap<>(Map.of("fairslice.adaptive.min-samples", "3"));
            if (configured) {
                keys.put("fairslice.route.1", "/products/*");
            }
            try (EmbeddedTomcat t = new EmbeddedTomcat("/catalogue" + configured, keys, registry)
                    .servlet("/products/*", new Expensive(), false).start()) {
                for (String product : List.of("blue-kettle", "red-kettle", "green-kettle", "steel-kettle")) {
                    assertThat(t.get("/products/" + product).statusCode()).isEqualTo(200);
                }
                assertThat(t.get("/products/copper-kettle").statusCode()).isEqualTo(200);
                eventually(() -> assertThat(registry.find("fairslice.requests").tag("outcome", "success").timers()
                        .stream().mapToLong(Timer::count).sum()).isEqualTo(5));
                var heavy = registry.find("fairslice.requests").tags("class", "heavy", "outcome", "success").timer();
                if (configured) {
                    assertThat(t.filter().classifier().routes().size()).isEqualTo(1);
                    assertThat(heavy).as("the fourth and fifth products, the fifth never requested before").isNotNull();
                    assertThat(heavy.getId().getTag("page")).isEqualTo("/products/*");
                    assertThat(heavy.count()).isEqualTo(2);
                } else {
                    assertThat(t.filter().classifier().routes().size()).isEqualTo(5);
                    assertThat(heavy).as("each product a route of one request: none learnt").isNull();
                }
            }
        }
    }

    /**
     * Routes beyond routes.max-pages are tagged page="other": they record into one set of meters, the shared route's,
     * instead of each holding its own references to the same meters (5 per class and route, up to 100 000 routes).
     */
    @Test
    void shouldRecordEveryRouteTaggedOtherIntoOneSetOfMeters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/others", Map.of("fairslice.routes.max-pages", "1"), registry)
                .servlet("/p/*", new Text("hello"), false).start()) {
            for (String p : List.of("a", "b", "c", "d")) {
                assertThat(t.get("/p/" + p).statusCode()).isEqualTo(200);
            }
            var classifier = t.filter().classifier();
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("page", "other", "outcome", "success")
                    .timer().count()).isEqualTo(3));
            assertThat(classifier.route("/p/a").page()).isEqualTo("/p/a");
            assertThat(classifier.route("/p/a").meters).isNotNull();
            for (String p : List.of("b", "c", "d")) {
                Route r = classifier.route("/p/" + p);
                assertThat(r.page()).isEqualTo("other");
                assertThat(r.meters).as("route %s holds no meters of its own", p).isNull();
            }
            assertThat(classifier.routes().other().meters).isNotNull();
        }
    }

    /** Hands 20 ms of CPU to a pool of its own, as a task of the request when {@code wrapped}, and completes there. */
    static final class PooledWork extends HttpServlet {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        private final boolean wrapped;

        PooledWork(boolean wrapped) {
            this.wrapped = wrapped;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            (wrapped ? Fairslice.executor(pool) : pool).execute(expensiveThenComplete(ac));
        }
    }

    /** {@link Expensive}'s 20 ms of CPU for an async request, which it then completes. */
    static Runnable expensiveThenComplete(AsyncContext ac) {
        return () -> {
            try {
                new Expensive().doGet((HttpServletRequest) ac.getRequest(), (HttpServletResponse) ac.getResponse());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                ac.complete();
            }
        };
    }

    /**
     * A page whose work ran on the application's own pool was measured at its dispatch's microseconds: learnt light,
     * its CPU no class's. Wrapped with Fairslice.task (here through Fairslice.executor), its work is the request's.
     */
    @Test
    void shouldCountTheCpuOfARequestsTasksOnTheApplicationsOwnThreads() throws Exception {
        PooledWork wrapped = new PooledWork(true);
        PooledWork plain = new PooledWork(false);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/tasks", Map.of("fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/wrapped", wrapped, true).servlet("/plain", plain, true).start()) {
            for (int i = 0; i < 12; i++) {
                assertThat(t.get("/wrapped").statusCode()).isEqualTo(200);
                assertThat(t.get("/plain").statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/plain").timers().stream()
                    .mapToLong(Timer::count).sum()).isEqualTo(12));
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/wrapped").timers()
                    .stream().mapToLong(Timer::count).sum()).isEqualTo(12));
            // a task's CPU is counted as the task ends, after it completed the request
            eventually(() -> assertThat(cpuSeconds(registry, "page", "/wrapped")).as("twelve tasks of 20 ms")
                    .isBetween(0.2, 0.6));
            assertThat(cpuSeconds(registry, "page", "/plain")).as("the dispatches only").isLessThan(0.1);
            assertThat(registry.find("fairslice.requests").tags("page", "/wrapped", "class", "heavy").timers())
                    .as("learnt heavy from its tasks' CPU after ten requests").isNotEmpty();
            assertThat(registry.find("fairslice.requests").tags("page", "/plain", "class", "heavy").timers())
                    .as("learnt light from its dispatches").isEmpty();
        } finally {
            wrapped.pool.shutdownNow();
            plain.pool.shutdownNow();
        }
    }

    /**
     * Starts async and completes from a task of 20 ms of CPU on a pool of its own; with {@code ?hold} the task starts
     * only once released: an async request that waits (a long poll, a queued job) while its new page is learnt.
     */
    static final class HeldAsyncWork extends HttpServlet {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            // the request's task, in the class the request has as the task starts
            Runnable work = Fairslice.task(expensiveThenComplete(ac));
            if (req.getParameter("holdInTask") != null) { // its task starts at once and waits, then computes
                pool.execute(Fairslice.task(() -> {
                    held.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    Fairslice.yieldPoint(); // as woven code would reach one
                    expensiveThenComplete(ac).run();
                }));
                return;
            }
            if (req.getParameter("hold") == null) {
                pool.execute(work);
                return;
            }
            pool.execute(() -> {
                held.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                work.run();
            });
        }
    }

    /**
     * An async request of a new page, waiting between its dispatches as the page is learnt heavy, follows its route
     * to heavy (before, its watch ended with its dispatch and it stayed light), and the task it starts after that runs
     * there.
     */
    @Test
    void shouldMoveAnAsyncRequestBetweenDispatchesToTheClassItsNewPageIsLearntIn() throws Exception {
        HeldAsyncWork page = new HeldAsyncWork();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/held", Map.of("fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/report", page, true).start()) {
            CompletableFuture<HttpResponse<String>> held = NewThread.supply(() -> get(t, "/report?hold"));
            assertThat(page.held.await(10, TimeUnit.SECONDS)).isTrue(); // the page's first request, light, no thread
            for (int i = 0; i < 10; i++) { // adaptive.min-samples: the tenth decides
                assertThat(t.get("/report").statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(t.filter().classifier().routes().routes()).singleElement()
                    .satisfies(r -> assertThat(r.heavy()).as("learnt heavy from its tasks").isTrue()));
            page.release.countDown();
            assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/report", "class", "heavy")
                    .timers().stream().mapToLong(Timer::count).sum()).as("the held request, ended in heavy")
                    .isEqualTo(1));
            // counted as the task ends, after it completed the request: the response may come first
            eventually(() -> assertThat(cpuSeconds(registry, "page", "/report", "class", "heavy"))
                    .as("its task's 20 ms, run in heavy").isGreaterThan(0.015));
        } finally {
            page.release.countDown();
            page.pool.shutdownNow();
        }
    }

    /** As above, with the held request's task already running as the page is learnt: it moves at its yield point. */
    @Test
    void shouldMoveTheRunningTaskOfARequestWhoseNewPageIsLearntHeavy() throws Exception {
        RecordingListener.EVENTS.clear();
        HeldAsyncWork page = new HeldAsyncWork();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/held", Map.of("fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/report", page, true).start()) {
            CompletableFuture<HttpResponse<String>> held =
                    NewThread.supply(() -> get(t, "/report?holdInTask"));
            assertThat(page.held.await(10, TimeUnit.SECONDS)).isTrue(); // its task runs, light
            for (int i = 0; i < 10; i++) {
                assertThat(t.get("/report").statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(t.filter().classifier().routes().routes()).singleElement()
                    .satisfies(r -> assertThat(r.heavy()).as("learnt heavy from its tasks").isTrue()));
            ClassState light = t.filter().scheduler().classState(0);
            ClassState heavy = t.filter().scheduler().classState(1);
            long lightCpu = light.cpuNanos();
            long heavyCpu = heavy.cpuNanos();
            page.release.countDown();
            assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            eventually(() -> assertThat(heavy.cpuNanos() - heavyCpu)
                    .as("the running task's 20 ms, after its move, heavy's")
                    .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(15)));
            assertThat(light.cpuNanos() - lightCpu).as("light's: none of them (all of them without the move)")
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(10));
            // request listeners (the kernel probe) follow the task on its executor's thread, as a request's on its own
            eventually(() -> assertThat(RecordingListener.EVENTS.values()).anySatisfy(events -> assertThat(events)
                    .startsWith("task enter light", "move light heavy", "task exit heavy")));
        } finally {
            page.release.countDown();
            page.pool.shutdownNow();
        }
    }

    /** Completes its request from a task of it, which then lingers until released (clean-up, a stream's loop). */
    static final class Lingering extends HttpServlet {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            pool.execute(Fairslice.task(() -> {
                ac.complete();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
    }

    /** Joins 20 ms of CPU computed on a pool of its own: a request served in one dispatch that waits for its task. */
    static final class Joining extends HttpServlet {
        final ExecutorService pool = Executors.newFixedThreadPool(2);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            var threads = ManagementFactory.getThreadMXBean();
            long x = CompletableFuture.supplyAsync(() -> {
                long until = threads.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(20);
                long y = 0;
                while (threads.getCurrentThreadCpuTime() < until) {
                    y += y ^ until;
                }
                return y;
            }, Fairslice.executor(pool)).join();
            resp.getWriter().write(Long.toString(x));
        }
    }

    /**
     * A new page's route is a candidate, its page {@code other}, until its first served request ends: a task that
     * ended before that counted its CPU under {@code other} (a Spring MVC Callable's work, for one). Its CPU now waits
     * for the request's and counts under the page the request joins.
     */
    @Test
    void shouldCountTheCpuOfATaskThatEndsBeforeANewPagesFirstRequestUnderThatPage() throws Exception {
        Joining joining = new Joining();
        HttpServlet joinThenWait = new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                joining.doGet(req, resp);
                // the request ends only once its task's wrapper has counted the task's CPU
                var ticket = (Ticket) req.getAttribute(
                        FairsliceFilter.TICKET_ATTRIBUTE);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (ticket.taskCpuNanos() == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
        };
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/first", Map.of(), registry)
                .servlet("/report", joinThenWait, false).start()) {
            assertThat(t.get("/report").statusCode()).isEqualTo(200);

            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/report").timers().stream()
                    .mapToLong(Timer::count).sum()).isEqualTo(1));
            eventually(() -> assertThat(cpuSeconds(registry, "page", "/report")).as("its task's 20 ms")
                    .isGreaterThan(0.018)); // counted as the task ends, after it completed the request
            assertThat(cpuSeconds(registry, "page", "other")).as("under other").isLessThan(0.005);
        } finally {
            joining.pool.shutdownNow();
        }
    }

    @Test
    void shouldReleaseARequestsPermitAsItCompletesWhileATaskOfItStillRuns() throws Exception {
        Lingering lingering = new Lingering();
        Joining joining = new Joining();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/linger", Map.of("fairslice.rule.1", "heavy path=/linger",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0",
                "fairslice.cpu.sample-interval", "0ns"), registry)
                .servlet("/linger", lingering, true).servlet("/join", joining, false).start()) {
            assertThat(t.get("/linger").statusCode()).isEqualTo(200);
            assertThat(t.get("/linger").statusCode()).as("cap 1, no queue: the first's task lingers, its request"
                    + " does not").isEqualTo(200);
            eventually(() -> assertThat(t.filter().scheduler().classState(1).inflight()).as("in flight").isZero());
            for (int i = 0; i < 12; i++) {
                assertThat(t.get("/join").statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(registry.find("fairslice.requests").tags("page", "/join", "class", "heavy")
                    .timers()).as("learnt heavy from the task it joined, whose future completes before the task"
                    + " has counted its CPU").isNotEmpty());
        } finally {
            lingering.release.countDown();
            lingering.pool.shutdownNow();
            joining.pool.shutdownNow();
        }
    }

    /**
     * A new page answered asynchronously joins the route table as its async cycle completes served; one answered 404
     * does not. Its route is held from the request's start to its completion on another thread.
     */
    @Test
    void shouldLetANewPageJoinTheRouteTableWhenItsAsyncCycleCompletesServed() throws Exception {
        Async async = new Async();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/asyncroutes", Map.of(), new SimpleMeterRegistry())
                .servlet("/feed/*", async, true).start()) {
            var routes = t.filter().classifier().routes();
            CompletableFuture<HttpResponse<String>> gone = NewThread.supply(() -> get(t, "/feed/gone"));
            AsyncContext goneContext = async.started.poll(10, TimeUnit.SECONDS);
            assertThat(goneContext).isNotNull();
            assertThat(routes.candidates()).as("held while its async cycle runs").isEqualTo(1);
            ((HttpServletResponse) goneContext.getResponse()).setStatus(404);
            goneContext.complete();
            assertThat(gone.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(404);
            eventually(() -> assertThat(routes.candidates()).isZero());
            assertThat(routes.size()).isZero();

            CompletableFuture<HttpResponse<String>> live = NewThread.supply(() -> get(t, "/feed/live"));
            AsyncContext liveContext = async.started.poll(10, TimeUnit.SECONDS);
            assertThat(liveContext).isNotNull();
            assertThat(routes.size()).as("not before it is served").isZero();
            complete(liveContext);
            assertThat(live.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            eventually(() -> assertThat(routes.size()).isEqualTo(1));
            assertThat(routes.candidates()).isZero();
            assertThat(t.filter().classifier().route("/feed/live").page()).isEqualTo("/feed/live");
        }
    }

    /**
     * A long poll: the application's own listener answers each timeout 200 ("no news"), the usual end of its
     * requests. They were served: counted as successes of the page, which joins the route table.
     */
    @Test
    void shouldCountALongPollThatTheApplicationAnswersAtItsTimeoutAsServed() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/longpoll", Map.of(), registry)
                .servlet("/poll", new LongPoll(), true).start()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = t.get("/poll");
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("no news");
            }
            eventually(() -> assertThat(registry.find("fairslice.requests").timers().stream()
                    .mapToLong(Timer::count).sum()).isEqualTo(3));
            assertThat(registry.get("fairslice.requests").tags("page", "/poll", "outcome", "success").timer()
                    .count()).isEqualTo(3);
            assertThat(registry.find("fairslice.requests").tag("outcome", "server_error").timers().stream()
                    .mapToLong(Timer::count).sum()).isZero();
            assertThat(t.filter().classifier().routes().size()).isEqualTo(1);
        }
    }

    /** Answers each request 200 "no news" as its async cycle times out (200 ms), from its own listener. */
    static final class LongPoll extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext ac = req.startAsync();
            ac.setTimeout(200);
            ac.addListener(new AsyncListener() {
                @Override
                public void onTimeout(AsyncEvent event) throws IOException {
                    AsyncContext context = event.getAsyncContext();
                    ((HttpServletResponse) context.getResponse()).setStatus(200);
                    context.getResponse().getWriter().write("no news");
                    context.complete();
                }

                @Override
                public void onComplete(AsyncEvent event) {
                }

                @Override
                public void onError(AsyncEvent event) {
                }

                @Override
                public void onStartAsync(AsyncEvent event) {
                }
            });
        }
    }

    @Test
    void shouldFailApplicationStartupOnABadValueNamingKeyRuleAndValue() throws Exception {
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/bad", Map.of("fairslice.class.heavy.share", "0"), null)
                .servlet("/x", new Text("hello"), false)) {
            t.start();
            assertThat(t.context.getState()).isNotEqualTo(LifecycleState.STARTED);
            // in fairslice's own log too, which reaches catalina.out: Tomcat logs the filter's failure to the host's
            assertThat(log.lines()).anyMatch(line -> line.startsWith("SEVERE fairslice[/bad]: not started, so the"
                    + " application does not start: fairslice configuration: class.heavy.share must be 1..1000"));
        }
        FairsliceFilter filter = new FairsliceFilter();
        assertThatThrownBy(() -> filter.init(filterConfig(Map.of("class.heavy.share", "0"))))
                .isInstanceOf(ServletException.class)
                .hasMessage("fairslice configuration: class.heavy.share must be 1..1000, got '0' (set by filter init"
                        + " parameter class.heavy.share)");
    }

    /** A context parameter whose fairslice. prefix is misspelt set nothing without a word: it is warned of. */
    @Test
    void shouldWarnOfAContextParameterWhosePrefixIsMisspelt() throws Exception {
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/typo", Map.of("fairslce.class.heavy.share", "10"), null)
                .servlet("/x", new Text("hello"), false).start()) {
            assertThat(t.get("/x").body()).isEqualTo("hello");
            assertThat(log.lines()).contains("WARNING fairslice[/typo]: context parameter fairslce.class.heavy.share is"
                    + " not read: only names that start with fairslice. are (a misspelt prefix?);"
                    + " docs/configuration.md");
        }
    }

    /** Switched off by a setting the initializer does not read (the file's), the filter says which one it was. */
    @Test
    void shouldSayWhichSourceSwitchedItOff() throws Exception {
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/off", Map.of(), null)
                .file("WEB-INF/fairslice.properties", "enabled=false").servlet("/x", new Text("hello"), false)
                .start()) {
            assertThat(t.get("/x").body()).isEqualTo("hello");
            assertThat(log.lines()).containsExactly("INFO fairslice[/off]: disabled (enabled=false, set in"
                    + " /WEB-INF/fairslice.properties); requests pass through");
        }
    }

    /**
     * The file is read before anything is merged, so a file that cannot be read was refused without a word of where it
     * was named: a context descriptor's {@code fairslice.config} and the installer's {@code -Dfairslice.config} look
     * alike in that message.
     */
    @Test
    void shouldSayWhereAConfigurationFileThatCannotBeReadWasNamed() throws Exception {
        String missing = "/no/such/dir/fairslice.properties";
        try (LogCapture log = LogCapture.of(FairsliceFilter.class);
             EmbeddedTomcat t = new EmbeddedTomcat("/unread", Map.of("fairslice.config", missing), null)
                .servlet("/x", new Text("hello"), false)) {
            t.start();
            assertThat(t.context.getState()).isNotEqualTo(LifecycleState.STARTED);
            assertThat(log.lines()).anyMatch(line -> line.startsWith("SEVERE fairslice[/unread]: not started")
                    && line.endsWith("fairslice.config must name a readable file, got '" + missing
                            + "' (set by context parameter fairslice.config)"));
        }
        System.setProperty("fairslice.config", missing);
        try {
            assertThatThrownBy(() -> new FairsliceFilter().init(filterConfig(Map.of())))
                    .isInstanceOf(ServletException.class)
                    .hasMessageEndingWith("got '" + missing + "' (set by system property -Dfairslice.config)");
        } finally {
            System.clearProperty("fairslice.config");
        }
    }

    /**
     * A request beyond its class's cap and queue is answered 503 at once, with the scheduler's Retry-After: no request
     * of the class has completed yet, so no drain rate is known and it is 1 s (the figure itself, from the measured
     * rate, is checked in {@code SchedulerTest}); the header and the {@code fairslice.retry.after} meter agree.
     */
    @Test
    void shouldAnswer503WithRetryAfterWhenTheClassQueueIsFull() throws Exception {
        Blocking blocking = new Blocking();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/full", Map.of("fairslice.rule.1", "heavy path=/block",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0"), registry)
                .servlet("/block", blocking, false).start()) {
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/block"));
            assertThat(blocking.entered.await(10, TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> second = t.get("/block");
            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(second.headers().firstValue("Retry-After")).as("no drain rate measured yet").contains("1");
            blocking.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page", "/block",
                    "outcome", "success").timer().count()).isEqualTo(1));
            assertThat(registry.get("fairslice.rejections").tags("class", "heavy", "reason", "queue_full")
                    .functionCounter().count()).isEqualTo(1);
            // rejected before the page had been served once: not yet in the route table, so under page other
            assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page", "other", "outcome",
                    "rejected").timer().count()).isEqualTo(1);
            assertThat(registry.get("fairslice.retry.after").tags("class", "heavy").summary().count()).isEqualTo(1);
            assertThat(registry.get("fairslice.retry.after").tags("class", "heavy").summary().totalAmount())
                    .isEqualTo(1.0);
        }
    }

    /** 20 ms of its thread's CPU, then, with {@code ?hold}, holds its thread until released. */
    static final class ExpensiveThenHold extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
            new Expensive().doGet(req, resp);
            if (req.getParameter("hold") != null) {
                entered.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Test
    void shouldNotCountRejectedRequestsAmongTheRequestsAMeasuredOneStandsFor() throws Exception {
        ExpensiveThenHold page = new ExpensiveThenHold();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/sampled", Map.of("fairslice.rule.1", "heavy path=/page",
                "fairslice.class.heavy.max-concurrency", "1", "fairslice.class.heavy.queue-size", "0",
                "fairslice.cpu.sample-interval", "200ms"), registry).servlet("/page", page, false).start()) {
            for (int i = 0; i < 10; i++) { // the route learns: every request measured, for itself
                assertThat(t.get("/page").statusCode()).isEqualTo(200);
            }
            // the first request after the route's decision is measured; the next one 200 ms later at the earliest
            CompletableFuture<HttpResponse<String>> held = NewThread.supply(() -> get(t, "/page?hold"));
            assertThat(page.entered.await(10, TimeUnit.SECONDS)).isTrue();
            long heldAt = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                assertThat(t.get("/page").statusCode()).as("over the cap, no queue").isEqualTo(503);
            }
            page.release.countDown();
            assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            Thread.sleep(Math.max(0, 250 - (System.nanoTime() - heldAt) / 1_000_000));
            assertThat(t.get("/page").statusCode()).as("measured: stands for itself alone").isEqualTo(200);
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page", "/page",
                    "outcome", "success").timer().count()).isEqualTo(12));
            double cpu = registry.get("fairslice.requests.cpu").tags("class", "heavy", "page", "/page").counter()
                    .count();
            // twelve requests of 20 ms served; counted with the 20 rejected ones, the last alone would read 420 ms
            assertThat(cpu).as("CPU seconds of the twelve served requests").isBetween(0.2, 0.36);
        }
    }

    /**
     * The application stops (Tomcat destroys its servlets, then its filters) while a request waits for its class's
     * one permit: it is answered 503 with Retry-After and counted, not admitted past the cap into the destroyed
     * servlet (every queued request was, at once).
     */
    @Test
    void shouldRefuseTheRequestsQueuedForAdmissionWhenTheApplicationStops() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> servedAfterDestroy = Collections.synchronizedList(new ArrayList<>());
        HttpServlet slow = new HttpServlet() {
            private volatile boolean destroyed;

            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                if (destroyed) {
                    servedAfterDestroy.add(req.getRequestURI());
                }
                holding.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                resp.getWriter().write("done");
            }

            @Override
            public void destroy() {
                destroyed = true;
            }
        };
        try (EmbeddedTomcat t = new EmbeddedTomcat("/stop", Map.of("fairslice.rule.1", "heavy path=/slow",
                "fairslice.class.heavy.max-concurrency", "1"), new SimpleMeterRegistry())
                .servlet("/slow", slow, false).start()) {
            ((StandardContext) t.context).setUnloadDelay(200); // Tomcat's default: 2 s
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/slow"));
            assertThat(holding.await(10, TimeUnit.SECONDS)).as("the first holds the permit").isTrue();
            CompletableFuture<HttpResponse<String>> second = NewThread.supply(() -> get(t, "/slow"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heavy.waitingAdmission() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(heavy.waitingAdmission()).as("the second waits for the permit").isEqualTo(1);

            HttpResponse<String> refused;
            try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
                t.context.stop();
                refused = second.get(10, TimeUnit.SECONDS);
                assertThat(log.lines()).as("the count, which no meter shows: the meters go as the application stops")
                        .contains("WARNING fairslice[/stop]: stopped with 1 request(s) waiting for admission; each is"
                                + " answered 503 with Retry-After");
            }
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(refused.body())
                    .startsWith("503 stopped: the application has stopped, this request was not admitted");
            assertThat(heavy.rejections(Scheduler.REJECTED_STOPPED)).isEqualTo(1);
            assertThat(heavy.waitingAdmission()).isZero();

            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).body()).as("the request that held the permit ends")
                    .isEqualTo("done");
            assertThat(servedAfterDestroy).as("requests the destroyed servlet was given").isEmpty();
            assertThat(heavy.permits()).isZero();
            assertThat(heavy.inflight()).isZero();
        }
    }

    @Test
    void shouldHoldAnAsyncRequestsPermitUntilItsAsyncCycleCompletes() throws Exception {
        Async async = new Async();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/async", Map.of("fairslice.rule.1", "heavy path=/async",
                "fairslice.class.heavy.max-concurrency", "1"), new SimpleMeterRegistry())
                .servlet("/async", async, true).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> first = NewThread.supply(() -> get(t, "/async"));
            AsyncContext firstContext = async.started.poll(10, TimeUnit.SECONDS);
            assertThat(firstContext).isNotNull();
            CompletableFuture<HttpResponse<String>> second = NewThread.supply(() -> get(t, "/async"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heavy.waitingAdmission() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(heavy.waitingAdmission()).as("the second waits: the first's async cycle holds the permit")
                    .isEqualTo(1);
            assertThat(async.started).isEmpty();

            complete(firstContext);
            assertThat(first.get(10, TimeUnit.SECONDS).body()).isEqualTo("async done");
            AsyncContext secondContext = async.started.poll(10, TimeUnit.SECONDS);
            assertThat(secondContext).as("admitted once the first completed").isNotNull();
            complete(secondContext);
            assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heavy.inflight() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(heavy.inflight()).isZero();
        }
    }

    @Test
    void shouldKeepServingWhenARequestListenerThrowsAndDisableItOnce() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/listener", Map.of("fairslice.classes", "light,boom",
                "fairslice.rule.1", "boom path=/x"), registry).servlet("/x", new Text("hello"), false).start()) {
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "boom", "outcome", "success")
                    .timer().count())
                    .isEqualTo(2));
            assertThat(registry.get("fairslice.listener.failures").tag("listener", "exploding").functionCounter()
                    .count()).isEqualTo(1);
        }
    }

    @Test
    void shouldSwitchPolicyThroughJmxWithTheSameValidation() throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat("/jmx", Map.of(), new SimpleMeterRegistry())
                .servlet("/x", new Text("hello"), false).start()) {
            var server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.fairslice:type=Fairslice,application=" + ObjectName.quote("/jmx"));
            assertThat(server.getAttribute(name, "Policy")).isEqualTo("share");
            server.setAttribute(name, new Attribute("Policy", "observe"));
            assertThat(t.filter().scheduler().config().policy()).isEqualTo(Policy.OBSERVE);
            server.setAttribute(name, new Attribute("Shares", "heavy=5"));
            assertThat(t.filter().scheduler().config().classes().get(1).share()).isEqualTo(5);
            assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Policy", "fair")))
                    .hasRootCauseMessage("fairslice configuration: policy must be one of observe, sleep, share, "
                            + "got 'fair'");
            assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"routes.max", "5"},
                    new String[] {"java.lang.String", "java.lang.String"}))
                    .hasRootCauseMessage("fairslice configuration: routes.max cannot change at runtime (restart the "
                            + "application), got '5'");
            assertThat(t.filter().scheduler().config().policy()).isEqualTo(Policy.OBSERVE);
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
        }
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(
                new ObjectName("io.fairslice:type=Fairslice,application=" + ObjectName.quote("/jmx")))).isFalse();
    }

    @Test
    void shouldAlsoFeedALegacyPrometheusSimpleclientRegistry() throws Exception {
        PrometheusMeterRegistry legacy = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EmbeddedTomcat t = new EmbeddedTomcat("/legacy", Map.of(), legacy).servlet("/x", new Text("hello"), false)
                .start()) {
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            String app = "application=\"/legacy\",";
            eventually(() -> assertThat(legacy.scrape()).contains("fairslice_requests_seconds_count{" + app
                    + "class=\"light\""));
            String scrape = legacy.scrape();
            assertThat(scrape).contains("fairslice_requests_seconds_count{" + app
                            + "class=\"light\",outcome=\"success\",page=\"/x\",} 1.0")
                    .contains("fairslice_requests_seconds_bucket{" + app + "class=\"light\"")
                    .contains("fairslice_class_cpu_share_target{" + app + "class=\"heavy\",} 0.2");
        }
    }

    /**
     * Burns CPU, calling the public yield point as woven code would, until {@code until} has been counted down and
     * 100 ms of CPU more have been used (or 15 s have passed): so the request is still running whenever the work
     * that should take its place arrives, however slowly a loaded machine delivers it.
     */
    static final class Spin extends HttpServlet {
        private final CountDownLatch until;

        Spin(CountDownLatch until) {
            this.until = until;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            var threads = ManagementFactory.getThreadMXBean();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            long cpuAfter = Long.MAX_VALUE;
            long x = 0;
            while (threads.getCurrentThreadCpuTime() < cpuAfter && System.nanoTime() < deadline) {
                for (int i = 0; i < 10_000; i++) {
                    x += i ^ x;
                }
                Fairslice.yieldPoint();
                if (cpuAfter == Long.MAX_VALUE && until.getCount() == 0) {
                    cpuAfter = threads.getCurrentThreadCpuTime() + 100_000_000L;
                }
            }
            resp.getWriter().write(Long.toString(x));
        }
    }

    /**
     * Through Tomcat, a heavy request parks at a yield point for light work and goes on under the configured
     * {@code share.max-park}, not the default: parks are measured in wall time here (with the wait for a CPU after
     * them), so only their mean is compared, against half the default; the bound itself, on a fake clock, is
     * SchedulerTest's {@code shouldBoundTheParkAtAYieldPointByMaxPark}.
     */
    @Test
    void shouldParkAHeavyRequestAtAYieldPointForWaitingLightWorkUnderTheConfiguredMaxPark() throws Exception {
        Blocking light = new Blocking();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/yield", Map.of("fairslice.rule.1", "heavy path=/spin",
                "fairslice.share.cpus", "1", "fairslice.share.quantum", "2ms", "fairslice.share.max-park", "20ms"),
                registry).servlet("/spin", new Spin(light.entered), false).servlet("/light", light, false).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            long start = System.nanoTime();
            CompletableFuture<HttpResponse<String>> heavyResponse =
                    NewThread.supply(() -> get(t, "/spin"));
            eventually(() -> assertThat(heavy.running()).isEqualTo(1));
            // light arrives while heavy holds the one run slot: heavy gives it up at its next yield point; light then
            // blocks in the slot, and heavy runs again after max-park (or sooner: the CPU idles)
            CompletableFuture<HttpResponse<String>> lightResponse =
                    NewThread.supply(() -> get(t, "/light"));
            assertThat(light.entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(heavyResponse.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(heavy.parks(1)).as("parks at yield points").isPositive();
            // the configured 20 ms, not the default 500 ms; a park's wall time also holds the wait for a CPU after
            // it, 90 ms on a loaded 2-core machine
            assertThat(heavy.parkedNanos(1) / heavy.parks(1)).as("mean park, ns: under half the default max-park")
                    .isLessThan(250_000_000L);
            assertThat(elapsedMs).as("the heavy request progressed: no starvation").isLessThan(20_000);
            light.release.countDown();
            assertThat(lightResponse.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    /**
     * A page the adaptive classifier has never seen: burns CPU until released ({@code yields}: with a yield point per
     * round, as woven code would have), or, with a query string, answers at once.
     */
    static final class Burn extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(3);
        final CountDownLatch release = new CountDownLatch(1);
        private final boolean yields;

        Burn() {
            this(false);
        }

        Burn(boolean yields) {
            this.yields = yields;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (req.getQueryString() != null) { // the same page, a cheap request of it
                resp.getWriter().write("cheap");
                return;
            }
            entered.countDown();
            long x = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (release.getCount() > 0 && System.nanoTime() < deadline) {
                for (int i = 0; i < 10_000; i++) {
                    x += i ^ x;
                }
                if (yields) {
                    Fairslice.yieldPoint();
                }
            }
            resp.getWriter().write(Long.toString(x));
        }
    }

    /** Starts three requests of {@code burn} at /burn and waits until all have entered it. */
    private static List<CompletableFuture<HttpResponse<String>>> startBurning(EmbeddedTomcat t, Burn burn)
            throws InterruptedException {
        List<CompletableFuture<HttpResponse<String>>> burning = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            burning.add(NewThread.supply(() -> get(t, "/burn")));
        }
        assertThat(burn.entered.await(10, TimeUnit.SECONDS)).isTrue();
        return burning;
    }

    /** Sends requests to /x (requests entering the filter run the classifier's checks) until the route is heavy. */
    private static void awaitHeavy(EmbeddedTomcat t, Route route) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!route.heavy() && System.nanoTime() < deadline) {
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            Thread.sleep(2);
        }
    }

    @Test
    void shouldMakeANewExpensivePageHeavyWhileItsFirstRequestsStillRun() throws Exception {
        Burn burn = new Burn();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/learn", Map.of("fairslice.adaptive.min-samples", "3"),
                new SimpleMeterRegistry()).servlet("/burn", burn, false).servlet("/x", new Text("hello"), false)
                .start()) {
            var route = t.filter().classifier().route("/burn");
            List<CompletableFuture<HttpResponse<String>>> burning = startBurning(t, burn);
            awaitHeavy(t, route);
            assertThat(route.heavy()).as("heavy once its three running requests had used 5 ms of CPU each").isTrue();
            assertThat(route.samples()).as("before any of them finished").isZero();
            assertThat(burning).noneMatch(CompletableFuture::isDone);
            burn.release.countDown();
            for (CompletableFuture<HttpResponse<String>> f : burning) {
                assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(t.filter().classifier().watching()).isZero();
        }
    }

    /**
     * The running requests' early heavy is the cheapest-of-the-first rule brought forward, no more: a request of the
     * page that finishes cheaper before the decision ends it (the page's first decision then calls it light).
     */
    @Test
    void shouldEndANewPagesEarlyHeavyWhenOneOfItsFirstRequestsFinishesCheap() throws Exception {
        Burn burn = new Burn();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // 100 ms: room for a cold JVM's first cheap request, on a host that inflates CPU clocks now and then (35 ms
        // once, in a run where this test took 8 s instead of 2)
        try (EmbeddedTomcat t = new EmbeddedTomcat("/undo", Map.of("fairslice.adaptive.min-samples", "3",
                "fairslice.adaptive.heavy-above", "100ms"), registry)
                .servlet("/burn", burn, false).servlet("/x", new Text("hello"), false).start()) {
            var route = t.filter().classifier().route("/burn");
            List<CompletableFuture<HttpResponse<String>>> burning = startBurning(t, burn);
            awaitHeavy(t, route);
            assertThat(route.heavy()).as("heavy: its three running requests have used 100 ms of CPU each").isTrue();
            assertThat(t.get("/burn?cheap").statusCode()).isEqualTo(200);
            eventually(() -> assertThat(route.samples()).isEqualTo(1));
            assertThat(route.expectedCpuNanos()).isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
            assertThat(route.heavy()).as("a request of the page finished below 100 ms").isFalse();
            assertThat(route.decided()).as("the cheapest of its first three will decide").isFalse();
            assertThat(registry.get("fairslice.classify.reclassified").tags("class", "heavy").functionCounter()
                    .count()).isEqualTo(1);
            assertThat(registry.get("fairslice.classify.reclassified").tags("class", "light").functionCounter()
                    .count()).isEqualTo(1);
            assertThat(burning).as("while the three still run").noneMatch(CompletableFuture::isDone);
            burn.release.countDown();
            for (CompletableFuture<HttpResponse<String>> f : burning) {
                assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void shouldMoveANewPagesRequestsToHeavyAtTheirNextYieldPointOnceItIsDecided() throws Exception {
        RecordingListener.EVENTS.clear();
        Burn burn = new Burn(true);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/move", Map.of("fairslice.adaptive.min-samples", "3"), registry)
                .servlet("/burn", burn, false).servlet("/x", new Text("hello"), false).start()) {
            var route = t.filter().classifier().route("/burn");
            var scheduler = t.filter().scheduler();
            List<CompletableFuture<HttpResponse<String>>> burning = startBurning(t, burn);
            assertThat(scheduler.classState(0).inflight()).as("a new page's requests start light").isEqualTo(3);
            awaitHeavy(t, route);
            assertThat(route.heavy()).isTrue();
            eventually(() -> assertThat(scheduler.classState(1).movedIn()).as("moved at their next yield point")
                    .isEqualTo(3));
            assertThat(scheduler.classState(1).inflight()).isEqualTo(3);
            assertThat(scheduler.classState(0).inflight()).isZero();
            assertThat(burning).as("while they still run").noneMatch(CompletableFuture::isDone);
            burn.release.countDown();
            for (CompletableFuture<HttpResponse<String>> f : burning) {
                assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            eventually(() -> assertThat(registry.get("fairslice.requests").tags("class", "heavy", "page", "/burn",
                    "outcome", "success").timer().count()).as("counted in the class they ended in").isEqualTo(3));
            assertThat(registry.get("fairslice.requests.moved").tags("class", "heavy").functionCounter().count())
                    .isEqualTo(3);
            assertThat(scheduler.classState(1).inflight()).isZero();
        }
        // request listeners (the kernel probe's actuators) follow the move on the request's thread
        List<String> moves = new ArrayList<>();
        RecordingListener.EVENTS.forEach((thread, events) -> {
            String serving = null;
            for (String e : events) {
                String[] w = e.split(" ");
                if (w[0].equals("enter")) {
                    assertThat(serving).as("%s: %s without an exit before", thread, e).isNull();
                    serving = w[1];
                } else {
                    assertThat(w[1]).as("%s: %s while serving %s", thread, e, serving).isEqualTo(serving);
                    serving = w[0].equals("move") ? w[2] : null;
                    if (w[0].equals("move")) {
                        moves.add(e);
                    }
                }
            }
            assertThat(serving).as("%s ends outside a request", thread).isNull();
        });
        assertThat(moves).containsExactly("move light heavy", "move light heavy", "move light heavy");
    }

    /**
     * A page that declares its wait blocking (Fairslice.blocking(), around a query say) gives its run slot up as it
     * starts to wait, not after looks at its thread: the page's class has no request running while one is in flight,
     * and a request of the other class is served meanwhile.
     */
    @Test
    void shouldGiveTheRunSlotOfAPageUpForTheBlockingCallItDeclares() throws Exception {
        Blocking query = new Blocking(true);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (EmbeddedTomcat t = new EmbeddedTomcat("/declared", Map.of("fairslice.rule.1", "heavy path=/query",
                "fairslice.share.cpus", "1", "fairslice.share.max-park", "20s"), registry)
                .servlet("/query", query, false).servlet("/x", new Text("hello"), false).start()) {
            ClassState heavy = t.filter().scheduler().classState(1);
            CompletableFuture<HttpResponse<String>> queried = NewThread.supply(() -> get(t, "/query"));
            assertThat(query.entered.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(heavy.inflight()).isEqualTo(1);
            assertThat(heavy.running()).as("its slot given up for the declared call").isZero();
            assertThat(heavy.slotsLentDeclared()).isEqualTo(1);
            assertThat(registry.get("fairslice.share.slots.lent").tags("class", "heavy", "how", "declared")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("fairslice.share.slots.lent").tags("class", "heavy", "how", "found")
                    .functionCounter().count()).isZero();
            assertThat(t.get("/x").statusCode()).as("light served meanwhile").isEqualTo(200);

            query.release.countDown();
            assertThat(queried.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            eventually(() -> assertThat(heavy.inflight()).isZero());
        }
    }

    @Test
    void shouldRefuseToEndABlockingCallOnAnotherThreadThanTheOneThatDeclaredIt() throws Exception {
        AtomicReference<String> error = new AtomicReference<>();
        HttpServlet page = new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                Fairslice.Blocking call = Fairslice.blocking();
                Thread other = new Thread(() -> {
                    try {
                        call.close();
                    } catch (IllegalStateException e) {
                        error.set(e.getMessage());
                    }
                }, "not-the-request");
                other.start();
                try {
                    other.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                call.close();
                call.close(); // again: nothing
                resp.getWriter().write("ok");
            }
        };
        try (EmbeddedTomcat t = new EmbeddedTomcat("/threads", Map.of(), new SimpleMeterRegistry())
                .servlet("/p", page, false).start()) {
            assertThat(t.get("/p").body()).isEqualTo("ok");
            assertThat(error.get()).contains("must be closed there").contains("not-the-request");
        }
    }

    @Test
    void shouldDoNothingForABlockingCallDeclaredOutsideARequest() {
        try (Fairslice.Blocking call = Fairslice.blocking()) {
            assertThat(call).isNotNull();
        }
    }

    @Test
    void shouldNotParkAnythingOutsideARequest() {
        long start = System.nanoTime();
        for (int i = 0; i < 1_000_000; i++) {
            Fairslice.yieldPoint();
        }
        // a million parks, even of the shortest (tens of microseconds), would take far longer
        assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
    }

    @Test
    void shouldPassThroughWhenDisabled() throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat("/off", Map.of("fairslice.enabled", "false"), null)
                .servlet("/x", new Text("hello"), false).start()) {
            assertThat(t.get("/x").statusCode()).isEqualTo(200);
            assertThat(((StandardContext) t.context)
                    .findFilterConfig(FairsliceInitializer.FILTER_NAME)).isNull();
        }
    }

    /**
     * An empty -Dfairslice.enabled= (a variable left unset in a start script) sets nothing: the context's false holds.
     */
    @Test
    void shouldStayDisabledByTheContextWhenTheSystemPropertyIsBlank() throws Exception {
        System.setProperty("fairslice.enabled", "");
        try (EmbeddedTomcat t = new EmbeddedTomcat("/off2", Map.of("fairslice.enabled", "false"), null)
                .servlet("/x", new Text("hello"), false).start()) {
            assertThat(((StandardContext) t.context)
                    .findFilterConfig(FairsliceInitializer.FILTER_NAME)).isNull();
        } finally {
            System.clearProperty("fairslice.enabled");
        }
    }

    /** fairslice.requests.cpu over the meters with these tags (seconds). */
    static double cpuSeconds(MeterRegistry registry, String... tags) {
        return registry.find("fairslice.requests.cpu").tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    static void eventually(Runnable assertion) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                assertion.run();
                return;
            } catch (AssertionError | RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    /** A GET for use inside CompletableFuture suppliers: checked exceptions become unchecked ones. */
    static HttpResponse<String> get(EmbeddedTomcat t, String path) {
        try {
            return t.get(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static FilterConfig filterConfig(Map<String, String> params) {
        ServletContext context = (ServletContext) Proxy.newProxyInstance(
                FairsliceFilterTest.class.getClassLoader(), new Class<?>[] {ServletContext.class}, (p, m, a) ->
                        switch (m.getName()) {
                            case "getInitParameterNames", "getAttributeNames" -> Collections.emptyEnumeration();
                            case "getClassLoader" -> FairsliceFilterTest.class.getClassLoader();
                            case "getContextPath" -> "/direct";
                            default -> null;
                        });
        return new FilterConfig() {
            @Override
            public String getFilterName() {
                return "fairslice";
            }

            @Override
            public ServletContext getServletContext() {
                return context;
            }

            @Override
            public String getInitParameter(String name) {
                return params.get(name);
            }

            @Override
            public Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(params.keySet());
            }
        };
    }
}
