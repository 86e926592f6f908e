package io.fairslice.spring;

import static io.fairslice.spring.BootTestSupport.logTo;
import static io.fairslice.spring.BootTestSupport.messages;
import static io.fairslice.spring.BootTestSupport.requests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.metrics.MeterNames;
import io.fairslice.middleware.weaving.WeavingMetrics;
import io.fairslice.middleware.weaving.WovenClasses;
import io.fairslice.spring.shop.Reports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The auto-configuration in real Spring Boot applications: each test starts one on its embedded Tomcat (a random
 * port) with the properties it names, sends real HTTP requests and reads fairslice's meters from the application's
 * own registry.
 */
class FairsliceAutoConfigurationTest {

    /** Tasks the application's own decorator ran ({@code test.own-decorator}). */
    static final AtomicInteger OWN_DECORATOR_RUNS = new AtomicInteger();

    /** The auto-configuration's logger; held here, so that the handlers the tests add stay on it. */
    private static final Logger LOG = Logger.getLogger(FairsliceAutoConfiguration.class.getName());

    /**
     * The applications' Tomcat base folder ({@code server.tomcat.basedir}): by default Boot makes a tomcat.PORT.*
     * folder in /tmp for each, which stayed there.
     */
    @TempDir
    Path tomcatBase;

    private ConfigurableApplicationContext application;
    private final HttpClient client = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (application != null) {
            application.close();
        }
    }

    @Test
    void shouldClassifyByTheApplicationsPropertiesAndCountInItsRegistry() throws Exception {
        start("fairslice.rule.1=heavy path=/reports/**", "fairslice.adaptive=false");

        assertThat(get("/items/7")).isEqualTo("item 7");
        assertThat(get("/reports/2024")).isEqualTo("report 2024");

        MeterRegistry registry = application.getBean(MeterRegistry.class);
        assertThat(requests(registry, "light")).as("the item, light by default").isEqualTo(1);
        assertThat(requests(registry, "heavy")).as("the report, by the rule in the properties").isEqualTo(1);
        assertThat(Metrics.globalRegistry.find(MeterNames.REQUESTS).meters()).as("not the global registry").isEmpty();
    }

    /**
     * First in the chain: the application's own filters run inside a request fairslice has admitted, and so does one
     * at {@code HIGHEST_PRECEDENCE + 1}, the order of Actuator's observation filter (Spring Security's comes later
     * still, at -100): fairslice's 503s and admission waits are not in {@code http.server.requests}.
     */
    @Test
    void shouldRunBeforeTheApplicationsFilters() throws Exception {
        start("test.app-filter=true");

        assertThat(get("/items/1")).isEqualTo("item 1");

        assertThat(application.getBean(AppFilter.class).sawRequest).as("a fairslice request in the app's filter")
                .isTrue();
        @SuppressWarnings("unchecked")
        FilterRegistrationBean<AppFilter> next = application.getBean("nextFilter", FilterRegistrationBean.class);
        assertThat(next.getFilter().sawRequest).as("a fairslice request in a filter at HIGHEST_PRECEDENCE + 1")
                .isTrue();
    }

    /** Spring MVC's async requests (a Callable) come back through the ASYNC dispatch: counted once, as they end. */
    @Test
    void shouldCountAnAsyncRequestOnce() throws Exception {
        start("fairslice.rule.1=heavy path=/export");

        assertThat(get("/export")).isEqualTo("exported");

        MeterRegistry registry = application.getBean(MeterRegistry.class);
        assertThat(requests(registry, "heavy")).isEqualTo(1);
        Thread.sleep(200); // a second count would come as soon
        assertThat(registry.find(MeterNames.REQUESTS).timers().stream().filter(t -> t.count() > 0))
                .singleElement().satisfies(timer -> {
            assertThat(timer.count()).isEqualTo(1);
            assertThat(timer.getId().getTag(MeterNames.TAG_CLASS)).isEqualTo("heavy");
            assertThat(timer.getId().getTag("outcome")).isEqualTo(MeterNames.OUTCOME_SUCCESS);
        });
    }

    /**
     * The Callable's work runs on Spring's task executor, outside the filter: counted in its page's CPU all the same
     * (the executor's tasks are the request's), where the dispatch that started it took microseconds.
     */
    @Test
    void shouldCountTheCpuOfACallablesWorkAsItsRequests() throws Exception {
        start();

        assertThat(archiveCpu()).as("seconds of CPU counted for three more /archive requests").isGreaterThan(0.06);
    }

    /**
     * CPU counted for /archive over three requests after a first one (each Callable spins 30 ms of CPU on Boot's
     * executor): the first request of a fresh application also initialises Spring MVC on its dispatch thread, tens of
     * milliseconds that would pass for the Callable's work.
     */
    private double archiveCpu() throws Exception {
        assertThat(get("/archive")).isEqualTo("archived true");
        MeterRegistry registry = application.getBean(MeterRegistry.class);
        Thread.sleep(200); // the first one's task CPU is counted as its task ends, after its answer
        double before = pageCpu(registry, "/archive");
        for (int i = 0; i < 3; i++) {
            assertThat(get("/archive")).isEqualTo("archived true");
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (pageCpu(registry, "/archive") - before < 0.06 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return pageCpu(registry, "/archive") - before;
    }

    private static double pageCpu(MeterRegistry registry, String page) {
        return registry.find(MeterNames.REQUESTS_CPU).tag(MeterNames.TAG_PAGE, page).counters().stream()
                .mapToDouble(c -> c.count()).sum()
                + registry.find(MeterNames.REQUESTS_CPU).tag(MeterNames.TAG_PAGE, page).functionCounters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    @Test
    void shouldStopTheApplicationsStartupOnABadSettingNamingItAndItsFile(@TempDir Path dir) throws IOException {
        Path properties = dir.resolve("application.properties");
        Files.writeString(properties, "fairslice.polcy=share\n");

        assertThat(refusal(() -> start("spring.config.location=file:" + properties))).anyMatch(m -> m.contains(
                "polcy is not a fairslice configuration key; did you mean policy?")
                && m.contains("set by fairslice.polcy in ") && m.contains(properties.toString()));
        assertThat(Files.readString(properties)).contains("polcy");
    }

    /**
     * A request listener's setting ({@code kernel-probe.nice.heavy=25}, here a test listener's) is refused by its own
     * rule while Boot builds the filter's registration, naming the file that set it, rather than when the filter
     * starts, where it could only name the filter's init parameter.
     */
    @Test
    void shouldStopTheApplicationsStartupOnABadListenerSettingNamingItsFile(@TempDir Path dir) throws IOException {
        Path properties = dir.resolve("application.properties");
        Files.writeString(properties, "fairslice.limit.max=lots\n");

        assertThat(refusal(() -> start("spring.config.location=file:" + properties)))
                .anyMatch(m -> m.contains("limit.max must be a positive integer, got 'lots'")
                        && m.contains("set by fairslice.limit.max in ") && m.contains(properties.toString()))
                .anyMatch(m -> m.startsWith("Error creating bean with name 'fairsliceFilter'"));
    }

    /** The check takes the settings whole: classes the properties declare make their own keys valid. */
    @Test
    void shouldTakeAClassDeclaredOnlyByTheApplicationsPropertiesAsValid() throws Exception {
        start("fairslice.classes=interactive,reports", "fairslice.class.reports.share=10",
                "fairslice.rule.1=reports path=/reports/**");

        assertThat(get("/reports/1999")).isEqualTo("report 1999");

        assertThat(requests(application.getBean(MeterRegistry.class), "reports")).isEqualTo(1);
    }

    /**
     * A {@code FilterRegistrationBean<FairsliceFilter>} of the application's own, under another name than
     * {@code fairsliceFilter}, replaces the auto-configuration's: two filters ran, each with its scheduler and meters,
     * the first one's deciding.
     */
    @Test
    void shouldStandDownForTheApplicationsOwnRegistrationOfTheFilterUnderAnyName() throws Exception {
        start("test.own-registration=true");

        assertThat(get("/items/6")).isEqualTo("item 6");
        assertThat(application.containsBean(FairsliceAutoConfiguration.FILTER_BEAN)).isFalse();
        assertThat(application.getBeansOfType(FilterRegistrationBean.class).values())
                .filteredOn(r -> r.getFilter() instanceof FairsliceFilter).hasSize(1);
        assertThat(application.getBean(MeterRegistry.class).find(MeterNames.POLICY).tag("policy", "observe")
                .gauge().value()).as("the application's registration, with its parameters, is the one serving")
                .isEqualTo(1.0);
    }

    /**
     * A registration typed by the filter interface ({@code FilterRegistrationBean<Filter>}, or raw) is the
     * application's registration of fairslice all the same: two filters ran, each with its scheduler, meters and MBean,
     * ours first, and the application's parameters went unused.
     */
    @Test
    void shouldStandDownForTheApplicationsOwnRegistrationTypedByTheFilterInterface() throws Exception {
        start("test.own-untyped-registration=true");

        assertThat(get("/items/8")).isEqualTo("item 8");
        assertThat(application.getBeansOfType(FilterRegistrationBean.class).values())
                .filteredOn(r -> r.getFilter() instanceof FairsliceFilter && r.isEnabled()).hasSize(1)
                .allMatch(r -> !(r.getFilter() == application.getBean(FairsliceAutoConfiguration.FILTER_BEAN,
                        FilterRegistrationBean.class).getFilter()), "the application's");
        assertThat(application.getBean(MeterRegistry.class).find(MeterNames.POLICY).tag("policy", "observe")
                .gauge().value()).as("the application's registration, with its parameters, is the one serving")
                .isEqualTo(1.0);
    }

    @Test
    void shouldRegisterNothingWhenDisabled() throws Exception {
        start("fairslice.enabled=false");

        assertThat(get("/items/3")).isEqualTo("item 3");

        assertThat(application.containsBean(FairsliceAutoConfiguration.FILTER_BEAN)).isFalse();
        assertThat(application.getBean(MeterRegistry.class).find(MeterNames.REQUESTS).meters()).isEmpty();
    }

    /**
     * {@code fairslice.enabled} is read as the other settings are: a blank higher source sets nothing. Boot's
     * {@code @ConditionalOnProperty} took {@code -Dfairslice.enabled=} (a variable unset) over the application's
     * {@code fairslice.enabled=false} and registered fairslice.
     */
    @Test
    void shouldStayOffWhenAHigherSourceLeavesEnabledBlank() throws Exception {
        System.setProperty("fairslice.enabled", "");
        try {
            start("fairslice.enabled=false");
        } finally {
            System.clearProperty("fairslice.enabled");
        }

        assertThat(get("/items/4")).isEqualTo("item 4");
        assertThat(application.containsBean(FairsliceAutoConfiguration.FILTER_BEAN)).isFalse();
        assertThat(application.containsBean(FairsliceAutoConfiguration.TASKS_BEAN)).isFalse();
    }

    /** A {@code -D} system property wins over the command line, for {@code enabled} as for every other setting. */
    @Test
    void shouldLetASystemPropertyEnableOverTheCommandLine() throws Exception {
        System.setProperty("fairslice.enabled", "true");
        try {
            application = app().run("--fairslice.enabled=false");
        } finally {
            System.clearProperty("fairslice.enabled");
        }

        assertThat(get("/items/5")).isEqualTo("item 5");
        assertThat(application.containsBean(FairsliceAutoConfiguration.FILTER_BEAN)).isTrue();
        assertThat(requests(application.getBean(MeterRegistry.class), "light")).isEqualTo(1);
    }

    /**
     * Under the weaving agent (this module's test JVM runs with it), the application's own classes get yield points,
     * by the scope in its META-INF/aop.xml, and Spring's do not.
     */
    @Test
    void shouldReachTheYieldPointsWovenIntoTheApplicationsOwnCode() throws Exception {
        start("fairslice.policy=observe"); // observe counts every yield point reached in a request

        assertThat(get("/totals/1000")).startsWith("total ");

        MeterRegistry registry = application.getBean(MeterRegistry.class);
        assertThat(WovenClasses.sample()).contains(Reports.class.getName())
                .allMatch(name -> name.startsWith("io.fairslice.spring.shop."), "the application's own");
        assertThat(registry.get(WeavingMetrics.WOVEN_CLASSES).gauge().value()).isNotNaN().isPositive();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (registry.get(MeterNames.YIELD_POINTS).functionCounters().stream().mapToDouble(c -> c.count())
                .sum() < 1000 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(registry.get(MeterNames.YIELD_POINTS).functionCounters().stream().mapToDouble(c -> c.count()).sum())
                .as("a yield point per row, and one per call of total").isGreaterThanOrEqualTo(1001);
    }

    /**
     * Every fairslice.* setting passes with the value of the source that wins: the command line over the
     * properties; a placeholder resolved. Others do not pass.
     */
    @Test
    void shouldPassEveryFairsliceSettingWithTheValueOfTheSourceThatWins() throws Exception {
        application = app("fairslice.policy=share", "fairslice.class.heavy.share=${FAIRSLICE_TEST_NEVER_SET:25}",
                "unrelated.key=1").run("--fairslice.policy=observe");

        assertThat(initParameters()).containsEntry("fairslice.policy", "observe")
                .containsEntry("fairslice.class.heavy.share", "25").doesNotContainKey("unrelated.key");
    }

    /**
     * A rule written in {@code application.yml} as YAML writes it, a number key under {@code rule:}, reaches Boot as
     * {@code fairslice.rule[1]} (its name for a list item or a number key): it is the key {@code rule.1}, and a
     * higher source's {@code rule.1} still wins over it. It stopped the application, {@code rule[1] is not a
     * fairslice configuration key}.
     */
    @Test
    void shouldReadARuleWrittenInYamlAsANumberKeyAsThatRule(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("application.yml");
        Files.writeString(yaml, "fairslice:\n  adaptive: false\n  rule:\n    1: heavy path=/reports/**\n"
                + "  route:\n    1: /items/*\n");
        start("spring.config.location=file:" + yaml);

        assertThat(initParameters()).containsEntry("fairslice.rule.1", "heavy path=/reports/**")
                .containsEntry("fairslice.route.1", "/items/*").doesNotContainKey("fairslice.rule[1]");
        assertThat(get("/reports/2024")).isEqualTo("report 2024");
        assertThat(requests(application.getBean(MeterRegistry.class), "heavy")).as("by the YAML's rule").isEqualTo(1);
        application.close();

        application = app("spring.config.location=file:" + yaml).run("--fairslice.rule.1=light path=/reports/**");
        assertThat(initParameters()).as("the command line over the YAML file")
                .containsEntry("fairslice.rule.1", "light path=/reports/**");
    }

    /**
     * One property source that sets a rule by both its names, {@code fairslice.rule.1} and Boot's
     * {@code fairslice.rule[1]} (a flat key beside YAML's number key, or both spellings in a properties file), stops
     * the application naming both: it answers for one of them, and the other went unused without a word. Between two
     * sources Boot's order of precedence decides, either way round, as for any key: {@code application.properties}
     * over {@code application.yml} in one folder, the command line over both.
     */
    @Test
    void shouldRefuseBothNamesOfARuleInOneSourceButLetAHigherSourceWin(@TempDir Path dir) throws IOException {
        Path yaml = dir.resolve("application.yml");
        Files.writeString(yaml, "fairslice:\n  rule.1: light path=/reports/**\n"
                + "  rule:\n    1: heavy path=/reports/**\n");

        assertThat(refusal(() -> start("spring.config.location=file:" + yaml))).anyMatch(m -> m.contains(
                "fairslice.rule.1 and fairslice.rule[1] are both set in ") && m.contains(yaml.toString())
                && m.contains("('light path=/reports/**' and 'heavy path=/reports/**')") && m.contains("keep one"));
        assertThat(refusal(() -> start("fairslice.route.1=/items/*", "fairslice.route[1]=/reports/*")))
                .as("in a properties source, and a route").anyMatch(m -> m.contains(
                        "fairslice.route.1 and fairslice.route[1] are both set in defaultProperties"));

        Files.writeString(yaml, "fairslice:\n  rule:\n    1: heavy path=/reports/**\n");
        Files.writeString(dir.resolve("application.properties"), "fairslice.rule.1=light path=/reports/**\n");
        start("spring.config.location=file:" + dir + "/");
        assertThat(initParameters()).as("application.properties over application.yml")
                .containsEntry("fairslice.rule.1", "light path=/reports/**").doesNotContainKey("fairslice.rule[1]");
        application.close();

        application = app("spring.config.location=file:" + dir + "/").run("--fairslice.rule[1]=heavy path=/x");
        assertThat(initParameters()).as("the command line's rule[1] over the files' rule.1")
                .containsEntry("fairslice.rule.1", "heavy path=/x");
    }

    /**
     * A YAML list ({@code classes:} with {@code - interactive} items) reaches Boot as {@code fairslice.classes[0]}:
     * refused, with a message that says to write the list comma-separated (a list of rules: each under its number).
     * It said only that {@code classes[0]} is not a key, and that per-class keys need a configured class.
     */
    @Test
    void shouldSayToWriteAYamlListCommaSeparated(@TempDir Path dir) throws IOException {
        Path yaml = dir.resolve("application.yml");
        Files.writeString(yaml, "fairslice:\n  classes:\n    - interactive\n    - reports\n");

        assertThat(refusal(() -> start("spring.config.location=file:" + yaml))).anyMatch(m -> m.contains(
                "classes[0] is not a fairslice configuration key") && m.contains(yaml.toString())
                && m.contains("a YAML list") && m.contains("comma-separated (fairslice.classes: interactive,reports)"));

        Files.writeString(yaml, "fairslice:\n  rule:\n    - heavy path=/reports/**\n");
        assertThat(refusal(() -> start("spring.config.location=file:" + yaml))).as("a list of rules")
                .anyMatch(m -> m.contains("rule[0] is not a fairslice configuration key")
                        && m.contains("write each rule under its number, 1 and up (fairslice.rule.1: ...)"));
    }

    /**
     * A blank value sets nothing, as in the filter's own sources: {@code -Dfairslice.policy=$POLICY} with
     * {@code POLICY} unset (or a compose file's empty {@code FAIRSLICE_POLICY=}) leaves the policy of the
     * application's properties.
     * Boot's own resolution keeps the highest source's value, blank included, and the filter then ignored it: the
     * default policy ran.
     */
    @Test
    void shouldLeaveALowerSourcesValueWhenAHigherOneIsBlank() {
        System.setProperty("fairslice.policy", "");
        try {
            application = app("fairslice.policy=observe").run();
        } finally {
            System.clearProperty("fairslice.policy");
        }

        assertThat(initParameters()).containsEntry("fairslice.policy", "observe");
        assertThat(application.getBean(MeterRegistry.class).get(MeterNames.POLICY)
                .tag(MeterNames.TAG_POLICY, MeterNames.POLICY_OBSERVE).gauge().value()).as("observe in effect")
                .isEqualTo(1);
    }

    /**
     * Each setting is read by the name it was written with: Boot's relaxed binding ignores dashes, and gave classes
     * {@code batch-jobs} and {@code batchjobs} one share between them.
     */
    @Test
    void shouldKeepTheSettingsOfClassesWhoseNamesDifferOnlyByADash() {
        start("fairslice.classes=light,batch-jobs,batchjobs", "fairslice.class.batch-jobs.share=10",
                "fairslice.class.batchjobs.share=30");

        assertThat(initParameters()).containsEntry("fairslice.class.batch-jobs.share", "10")
                .containsEntry("fairslice.class.batchjobs.share", "30");
    }

    /**
     * An environment variable counts for a key another source lists, by Boot's names for it, and an empty one (a
     * compose file's {@code FAIRSLICE_POLICY=}) sets nothing.
     */
    @Test
    void shouldReadEnvironmentVariablesByBootsNamesAndSkipEmptyOnes() {
        StandardEnvironment environment = withVariables(Map.of(
                "FAIRSLICE_POLICY", "", "FAIRSLICE_CLASS_BATCHJOBS_SHARE", "30", "FAIRSLICE_SHARE_QUANTUM", "2ms"),
                Map.of("fairslice.policy", "observe", "fairslice.class.batchjobs.share", "50",
                        "fairslice.share.quantum", "", "fairslice.sleep.quantum", " "));

        assertThat(FairsliceAutoConfiguration.settings(environment)).containsOnly(
                Map.entry("fairslice.policy", "observe"),
                Map.entry("fairslice.class.batchjobs.share", "30"),
                Map.entry("fairslice.share.quantum", "2ms"));
    }

    /**
     * An environment variable alone sets its key (in a container, the usual way to configure): until 2026-12-05 it
     * counted only for a key another source listed, and {@code FAIRSLICE_POLICY=observe} alone left share on without a
     * word. Boot lists a variable by its own name only, so fairslice looks its keys up: the fixed ones (dashes dropped
     * or not), the configured classes' (named by a variable too), rules and routes by their number.
     */
    @Test
    void shouldReadAKeyAnEnvironmentVariableAloneSets() {
        StandardEnvironment environment = withVariables(Map.of(
                "FAIRSLICE_POLICY", "observe", "FAIRSLICE_SHARE_MAXPARK", "100ms",
                "FAIRSLICE_CLASSES", "interactive,batch-jobs", "FAIRSLICE_CLASS_BATCHJOBS_SHARE", "5",
                "FAIRSLICE_CLASS_INTERACTIVE_QUEUE_SIZE", "10", "FAIRSLICE_RULE_12", "batch-jobs path=/export/*",
                "FAIRSLICE_ROUTE_3", "/orders/*", "FAIRSLICE_POLCY", "sleep", "FAIRSLICE_JAVA_OPTS", "-Xmx1g"),
                Map.of("fairslice.share.quantum", "2ms"));

        assertThat(FairsliceAutoConfiguration.settings(environment)).containsOnly(
                Map.entry("fairslice.policy", "observe"),
                Map.entry("fairslice.share.max-park", "100ms"),
                Map.entry("fairslice.classes", "interactive,batch-jobs"),
                Map.entry("fairslice.class.batch-jobs.share", "5"),
                Map.entry("fairslice.class.interactive.queue-size", "10"),
                Map.entry("fairslice.rule.12", "batch-jobs path=/export/*"),
                Map.entry("fairslice.route.3", "/orders/*"),
                Map.entry("fairslice.share.quantum", "2ms"));
    }

    /**
     * A listener's setting that ends in a class ({@code kernel-probe.nice.heavy}, declared {@code nice.*}) is looked up
     * for each configured class; {@code fairslice.kernel-probe.nice.*} itself matched no variable, and
     * {@code FAIRSLICE_KERNELPROBE_NICE_HEAVY} was ignored. The listener's other settings, and this module's test
     * listener's {@code limit.max}, are looked up as they are.
     */
    @Test
    void shouldLookAListenersPerClassSettingUpForEachClass() {
        Map<String, Set<String>> declared = Map.of("kernel-probe",
                Set.of("enabled", "nice.*"));
        StandardEnvironment environment = withVariables(Map.of("FAIRSLICE_LIMIT_MAX", "7"),
                Map.of());

        assertThat(FairsliceAutoConfiguration.classKeys("light, batch-jobs", declared)).contains(
                "fairslice.class.light.share", "fairslice.class.batch-jobs.queue-timeout",
                "fairslice.kernel-probe.nice.light", "fairslice.kernel-probe.nice.batch-jobs")
                .noneMatch(key -> key.contains("*"));
        assertThat(FairsliceAutoConfiguration.variableKeys(environment, declared))
                .contains("fairslice.kernel-probe.enabled", "fairslice.policy").noneMatch(key -> key.contains("*"));
        assertThat(FairsliceAutoConfiguration.settings(environment)).containsEntry("fairslice.limit.max", "7");
    }

    /**
     * An environment of these environment variables and, below them, an application's properties (no system
     * properties), with Boot's relaxed view attached as an application has it.
     */
    private static StandardEnvironment withVariables(Map<String, Object> variables,
                                                     Map<String, Object> application) {
        StandardEnvironment environment = new StandardEnvironment();
        MutablePropertySources sources = environment.getPropertySources();
        sources.remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        String name = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;
        sources.replace(name, new SystemEnvironmentPropertySource(name, variables));
        sources.addLast(new MapPropertySource("application", application));
        org.springframework.boot.context.properties.source.ConfigurationPropertySources.attach(environment);
        return environment;
    }

    /**
     * With {@code SpringApplication.setEnvironmentPrefix("myapp")} the application's binding reads
     * {@code MYAPP_FAIRSLICE_POLICY}; fairslice read none of the prefixed variables,
     * {@code MYAPP_FAIRSLICE_ENABLED=false} included. Boot marks the variables' source with its prefix
     * (PropertySourceInfo), as this stand-in does.
     */
    @Test
    void shouldReadVariablesUnderTheApplicationsEnvironmentPrefix() {
        StandardEnvironment environment = new StandardEnvironment();
        MutablePropertySources sources = environment.getPropertySources();
        sources.remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        String name = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;
        sources.replace(name, new PrefixedVariables(name, Map.of("MYAPP_FAIRSLICE_POLICY", "observe",
                "MYAPP_FAIRSLICE_RULE_1", "heavy path=/reports/**", "FAIRSLICE_POLICY", "sleep")));
        org.springframework.boot.context.properties.source.ConfigurationPropertySources.attach(environment);

        assertThat(environment.getProperty("fairslice.policy")).as("Boot's own binding").isEqualTo("observe");
        assertThat(FairsliceAutoConfiguration.settings(environment)).containsOnly(
                Map.entry("fairslice.policy", "observe"),
                Map.entry("fairslice.rule.1", "heavy path=/reports/**"));
    }

    /** The variables as Boot's environment post-processor leaves them under a prefix. */
    private static final class PrefixedVariables extends SystemEnvironmentPropertySource
            implements org.springframework.boot.env.PropertySourceInfo {
        PrefixedVariables(String name, Map<String, Object> variables) {
            super(name, variables);
        }

        @Override
        public String getPrefix() {
            return "myapp";
        }
    }

    /** Before Boot 3.5 two TaskDecorator beans turn both off (spring-boot#45295): said, with what to do. */
    @Test
    void shouldWarnOfTwoTaskDecoratorsOnABootThatAppliesOnlyAnOnlyOne() {
        List<String> two = List.of("tracingDecorator", FairsliceAutoConfiguration.TASKS_BEAN);

        assertThat(FairsliceAutoConfiguration.decoratorConflict("3.4.9", two)).startsWith("fairslice: Spring Boot"
                + " 3.4.9 applies a TaskDecorator to its task executor only when there is one, and there are"
                + " [tracingDecorator, fairsliceTasks], so it applies none").contains("Use Boot 3.5 or later");
        assertThat(FairsliceAutoConfiguration.decoratorConflict("3.0.0", two)).isNotNull();
        assertThat(FairsliceAutoConfiguration.decoratorConflict("3.5.0", two)).isNull();
        assertThat(FairsliceAutoConfiguration.decoratorConflict("4.0.7", two)).isNull();
        assertThat(FairsliceAutoConfiguration.decoratorConflict(null, two)).as("a version it cannot tell").isNull();
        assertThat(FairsliceAutoConfiguration.decoratorConflict("3.4.9", List.of("fairsliceTasks"))).isNull();
    }

    /**
     * {@code FAIRSLICE_ENABLED} reaches the settings as every variable does: false is handed to a WAR (whose filter the
     * jar's initializer registers and reads only what it is handed: fairslice ran fully), and a value that is not a
     * boolean is refused naming the variable (it was never read, and fairslice ran fully, embedded too).
     * {@code FAIRSLICE_CONFIG} reaches a WAR too (it was dropped; embedded, the file was read).
     */
    @Test
    void shouldHandEnabledAndTheConfigFileFromTheirEnvironmentVariablesAndCheckThem() {
        StandardEnvironment off = withVariables(Map.of("FAIRSLICE_ENABLED", "False", "FAIRSLICE_POLICY",
                "observe", "FAIRSLICE_CONFIG", "/etc/fairslice.properties"), Map.of());
        StandardEnvironment no = withVariables(Map.of("FAIRSLICE_ENABLED", "no"), Map.of());

        assertThat(FairsliceAutoConfiguration.settings(off)).containsOnly(
                Map.entry("fairslice.enabled", "False"), Map.entry("fairslice.policy", "observe"),
                Map.entry("fairslice.config", "/etc/fairslice.properties"));
        assertThat(FairsliceAutoConfiguration.settings(no))
                .containsOnly(Map.entry("fairslice.enabled", "no"));
        Map<String, String> settings = FairsliceAutoConfiguration.settings(no);
        assertThat(catchThrowable(() -> FairsliceAutoConfiguration.validate(no, settings)))
                .hasMessageContaining("enabled must be true or false, got 'no'")
                .hasMessageContaining("(set by fairslice.enabled in systemEnvironment)");
    }

    /**
     * A -D system property wins over the command line in the filter's merge, as over every source: a bad value it
     * gives is blamed on it, not on the command line that also names the key (Boot's highest source listing it).
     */
    @Test
    void shouldBlameTheSystemPropertyWhoseBadValueWins() {
        System.setProperty("fairslice.share.quantum", "5 parsecs");
        try {
            assertThat(refusal(() -> app().run("--fairslice.share.quantum=2ms")))
                    .anyMatch(m -> m.contains("5 parsecs")
                            && m.contains("(set by system property -Dfairslice.share.quantum)"))
                    .noneMatch(m -> m.contains("commandLineArgs"));
        } finally {
            System.clearProperty("fairslice.share.quantum");
        }
    }

    /**
     * Several registries and none primary: the meters go to Micrometer's global registry, which the application may
     * not export. Said at startup (it went unsaid).
     */
    @Test
    void shouldSayWhenSeveralMeterRegistriesLeaveTheMetersToTheGlobalOne() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = logTo(LOG, lines);
        try {
            start("test.second-registry=true");
        } finally {
            LOG.removeHandler(handler);
        }

        assertThat(lines).anyMatch(line -> line.startsWith("fairslice: the application has 2 MeterRegistry beans and"
                + " none is @Primary, so fairslice's meters go to Micrometer's global registry"));
        assertThat(get("/items/5")).isEqualTo("item 5");
        assertThat(Metrics.globalRegistry.find(MeterNames.POLICY).meters()).as("in the global registry").isNotEmpty();
        assertThat(application.getBeansOfType(MeterRegistry.class).values())
                .allMatch(registry -> registry.find(MeterNames.POLICY).meters().isEmpty(), "none in the beans");
    }

    /**
     * Boot's {@code server.servlet.context-parameters.fairslice.*} reach the filter as context parameters: a typo there
     * is refused while Boot builds the filter's registration, with the others, not only by the filter as it starts.
     */
    @Test
    void shouldCheckFairsliceSettingsAmongBootsContextParameters() {
        assertThat(refusal(() -> start("server.servlet.context-parameters.fairslice.polcy=share")))
                .anyMatch(m -> m.contains("polcy is not a fairslice configuration key; did you mean policy?")
                        && m.contains("context parameter"))
                .anyMatch(m -> m.contains("fairsliceFilter"));
    }

    /**
     * A properties file that cannot be read is refused naming where it was named (it was refused unnamed): the
     * property source that set {@code fairslice.config}, or the {@code -D} system property, which the filter reads
     * over the other sources; Boot's {@code server.servlet.context-parameters.fairslice.config} is a context parameter,
     * as for any other key (it was "set by fairslice.config in the environment", a property nothing set).
     */
    @Test
    void shouldSayWhereAnUnreadableConfigFileWasNamed(@TempDir Path dir) {
        Path missing = dir.resolve("missing.properties");
        assertThat(refusal(() -> start("fairslice.config=" + missing)))
                .anyMatch(m -> m.contains("fairslice.config must name a readable file")
                        && m.contains(missing.toString()) && m.contains("(set by fairslice.config in "));
        assertThat(refusal(() -> start("server.servlet.context-parameters.fairslice.config=" + missing)))
                .anyMatch(m -> m.contains("fairslice.config must name a readable file, got '" + missing
                        + "' (set by context parameter fairslice.config)"));
        Path system = dir.resolve("system.properties");
        System.setProperty("fairslice.config", system.toString());
        try {
            assertThat(refusal(() -> app().run("--fairslice.config=" + missing)))
                    .anyMatch(m -> m.contains("fairslice.config must name a readable file, got '" + system
                            + "' (set by system property -Dfairslice.config)"))
                    .noneMatch(m -> m.contains(missing.toString()));
        } finally {
            System.clearProperty("fairslice.config");
        }
    }

    /** Not a silent off switch: anything but false is checked as the filter checks it. */
    @Test
    void shouldRefuseAnEnabledThatIsNeitherTrueNorFalse() {
        assertThat(refusal(() -> start("fairslice.enabled=yes")))
                .anyMatch(m -> m.contains("enabled") && m.contains("'yes'"));
    }

    /**
     * Boot composes the application's own TaskDecorator (a tracing context's, say) with fairslice's: both apply, and
     * the Callable's work is counted as its request's (fairslice stood down for any decorator of the application's,
     * though Boot 3.5 and later apply every one).
     */
    @Test
    void shouldCountTheCallablesWorkBesideTheApplicationsOwnTaskDecorator() throws Exception {
        OWN_DECORATOR_RUNS.set(0);
        start("test.own-decorator=true");

        assertThat(archiveCpu()).as("seconds of CPU counted for three more /archive requests").isGreaterThan(0.06);
        assertThat(OWN_DECORATOR_RUNS.get()).as("the application's decorator ran too").isEqualTo(4);
    }

    /** An executor of the application's own replaces Boot's, which the decorator reaches: said at startup. */
    @Test
    void shouldSayWhenBootsTaskExecutorIsNotInUse() {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = logTo(LOG, lines);
        try {
            start("test.own-executor=true");

            assertThat(lines).anyMatch(line -> line.startsWith("fairslice: Boot's task executor"
                    + " (applicationTaskExecutor) is not in use"));
            application.close();
            lines.clear();
            start("test.own-decorator=true");
            assertThat(lines).as("with Boot's executor, whatever decorators the application has").isEmpty();
        } finally {
            LOG.removeHandler(handler);
        }
    }

    /** The init parameters the application's fairslice filter bean was given. */
    @SuppressWarnings("unchecked")
    private Map<String, String> initParameters() {
        return application.getBean(FairsliceAutoConfiguration.FILTER_BEAN, FilterRegistrationBean.class)
                .getInitParameters();
    }

    private void start(String... properties) {
        application = app(properties).run();
    }

    /** The messages of the failure {@code start} must end in, outermost first ({@link BootTestSupport#messages}). */
    private static List<String> refusal(ThrowableAssert.ThrowingCallable start) {
        Throwable thrown = catchThrowable(start);
        assertThat(thrown).as("a refused start").isNotNull();
        return messages(thrown);
    }

    /** The application on a free loopback port, its Tomcat based in {@link #tomcatBase}, with {@code properties}. */
    private SpringApplicationBuilder app(String... properties) {
        List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
                "server.tomcat.basedir=" + tomcatBase));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
                .properties(all.toArray(String[]::new));
    }

    private String get(String path) throws IOException, InterruptedException {
        int port = application.getBean(Environment.class).getRequiredProperty("local.server.port", Integer.class);
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        @ConditionalOnProperty("test.second-registry")
        MeterRegistry secondMeterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        @ConditionalOnProperty("test.app-filter")
        AppFilter appFilter() {
            return new AppFilter();
        }

        /** Right after fairslice's order, where Actuator's ServerHttpObservationFilter runs. */
        @Bean
        @ConditionalOnProperty("test.app-filter")
        FilterRegistrationBean<AppFilter> nextFilter() {
            FilterRegistrationBean<AppFilter> registration = new FilterRegistrationBean<>(new AppFilter());
            registration.setOrder(org.springframework.core.Ordered.HIGHEST_PRECEDENCE + 1);
            return registration;
        }

        /** The application's own registration of fairslice, under a name of its choosing. */
        @Bean
        @ConditionalOnProperty("test.own-registration")
        FilterRegistrationBean<FairsliceFilter> myFairslice() {
            FilterRegistrationBean<FairsliceFilter> registration = new FilterRegistrationBean<>(new FairsliceFilter());
            registration.setAsyncSupported(true);
            registration.addInitParameter("fairslice.policy", "observe");
            return registration;
        }

        /** The same, typed by the filter interface: Boot's bean conditions, which match the declared type, miss it. */
        @Bean
        @ConditionalOnProperty("test.own-untyped-registration")
        FilterRegistrationBean<Filter> myUntypedFairslice() {
            FilterRegistrationBean<Filter> registration =
                    new FilterRegistrationBean<>(new FairsliceFilter());
            registration.setAsyncSupported(true);
            registration.addInitParameter("fairslice.policy", "observe");
            return registration;
        }

        @Bean
        @ConditionalOnProperty("test.own-decorator")
        org.springframework.core.task.TaskDecorator ownDecorator() {
            return runnable -> () -> { // a tracing context's, say
                OWN_DECORATOR_RUNS.incrementAndGet();
                runnable.run();
            };
        }

        @Bean
        @ConditionalOnProperty("test.own-executor")
        Executor ownExecutor() {
            return Runnable::run;
        }

        @Bean
        Pages pages() {
            return new Pages();
        }
    }

    static final class AppFilter extends OncePerRequestFilter {

        volatile boolean sawRequest;

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            sawRequest = Fairslice.classify("light"); // false outside a request fairslice serves
            chain.doFilter(request, response);
        }
    }

    @RestController
    static class Pages {

        @GetMapping("/items/{id}")
        String item(@PathVariable("id") String id) {
            return "item " + id;
        }

        @GetMapping("/reports/{year}")
        String report(@PathVariable("year") String year) {
            return "report " + year;
        }

        @GetMapping("/totals/{rows}")
        String totals(@PathVariable("rows") int rows) {
            return "total " + Reports.total(rows);
        }

        @GetMapping("/export")
        Callable<String> export() {
            return () -> "exported";
        }

        /** A Callable that computes for 30 ms of its thread's CPU, on Spring MVC's task executor. */
        @GetMapping("/archive")
        Callable<String> archive() {
            return () -> {
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long end = threads.getCurrentThreadCpuTime() + 30_000_000L;
                long spins = 0;
                while (threads.getCurrentThreadCpuTime() < end) {
                    spins++;
                }
                return "archived " + (spins > 0);
            };
        }
    }
}
