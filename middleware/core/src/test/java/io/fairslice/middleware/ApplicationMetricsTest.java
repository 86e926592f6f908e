package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.jmx.FairsliceControl;
import io.fairslice.middleware.metrics.FairsliceMetrics;
import io.fairslice.middleware.metrics.MeterNames;
import io.fairslice.middleware.schedule.Scheduler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several web applications with the middleware on one registry, as in a standalone Tomcat where every selected
 * application reports into the bundle's global registry: each application's meters carry its context path as the
 * {@code application} tag, and stopping one application removes its meters only. No server: the filters run on
 * hand-made servlet contexts and requests.
 */
class ApplicationMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Map<String, FairsliceFilter> started = new HashMap<>();
    private final List<FairsliceFilter> others = new ArrayList<>();

    @AfterEach
    void stopAll() {
        started.values().forEach(FairsliceFilter::destroy);
        others.forEach(FairsliceFilter::destroy);
    }

    /**
     * Two running applications with one context path (a parallel deployment, shop##2 beside shop##1; or ROOT on two
     * hosts) must not share a name: the second's gauges were bound to the first's scheduler, and the first's stop
     * removed the second's meters and its JMX control. The second's start says so, naming the path once (the
     * warning named it twice: "fairslice[/shop]: ... uses the name /shop; ...").
     */
    @Test
    void shouldNameASecondRunningApplicationWithTheSameContextPathApart() throws Exception {
        FairsliceFilter first;
        FairsliceFilter second;
        try (LogCapture log = LogCapture.of(FairsliceFilter.class)) {
            first = other("/shop", "localhost");
            second = other("/shop", "localhost");
            other("", "shop.example");
            other("", "admin.example");
            assertThat(log.lines()).filteredOn(line -> line.startsWith("WARNING")).containsExactly(
                    "WARNING fairslice[/shop]: another running application (on another host, or a parallel"
                            + " deployment) has this name already; this one's meters and JMX control are named /shop#2",
                    "WARNING fairslice[/]: another running application (on another host, or a parallel deployment)"
                            + " has this name already; this one's meters and JMX control are named admin.example/");
        }
        serve(first, "/cart");
        serve(second, "/cart");
        serve(second, "/cart");

        assertThat(served("/shop", "/cart")).isEqualTo(1);
        assertThat(served("/shop#2", "/cart")).isEqualTo(2);
        assertThat(meterIds("admin.example/")).as("ROOT of the second host").isNotEmpty();
        assertThat(FairsliceControl.isRegistered("/shop#2")).isTrue();

        first.destroy();
        others.remove(first);
        assertThat(meterIds("/shop#2")).as("the second's meters after the first stopped").isNotEmpty();
        assertThat(meterIds("/shop")).isEmpty();
        assertThat(FairsliceControl.isRegistered("/shop#2")).isTrue();
        assertThat(FairsliceControl.isRegistered("/shop")).isFalse();
        FairsliceFilter third = other("/shop", "localhost");
        assertThat(meterIds("/shop")).as("a name given back is free again").isNotEmpty();
        serve(third, "/cart");
        assertThat(served("/shop", "/cart")).isEqualTo(1);
    }

    /**
     * Every line of a second application of one context path names it as its meters do, /shop#2: its settings'
     * warnings (rules, routes, the adaptive class), its weaving line, and its scheduler's (they named /shop, the first
     * application's name, or no application at all).
     */
    @Test
    void shouldNameASecondRunningApplicationAsItsMetersInEveryLine() throws Exception {
        other("/shop", "localhost");
        List<String> logged = new ArrayList<>();
        try (LogCapture filterLog = LogCapture.of(FairsliceFilter.class);
                LogCapture schedulerLog = LogCapture.of(Scheduler.class)) {
            FairsliceFilter second = other("/shop", "localhost", Map.of("classes", "interactive,batch",
                    "default-class", "batch", "rule.5", "batch path=/shop/export/**", "route.1", "/shop/products/*"));
            serve(second, "/cart", () -> Fairslice.classify("gold"));
            logged.addAll(filterLog.lines());
            logged.addAll(schedulerLog.lines());
        }
        assertThat(logged).filteredOn(line -> !line.contains("another running application")).isNotEmpty()
                .allSatisfy(line -> assertThat(line).matches("[A-Z]+ fairslice\\[/shop#2\\]: .*"))
                .anySatisfy(line -> assertThat(line).startsWith("INFO fairslice[/shop#2]: weaving off ("))
                .anySatisfy(line -> assertThat(line).startsWith("WARNING fairslice[/shop#2]: rule.5="))
                .anySatisfy(line -> assertThat(line).startsWith("WARNING fairslice[/shop#2]: route.1="))
                .anySatisfy(line -> assertThat(line).startsWith("WARNING fairslice[/shop#2]: adaptive.class"))
                .anySatisfy(line -> assertThat(line).startsWith("INFO fairslice[/shop#2]: started ("))
                .anySatisfy(line -> assertThat(line).startsWith(
                        "WARNING fairslice[/shop#2]: Fairslice.classify(\"gold\") names no class"));
    }

    private FairsliceFilter other(String contextPath, String host) throws ServletException {
        return other(contextPath, host, Map.of());
    }

    private FairsliceFilter other(String contextPath, String host, Map<String, String> settings)
            throws ServletException {
        Map<String, String> params = new HashMap<>(Map.of("policy", "share", "jmx", "true"));
        params.putAll(settings);
        FairsliceFilter filter = new FairsliceFilter();
        filter.init(filterConfig(contextPath, params, registry, host));
        others.add(filter);
        return filter;
    }

    @Test
    void shouldKeepTwoApplicationsSeriesApartInOneRegistry() throws Exception {
        FairsliceFilter shop = start("/shop", "share");
        start("", "observe");

        serve(shop, "/cart");
        serve(shop, "/cart");

        // tag-blind first: two applications, two policy gauge sets, each reading its own application's policy
        Collection<Meter> policies = registry.find(MeterNames.POLICY).meters();
        assertThat(policies).as("fairslice.policy gauges of two applications").hasSize(2 * Policy.values().length);
        assertThat(registry.find(MeterNames.POLICY).tag(MeterNames.TAG_POLICY, "share").gauges())
                .as("the share policy gauges: on in one application, off in the other")
                .extracting(g -> g.value()).containsExactlyInAnyOrder(1.0, 0.0);
        assertThat(registry.find(MeterNames.REQUESTS_INFLIGHT).gauges()).as("in-flight gauges, one per class and "
                + "application").hasSize(2 * 2);

        assertThat(policy("/shop", "share")).isEqualTo(1.0);
        assertThat(policy("/", "observe")).isEqualTo(1.0);
        assertThat(policy("/", "share")).isEqualTo(0.0);
        assertThat(served("/shop", "/cart")).isEqualTo(2);
        assertThat(registry.find(MeterNames.REQUESTS).tag(MeterNames.TAG_APPLICATION, "/").timers())
                .as("the root application served nothing").isEmpty();
        assertThat(registry.getMeters()).as("every meter names its application (the root context as /)")
                .allSatisfy(m -> assertThat(m.getId().getTag(MeterNames.TAG_APPLICATION)).isIn("/shop", "/"));
    }

    /**
     * A page's series are those of the classes it ran in: every page registered a latency histogram (some 77 series)
     * per class and outcome as its first request ended, about 620 series per page and 31 000 at routes.max-pages 50,
     * most of them zero for ever (a page runs in one class). Admission control's 503s are left out of the latency
     * rules, so their timer has no buckets.
     */
    @Test
    void shouldRegisterAPagesMetersForTheClassesItRanInOnly() throws Exception {
        FairsliceFilter shop = start("/shop", "share");
        serve(shop, "/cart");
        serve(shop, "/cart");

        Collection<Timer> timers = registry.find(MeterNames.REQUESTS).tags(MeterNames.TAG_APPLICATION, "/shop",
                MeterNames.TAG_PAGE, "/cart").timers();
        assertThat(timers).as("light's timers, one per outcome").hasSize(MeterNames.OUTCOMES.size())
                .allSatisfy(t -> assertThat(t.getId().getTag(MeterNames.TAG_CLASS)).isEqualTo("light"));
        assertThat(registry.find(MeterNames.REQUESTS_CPU).tag(MeterNames.TAG_PAGE, "/cart").counters())
                .extracting(c -> c.getId().getTag(MeterNames.TAG_CLASS)).containsExactly("light");

        // as Prometheus scrapes them, from both registries (the embedded server's and a legacy simpleclient one)
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry current =
                new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        PrometheusMeterRegistry legacy = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        assertPageSeries(current, "/admin", current::scrape);
        assertPageSeries(legacy, "/legacy", legacy::scrape);
    }

    /**
     * A page served once in one class: 3 latency histograms (success, client and server errors: buckets, count, sum,
     * max) and the 503s' timer with one bucket (count, sum, max, 60 s and +Inf), and its CPU counter.
     */
    private void assertPageSeries(MeterRegistry prometheus, String application,
                                  Supplier<String> scrape) throws Exception {
        FairsliceFilter filter = new FairsliceFilter();
        filter.init(filterConfig(application, Map.of("policy", "share", "jmx", "false"), prometheus));
        others.add(filter);
        serve(filter, "/users");
        List<String> series = scrape.get().lines().filter(l -> !l.startsWith("#"))
                .filter(l -> l.contains("page=\"/users\"")).toList();
        long buckets = series.stream().filter(l -> l.startsWith("fairslice_requests_seconds_bucket")
                && !l.contains("outcome=\"rejected\"")).count();
        assertThat(series.stream().filter(l -> l.startsWith("fairslice_requests_seconds_bucket")
                && l.contains("outcome=\"rejected\""))).as("buckets of the 503s' timer").hasSize(2);
        assertThat(series).as("series of a page served in one class: 3 histograms of %d buckets each, 3 x 3 and 5 "
                + "for the 503s' timer, its CPU counter", buckets / 3).hasSize((int) buckets + 9 + 5 + 1);
        assertThat(series.size()).as("a page's series in one class").isLessThan(250);
        // the latency alert compares the p99 with 250 ms: a bound there decides it exactly, not by interpolation
        assertThat(series).as("a 250 ms bound in every latency histogram").filteredOn(l ->
                l.startsWith("fairslice_requests_seconds_bucket") && !l.contains("outcome=\"rejected\"")
                        && l.contains("le=\"0.25\"")).hasSize(3);
    }

    @Test
    void shouldRemoveOnlyTheStoppedApplicationsMeters() throws Exception {
        FairsliceFilter shop = start("/shop", "share");
        FairsliceFilter admin = start("/admin", "share");
        serve(shop, "/cart");
        serve(admin, "/users");
        Set<Meter.Id> adminMeters = meterIds("/admin");
        assertThat(adminMeters).isNotEmpty();

        started.remove("/shop").destroy();

        assertThat(registry.find(MeterNames.POLICY).meters()).as("the remaining application's policy gauges")
                .hasSize(Policy.values().length);
        assertThat(registry.find(MeterNames.REQUESTS_INFLIGHT).gauges()).as("the remaining in-flight gauges")
                .hasSize(2);
        assertThat(meterIds("/shop")).as("the stopped application's meters").isEmpty();
        assertThat(meterIds("/admin")).as("the running application's meters, its weaving gauge and listener "
                + "failure counters included").isEqualTo(adminMeters);
        assertThat(registry.getMeters().stream().map(m -> m.getId().getName()))
                .contains(MeterNames.LISTENER_FAILURES, "fairslice.weaving.classes");
        assertThat(served("/admin", "/users")).isEqualTo(1);

        started.remove("/admin").destroy();

        assertThat(registry.getMeters()).as("nothing left once both applications stopped").isEmpty();
    }

    /** A request of a new page still running as its application stops (Tomcat's unload delay passed) ends later. */
    @Test
    void shouldLeaveNoSeriesOfARequestThatEndsAfterItsApplicationStopped() throws Exception {
        FairsliceFilter shop = start("/shop", "share");
        serve(shop, "/late", () -> started.remove("/shop").destroy());

        assertThat(registry.getMeters()).as("nothing left of the stopped application").isEmpty();
    }

    /**
     * A request of the stopped instance that ends after the application was redeployed under the same name (the
     * successor has served its page meanwhile): it neither records into the successor's meters of that page, which
     * have the same ids, nor removes them.
     */
    @Test
    void shouldKeepTheSuccessorsMetersWhenARequestOfTheStoppedInstanceEndsAfterTheRedeploy() throws Exception {
        FairsliceFilter shop = start("/shop", "share");
        FairsliceFilter[] next = new FairsliceFilter[1];
        serve(shop, "/late", () -> {
            started.remove("/shop").destroy();
            try {
                next[0] = start("/shop", "share"); // redeployed: the name was given back
                serve(next[0], "/late");
                serve(next[0], "/late");
            } catch (IOException | ServletException e) {
                throw new IllegalStateException(e);
            }
            assertThat(served("/shop", "/late")).as("before the old request ends").isEqualTo(2);
        });

        assertThat(served("/shop", "/late")).as("the successor's two requests").isEqualTo(2);
        serve(next[0], "/late");
        assertThat(served("/shop", "/late")).as("the successor still records into registered meters").isEqualTo(3);
    }

    /**
     * A WAR that packs its own copy of the middleware (under the installer's bundle) has its Fairslice calls reach
     * that copy, which knows no request: said at startup. Here a class loader of its own over the same classes.
     */
    @Test
    void shouldSayWhenTheApplicationHasACopyOfTheMiddlewareOfItsOwn() throws Exception {
        URL classes = Fairslice.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader war = new URLClassLoader(new URL[] {classes},
                ClassLoader.getPlatformClassLoader())) {
            assertThat(FairsliceFilter.secondCopy(war)).startsWith("the application has a copy of fairslice of its"
                    + " own (" + classes + ")").contains("mark fairslice-middleware");
        }
        assertThat(FairsliceFilter.secondCopy(FairsliceFilter.class.getClassLoader())).isNull();
        assertThat(FairsliceFilter.secondCopy(ClassLoader.getPlatformClassLoader())).as("an application without it")
                .isNull();
    }

    @Test
    void shouldLeaveNoMetersBehindWhenAListenerRejectsItsSetting() {
        FairsliceFilter filter = new FairsliceFilter();

        assertThatThrownBy(() -> filter.init(filterConfig("/bad", Map.of("jmx", "false", "faulty.fail-start",
                "setting"), registry))).isInstanceOf(ServletException.class).hasMessageContaining("faulty.fail-start")
                .as("where the refused setting was set, as for the middleware's own keys")
                .hasMessageEndingWith("(set by filter init parameter faulty.fail-start)");

        assertThat(registry.getMeters()).as("meters of the application that failed to start, the failure counter of "
                + "the listener started before the faulty one included").isEmpty();
    }

    /**
     * A registry that refuses one of the middleware's meters (here Prometheus's, strict as Micrometer advises for
     * tests, where something else registered {@code fairslice.policy} with other tag keys): the application does not
     * start, saying which meter and why, and nothing of the attempt stays behind. Until 2026-12-02 the meters
     * registered before the refused one, the weaving gauge, the claimed name and the collectors' pause listener (which
     * holds the scheduler, and through it the application's class loader, on the platform's GC beans) stayed, on every
     * redeploy.
     */
    @Test
    void shouldLeaveNothingBehindWhenTheRegistryRefusesAMeter() throws Exception {
        PrometheusMeterRegistry strict = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        strict.config().onMeterRegistrationFailed((id, reason) -> {
            throw new IllegalArgumentException(reason);
        });
        Meter foreign = Gauge.builder(MeterNames.POLICY, () -> 1).tag("owner", "another library").register(strict);

        WeakReference<Object> scheduler = refusedStart("/refused", strict);

        assertThat(strict.getMeters()).as("only the other library's meter").containsExactly(foreign);
        for (int i = 0; i < 50 && scheduler.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(scheduler.get()).as("the scheduler of the application that did not start, collected").isNull();
        strict.remove(foreign);
        FairsliceFilter next = new FairsliceFilter();
        next.init(filterConfig("/refused", Map.of("jmx", "false"), strict));
        others.add(next);
        assertThat(strict.find(MeterNames.POLICY).tag(MeterNames.TAG_APPLICATION, "/refused").gauges())
                .as("the name given back: the next start has it").hasSize(Policy.values().length);
    }

    /**
     * A page's meters are registered as its first request ends: a strict registry that refuses them then (something
     * registered {@code fairslice.requests} with other tag keys after the start) costs the page its meters, not the
     * request: it is served, its permit comes back, and the page is not asked for again.
     */
    @Test
    void shouldServeAPageWhoseMetersTheRegistryRefuses() throws Exception {
        PrometheusMeterRegistry strict = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicInteger refusals = new AtomicInteger();
        strict.config().onMeterRegistrationFailed((id, reason) -> {
            refusals.incrementAndGet();
            throw new IllegalArgumentException(reason);
        });
        FairsliceFilter shop = new FairsliceFilter();
        shop.init(filterConfig("/shop", Map.of("jmx", "false"), strict));
        others.add(shop);
        Timer.builder(MeterNames.REQUESTS).tag("owner", "another library").register(strict);
        List<Boolean> served = new ArrayList<>();

        serve(shop, "/cart", () -> served.add(true));
        serve(shop, "/cart", () -> served.add(true));

        assertThat(served).as("both requests reached the application").hasSize(2);
        assertThat(refusals).as("the page's meters asked for once").hasValue(1);
        assertThat(strict.find(MeterNames.REQUESTS).tag(MeterNames.TAG_APPLICATION, "/shop").meters()).isEmpty();
        assertThat(shop.scheduler().classes()).allSatisfy(c -> {
            assertThat(c.running()).as("running in %s", c.name()).isZero();
            assertThat(c.permits()).as("permits of %s", c.name()).isZero();
        });
    }

    /**
     * The line that says a page's meters were refused names the page, a client's path (decoded): a {@code %0A} in it
     * started a forged log line. Percent-encoded as the route table's line and the JMX listing are.
     */
    @Test
    void shouldNotLetAClientsPathBreakTheLineThatSaysAPagesMetersWereRefused() throws Exception {
        PrometheusMeterRegistry strict = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        strict.config().onMeterRegistrationFailed((id, reason) -> {
            throw new IllegalArgumentException(reason);
        });
        FairsliceFilter shop = new FairsliceFilter();
        shop.init(filterConfig("/shop", Map.of("jmx", "false"), strict));
        others.add(shop);
        Timer.builder(MeterNames.REQUESTS).tag("owner", "another library").register(strict);

        try (LogCapture log = LogCapture.of(FairsliceMetrics.class)) {
            serve(shop, "/cart\nWARNING forged");
            assertThat(log.lines()).filteredOn(l -> l.contains("refused the meters")).singleElement()
                    .satisfies(l -> assertThat(l).doesNotContain("\n").contains("page /cart%0AWARNING%20forged "));
        }
    }

    /** Starts a filter that {@code registry} refuses; returns its scheduler, held by nothing of the test. */
    private static WeakReference<Object> refusedStart(String contextPath, MeterRegistry registry) {
        FairsliceFilter filter = new FairsliceFilter();
        assertThatThrownBy(() -> filter.init(filterConfig(contextPath, Map.of("jmx", "false"), registry)))
                .isInstanceOf(ServletException.class).hasMessageContaining("its meters could not be registered")
                .hasMessageContaining("fairslice_policy").hasMessageContaining("same set of tag keys");
        return new WeakReference<>(filter.scheduler());
    }

    private double policy(String application, String policy) {
        return registry.get(MeterNames.POLICY).tags(MeterNames.TAG_APPLICATION, application,
                MeterNames.TAG_POLICY, policy).gauge().value();
    }

    /** Requests of {@code page} that {@code application} served, over every class and outcome. */
    private long served(String application, String page) {
        return registry.find(MeterNames.REQUESTS).tags(MeterNames.TAG_APPLICATION, application, MeterNames.TAG_PAGE,
                page).timers().stream().mapToLong(Timer::count).sum();
    }

    private Set<Meter.Id> meterIds(String application) {
        return registry.getMeters().stream().map(Meter::getId)
                .filter(id -> application.equals(id.getTag(MeterNames.TAG_APPLICATION))).collect(Collectors.toSet());
    }

    private FairsliceFilter start(String contextPath, String policy) throws ServletException {
        FairsliceFilter filter = new FairsliceFilter();
        filter.init(filterConfig(contextPath, Map.of("policy", policy, "jmx", "false"), registry));
        started.put(contextPath, filter);
        return filter;
    }

    /** One GET of {@code path} through the filter, answered 200 by the chain. */
    private static void serve(FairsliceFilter filter, String path) throws IOException, ServletException {
        serve(filter, path, () -> { });
    }

    /** One GET of {@code path} through the filter, answered 200 by the chain after it runs {@code inChain}. */
    private static void serve(FairsliceFilter filter, String path, Runnable inChain)
            throws IOException, ServletException {
        Map<String, Object> attributes = new HashMap<>();
        HttpServletRequest request = fake(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getAttribute" -> attributes.get((String) args[0]);
            case "setAttribute" -> attributes.put((String) args[0], args[1]);
            case "getDispatcherType" -> DispatcherType.REQUEST;
            case "getServletPath" -> path;
            case "getMethod" -> "GET";
            default -> null;
        });
        HttpServletResponse response = fake(HttpServletResponse.class, (name, args) ->
                name.equals("getStatus") ? 200 : null);
        filter.doFilter(request, response, (req, res) -> inChain.run());
    }

    private static FilterConfig filterConfig(String contextPath, Map<String, String> params, MeterRegistry registry) {
        return filterConfig(contextPath, params, registry, "localhost");
    }

    private static FilterConfig filterConfig(String contextPath, Map<String, String> params, MeterRegistry registry,
                                             String host) {
        ServletContext context = fake(ServletContext.class, (name, args) -> switch (name) {
            case "getInitParameterNames", "getAttributeNames" -> Collections.emptyEnumeration();
            case "getClassLoader" -> ApplicationMetricsTest.class.getClassLoader();
            case "getContextPath" -> contextPath;
            case "getVirtualServerName" -> "Catalina/" + host;
            case "getAttribute" -> "io.fairslice.meterRegistry".equals(args[0]) ? registry : null;
            default -> null;
        });
        return fake(FilterConfig.class, (name, args) -> switch (name) {
            case "getFilterName" -> "fairslice";
            case "getServletContext" -> context;
            case "getInitParameter" -> params.get((String) args[0]);
            case "getInitParameterNames" -> Collections.enumeration(params.keySet());
            default -> null;
        });
    }

    private interface Answers {
        Object answer(String method, Object[] args);
    }

    /** An interface implemented by {@code answers}; unanswered methods return null, false or 0. */
    private static <T> T fake(Class<T> type, Answers answers) {
        return type.cast(Proxy.newProxyInstance(ApplicationMetricsTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    Object value = answers.answer(method.getName(), args);
                    if (value != null || !method.getReturnType().isPrimitive()) {
                        return value;
                    }
                    Class<?> r = method.getReturnType();
                    if (r == boolean.class) {
                        return false;
                    }
                    return r == long.class ? (Object) 0L : r == int.class ? (Object) 0 : null;
                }));
    }
}
