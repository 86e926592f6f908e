package io.fairslice.middleware;

import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.ConfigSources;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import java.util.EnumSet;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Registers {@link FairsliceFilter} on {@code /*} (first, REQUEST and ASYNC, async supported) in every web
 * application that can see the jar (WEB-INF/lib or the container's lib). Does nothing when the application already
 * declares the filter itself, or when {@code fairslice.enabled=false} is a system property or context parameter.
 */
public final class FairsliceInitializer implements ServletContainerInitializer {

    private static final Logger LOG = Loggers.of(FairsliceInitializer.class);
    public static final String FILTER_NAME = "fairslice";

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        ConfigSources.Named enabled = ConfigSources.systemPropertyOrContextParameter(
                ConfigKeys.PREFIX + ConfigKeys.ENABLED, context::getInitParameter, System.getProperties());
        String path = ApplicationNames.ofContextPath(context.getContextPath());
        if (enabled != null && ConfigKeys.turnsOff(enabled.value())) {
            LOG.info(() -> ApplicationNames.logPrefix(path) + "not registered (enabled=false, set " + enabled.origin()
                    + ")");
            return;
        }
        for (FilterRegistration r : context.getFilterRegistrations().values()) {
            if (FairsliceFilter.class.getName().equals(r.getClassName())) {
                return; // declared in web.xml: that declaration wins
            }
        }
        // an instance, not the class: Tomcat keeps only a class's name and loads it through the application's class
        // loader, which looks in WEB-INF/lib first, so a WAR that packs its own copy of the middleware ran that copy
        // under the installer's bundle (its request listeners not its type, its meters in its own registry, and the
        // copy's warning never said: FairsliceFilter.secondCopy compared the copy with itself)
        FilterRegistration.Dynamic r = context.addFilter(FILTER_NAME, new FairsliceFilter());
        if (r == null) {
            LOG.warning(() -> ApplicationNames.logPrefix(path) + "not registered: a filter named '" + FILTER_NAME
                    + "' already exists");
            return;
        }
        r.setAsyncSupported(true);
        r.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
    }
}
