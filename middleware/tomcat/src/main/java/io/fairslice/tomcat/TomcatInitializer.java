package io.fairslice.tomcat;

import io.fairslice.middleware.FairsliceInitializer;
import io.fairslice.tomcat.metrics.BundleMetrics;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.nio.file.Path;
import java.util.Set;

/**
 * The container-wide entry point of fairslice in a standalone Tomcat: Tomcat runs the initializers of the jars in
 * {@code $CATALINA_BASE/lib} for every web application, so this one decides, per application, whether the
 * middleware's own {@link FairsliceInitializer} runs (the bundle ships only this initializer in its
 * {@code META-INF/services}). It selects the applications named in {@link TomcatSettings}, never fairslice's metrics
 * application, and makes sure the Prometheus registry behind {@code /fairslice/metrics} exists before the
 * middleware registers its meters. A broken settings file stops the application with a message naming it.
 */
public final class TomcatInitializer implements ServletContainerInitializer {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) throws ServletException {
        String path = context.getContextPath();
        String name = path.isEmpty() ? "/" : path;
        if (TomcatLayout.METRICS_CONTEXT.equals(path)) {
            return;
        }
        String base = System.getProperty("catalina.base");
        TomcatSettings settings;
        try {
            settings = base == null ? TomcatSettings.defaults() : TomcatSettings.load(Path.of(base));
        } catch (IllegalArgumentException e) {
            throw new ServletException("fairslice: " + e.getMessage(), e);
        }
        if (!settings.selects(path)) {
            context.log("fairslice: not enabled in " + name + " (apps=" + String.join(",", settings.apps())
                    + " in " + TomcatLayout.TOMCAT_SETTINGS + ")");
            return;
        }
        // shared state of the bundle is created under the bundle's class loader, never the application's
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(TomcatInitializer.class.getClassLoader());
        try {
            BundleMetrics.prometheus();
            NativeInit.run();
        } finally {
            thread.setContextClassLoader(previous);
        }
        new FairsliceInitializer().onStartup(classes, context);
    }
}
