package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.experiments.app.HeavyServlet;
import io.fairslice.experiments.app.LightServlet;
import io.fairslice.experiments.app.StudyApplication;
import io.fairslice.middleware.metrics.MeterNames;
import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.middleware.weaving.WovenClasses;
import io.fairslice.weavingtest.probe.YieldPointCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The study application in a real embedded Tomcat with the fairslice filter, under the weaving agent with
 * io.fairslice.experiments.app..* in scope: the pages' own code reaches yield points, which the middleware sees;
 * Tomcat's request processing holds none.
 */
class StudyAppInTomcatWeavingTest {

    @TempDir
    static Path work;
    private static Tomcat tomcat;
    private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private static int port;

    @BeforeAll
    static void startTomcat() throws LifecycleException {
        tomcat = EmbeddedTomcats.onLoopback(work);
        File docBase = work.resolve("docBase").toFile();
        docBase.mkdirs();
        Context context = tomcat.addContext("", docBase.getAbsolutePath());
        context.addParameter("study.heavy.dir", work.resolve("documents").toString());
        context.addApplicationListener(StudyApplication.class.getName());
        context.getServletContext().setAttribute("io.fairslice.meterRegistry", registry);
        // the real middleware; observe arms the yield gate whenever a request is in flight, so its
        // fairslice.yield.points counter sees every woven yield point a request reaches
        EmbeddedTomcats.addFairslice(context, Map.of("policy", "observe", "jmx", "false", "adaptive", "false",
                "rule.1", "heavy path=/heavy"));
        tomcat.start();
        port = tomcat.getConnector().getLocalPort();
    }

    @AfterAll
    static void stopTomcat() throws LifecycleException {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    @Test
    void shouldReachYieldPointsInsideTheHeavyPage() throws IOException {
        get("/heavy"); // first request: class loading and JIT out of the way
        long before = YieldPointCounter.count();

        String page = get("/heavy");

        long yieldPoints = YieldPointCounter.count() - before;
        System.out.printf("yield points per /heavy request (2 MB document, method executions in"
                + " io.fairslice.experiments.app): %d; page: %s%n", yieldPoints, page.replaceAll("<[^>]+>", " ")
                .replaceAll("\\s+", " ").trim());
        // doGet, parseAndTraverse, traverse, Pages.html (not the Summary record's accessors): the XML parser is JDK
        // code and holds none
        assertThat(yieldPoints).isGreaterThanOrEqualTo(3);
    }

    @Test
    void shouldShowTheWovenYieldPointsInTheMiddlewaresOwnCounter() throws Exception {
        get("/heavy");
        get("/light");
        long before = YieldPointCounter.count();
        double heavyBefore = yieldPointsCounted("heavy");
        double lightBefore = yieldPointsCounted("light");

        get("/heavy");
        get("/light");

        long reached = YieldPointCounter.count() - before;
        // the filter records a request's yield points when it completes, which may follow the response by a moment
        long deadline = System.nanoTime() + 5_000_000_000L;
        double counted;
        do {
            counted = yieldPointsCounted("heavy") - heavyBefore + yieldPointsCounted("light") - lightBefore;
        } while (counted < reached && System.nanoTime() < deadline && sleep());
        System.out.printf("woven yield points reached: %d; counted by the middleware (fairslice.yield.points):"
                + " %.0f%n", reached, counted);
        assertThat(counted).isEqualTo((double) reached);
        assertThat(yieldPointsCounted("light") - lightBefore).isGreaterThanOrEqualTo(242_785);
    }

    private static double yieldPointsCounted(String requestClass) {
        var counter = registry.find(MeterNames.YIELD_POINTS).tag(MeterNames.TAG_CLASS, requestClass).functionCounter();
        return counter == null ? 0 : counter.count();
    }

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(10);
        return true;
    }

    @Test
    void shouldReachAYieldPointAtEveryRecursionOfTheLightPage() throws IOException {
        get("/light");
        long before = YieldPointCounter.count();

        String page = get("/light");

        long yieldPoints = YieldPointCounter.count() - before;
        System.out.printf("yield points per /light request (fib(25), method executions): %d%n", yieldPoints);
        assertThat(page).contains("75025");
        // fib(25) runs 242 785 executions of fibonacci(); doGet and Pages.html add a few
        assertThat(yieldPoints).isBetween(242_785L, 242_785L + 20);
    }

    @Test
    void shouldWeaveTheStudyAppButNotTomcat() {
        assertThat(WovenSampleApplicationTest.weavingArtefacts(HeavyServlet.class)).isNotEmpty();
        assertThat(WovenSampleApplicationTest.weavingArtefacts(LightServlet.class)).isNotEmpty();
        assertThat(WovenSampleApplicationTest.weavingArtefacts(org.apache.catalina.core.StandardWrapper.class))
                .isEmpty();
        assertThat(WovenSampleApplicationTest.weavingArtefacts(org.apache.coyote.http11.Http11Processor.class))
                .isEmpty();
        WeavingScope scope = WeavingScope.inspect(getClass().getClassLoader());
        System.out.println(scope.summary());
        System.out.printf("woven classes initialised: %d: %s%n", WovenClasses.count(), WovenClasses.sample());
        assertThat(WovenClasses.sample()).contains(HeavyServlet.class.getName(), LightServlet.class.getName())
                .noneMatch(name -> name.startsWith("org.apache."));
    }

    private static String get(String path) throws IOException {
        HttpURLConnection connection =
                (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        try {
            assertThat(connection.getResponseCode()).as("GET %s", path).isEqualTo(200);
            try (InputStream in = connection.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            connection.disconnect();
        }
    }
}
