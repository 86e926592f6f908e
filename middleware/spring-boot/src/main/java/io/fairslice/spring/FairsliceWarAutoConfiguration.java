package io.fairslice.spring;

import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigSources;
import io.fairslice.middleware.internal.ApplicationNames;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWarDeployment;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * fairslice in a Spring Boot application deployed as a WAR to a standalone Tomcat. There the filter is registered by
 * the servlet container initializer of the middleware's jar (the installer's bundle in Tomcat's {@code lib/}, or the
 * middleware in {@code WEB-INF/lib}), and it reads no Spring property: this hands it the application's
 * {@code fairslice.*} properties ({@link FairsliceAutoConfiguration#settings}) as context parameters, which the
 * filter reads when it starts, after every initializer has run, whichever registered it first. A context parameter
 * the context already has (web.xml, a {@code <Parameter>} of the context's descriptor) stays: Tomcat lets no
 * application replace one, and the deployer's word wins; {@code -D} system properties win over both, as everywhere.
 * The sources are checked first as the filter will merge them, so a bad key or value stops the deployment naming it
 * and the property source that set it. {@code fairslice.enabled=false} is handed over too: the jar's initializer
 * then registers nothing, or the filter it registered lets requests pass.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnWarDeployment
public class FairsliceWarAutoConfiguration {

    private static final Logger LOG = Logger.getLogger(FairsliceWarAutoConfiguration.class.getName());

    /** Boot runs it as the WAR's servlet context starts (SpringBootServletInitializer), before any filter starts. */
    @Bean
    public ServletContextInitializer fairsliceWarSettings(ConfigurableEnvironment environment) {
        return context -> handOver(context, environment);
    }

    static void handOver(ServletContext context, ConfigurableEnvironment environment) {
        Map<String, String> handed = new TreeMap<>();
        List<String> kept = new ArrayList<>();
        // FAIRSLICE_ENABLED and FAIRSLICE_CONFIG too: the filter reads only what it is handed (until 2026-12-07 the
        // first was handed only when false, the second never)
        FairsliceAutoConfiguration.settings(environment).forEach((name, value) -> {
            if (context.getInitParameter(name) == null) {
                handed.put(name, value);
            } else {
                kept.add(name);
            }
        });
        Set<String> names = new LinkedHashSet<>(Collections.list(context.getInitParameterNames()));
        names.addAll(handed.keySet());
        Map<String, String> filterParams = filterParameters(context);
        FairsliceAutoConfiguration.validate(environment, handed, ConfigSources.CONTEXT_PARAMETER_ORIGIN,
                handed.get(ConfigKeys.CONFIG_FILE_PROPERTY), context.getClassLoader(), () -> ConfigSources.merge(
                        name -> context.getInitParameter(name) != null ? context.getInitParameter(name)
                                : handed.get(name),
                        names, filterParams, context::getResourceAsStream, context.getClassLoader(),
                        System.getProperties()));
        handed.forEach(context::setInitParameter);
        if (!handed.isEmpty() || !kept.isEmpty()) {
            String path = ApplicationNames.ofContextPath(context.getContextPath());
            LOG.info(() -> ApplicationNames.logPrefix(path) + "the application's properties "
                    + handed.keySet() + " handed to the filter as context parameters"
                    + (kept.isEmpty() ? "" : "; " + kept + " left to the context's own parameters of those names,"
                    + " which win"));
        }
    }

    /** The init parameters of the filter declared in web.xml, if it is: the filter reads them over these. */
    private static Map<String, String> filterParameters(ServletContext context) {
        for (FilterRegistration registration : context.getFilterRegistrations().values()) {
            if (FairsliceFilter.class.getName().equals(registration.getClassName())) {
                return registration.getInitParameters();
            }
        }
        return Map.of();
    }
}
