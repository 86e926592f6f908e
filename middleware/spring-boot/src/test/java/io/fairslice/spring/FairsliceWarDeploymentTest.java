package io.fairslice.spring;

import static io.fairslice.spring.BootTestSupport.logTo;
import static io.fairslice.spring.BootTestSupport.messages;
import static io.fairslice.spring.BootTestSupport.requests;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.FairsliceInitializer;
import io.fairslice.middleware.metrics.MeterNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.support.SpringBootServletInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Boot application deployed as a WAR: a real Tomcat starts the context {@code /shop} as it starts a WAR, running the
 * middleware jar's {@link FairsliceInitializer} (as the installer's bundle in {@code lib/} runs it) and the
 * application's {@link SpringBootServletInitializer} (as spring-web's initializer runs it), the meter registry the
 * bundle would give in the context attribute. The application's settings are in its {@code application.properties}.
 */
class FairsliceWarDeploymentTest {

    /** The filter's logger; held here, so that the handlers the tests add stay on it. */
    private static final Logger FILTER_LOG = Logger.getLogger(FairsliceFilter.class.getName());
    /** The hand-over's logger, held likewise. */
    private static final Logger WAR_LOG = Logger.getLogger(FairsliceWarAutoConfiguration.class.getName());

    @TempDir
    Path dir;

    private final Tomcat tomcat = new Tomcat();
    private final HttpClient client = HttpClient.newHttpClient();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    /** What the application's initializer threw, as Tomcat got it. */
    private final List<Throwable> failures = new ArrayList<>();
    private Context context;
    /** Where {@link #deploy} deploys the WAR; ROOT is "". */
    private String contextPath = "/shop";

    @AfterEach
    void stop() throws Exception {
        tomcat.stop();
        tomcat.destroy();
    }

    /** The settings of the WAR's application.properties reach the filter: they did nothing, and said nothing. */
    @Test
    void shouldHandAWarsPropertiesToTheFilterTheJarsInitializerRegisters() throws Exception {
        deploy(Map.of(), true, "fairslice.policy=observe", "fairslice.rule.1=heavy path=/reports/**",
                "fairslice.adaptive=false");

        assertThat(get("/items/7")).isEqualTo("item 7");
        assertThat(get("/reports/2024")).isEqualTo("report 2024");

        assertThat(policy(MeterNames.POLICY_OBSERVE)).as("observe, from application.properties").isEqualTo(1);
        assertThat(requests(registry, "heavy")).as("the report, by the rule in application.properties").isEqualTo(1);
        assertThat(requests(registry, "light")).isEqualTo(1);
    }

    /**
     * The application's properties are context parameters: the context's own of the same name (its descriptor's
     * {@code <Parameter>}) wins; whichever initializer runs first (both may be in WEB-INF/lib, in any order).
     */
    @ParameterizedTest(name = "the bundle's initializer first: {0}")
    @ValueSource(booleans = {false, true})
    void shouldLeaveTheContextsOwnParameterOverTheApplicationsPropertyWhicheverInitializerRunsFirst(boolean bundleFirst)
            throws Exception {
        deploy(Map.of("fairslice.policy", "sleep"), bundleFirst, "fairslice.policy=observe",
                "fairslice.rule.1=heavy path=/reports/**", "fairslice.adaptive=false");

        assertThat(get("/reports/1999")).isEqualTo("report 1999");

        assertThat(policy(MeterNames.POLICY_SLEEP)).as("the context's parameter").isEqualTo(1);
        assertThat(requests(registry, "heavy")).as("the rule of application.properties").isEqualTo(1);
    }

    /**
     * The WAR carries fairslice-spring-boot, which hands its application.properties (in WEB-INF/classes, where the
     * filter looks for Boot's property files of a WAR without it) to the filter: applied, and no warning that they
     * are not read.
     */
    @Test
    void shouldNotWarnOfTheWarsPropertiesWhenItCarriesTheModuleThatHandsThemOver() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = logTo(FILTER_LOG, lines);
        try {
            deploy(Map.of(), true, "fairslice.policy=observe");
        } finally {
            FILTER_LOG.removeHandler(handler);
        }

        assertThat(policy(MeterNames.POLICY_OBSERVE)).as("observe, from application.properties").isEqualTo(1);
        assertThat(lines).anyMatch(line -> line.startsWith("fairslice[/shop]: started"))
                .noneMatch(line -> line.contains("application.properties"));
    }

    /** The hand-over's line names ROOT "/", as the filter's lines and the meters do: it read "fairslice[]:". */
    @Test
    void shouldNameTheRootApplicationSlashInTheHandOversLine() throws Exception {
        contextPath = "";
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = logTo(WAR_LOG, lines);
        try {
            deploy(Map.of(), true, "fairslice.policy=observe");
        } finally {
            WAR_LOG.removeHandler(handler);
        }

        assertThat(lines).anyMatch(line -> line.startsWith("fairslice[/]: the application's properties"));
    }

    /** A typo in the WAR's application.properties stops the deployment naming the key, the rule and the file. */
    @Test
    void shouldStopTheDeploymentOnABadSettingInTheWarsPropertiesNamingItAndItsFile() throws Exception {
        Path properties = deploy(Map.of(), true, "fairslice.polcy=share");

        assertThat(context.getState()).isNotEqualTo(LifecycleState.STARTED);
        assertThat(failures).singleElement().satisfies(e -> assertThat(messages(e)).anyMatch(m -> m.contains(
                "polcy is not a fairslice configuration key; did you mean policy?")
                && m.contains("set by fairslice.polcy in ") && m.contains(properties.toString())));
    }

    /**
     * A file the context's own parameter names (its descriptor's {@code <Parameter>}, which wins over the application's
     * {@code fairslice.config}) is refused naming that parameter, as a bad value of the context's own is for any other
     * key: the refusal named Boot's property source of it, {@code servletContextInitParams}.
     */
    @ParameterizedTest(name = "application.properties names another file: {0}")
    @ValueSource(booleans = {false, true})
    void shouldBlameAnUnreadableFileTheContextsOwnParameterNamesOnThatParameter(boolean propertiesNameOne)
            throws Exception {
        String missing = dir.resolve("missing.properties").toString();
        deploy(Map.of("fairslice.config", missing), true, propertiesNameOne
                ? new String[] {"fairslice.config=" + dir.resolve("other.properties")} : new String[0]);

        assertThat(context.getState()).isNotEqualTo(LifecycleState.STARTED);
        assertThat(failures).singleElement().satisfies(e -> assertThat(messages(e)).anyMatch(m -> m.contains(
                "fairslice.config must name a readable file, got '" + missing
                        + "' (set by context parameter fairslice.config)")));
    }

    /**
     * Starts Tomcat with the context {@code /shop}, its own context parameters {@code parameters}, the application's
     * {@code application.properties} (in its WEB-INF/classes) holding {@code lines}; fairslice's initializer first
     * ({@code bundleFirst}, as Tomcat runs its lib/'s) or after the application's. Returns the properties file.
     */
    private Path deploy(Map<String, String> parameters, boolean bundleFirst, String... lines) throws Exception {
        Path docBase = Files.createDirectories(dir.resolve("shop"));
        Path properties = Files.createDirectories(docBase.resolve("WEB-INF/classes")).resolve("application.properties");
        Files.write(properties, List.of(lines));
        Path base = Files.createDirectories(dir.resolve("tomcat"));
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        context = tomcat.addContext(contextPath, docBase.toString());
        parameters.forEach(context::addParameter);
        context.getServletContext().setAttribute(FairsliceFilter.METER_REGISTRY_ATTRIBUTE, registry);
        ServletContainerInitializer application = (classes, servletContext) -> {
            try {
                new Shop(properties).onStartup(servletContext);
            } catch (RuntimeException e) {
                failures.add(e);
                throw new ServletException(e);
            }
        };
        if (bundleFirst) {
            context.addServletContainerInitializer(new FairsliceInitializer(), null);
            context.addServletContainerInitializer(application, null);
        } else {
            context.addServletContainerInitializer(application, null);
            context.addServletContainerInitializer(new FairsliceInitializer(), null);
        }
        tomcat.start();
        return properties;
    }

    private String get(String path) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/shop" + path);
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    private double policy(String policy) {
        return registry.get(MeterNames.POLICY).tag(MeterNames.TAG_POLICY, policy).gauge().value();
    }

    /** The WAR's initializer, as an application writes it; its application.properties where the test put it. */
    static final class Shop extends SpringBootServletInitializer {

        private final Path properties;

        Shop(Path properties) {
            this.properties = properties;
        }

        @Override
        protected SpringApplicationBuilder configure(SpringApplicationBuilder builder) {
            return builder.sources(ShopApplication.class)
                    .properties("spring.config.location=file:" + properties);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ShopApplication {

        @Bean
        Pages pages() {
            return new Pages();
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
    }
}
