package io.fairslice.tomcat;

import io.fairslice.middleware.FairsliceInitializer;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.tomcat.metrics.BundleMetrics;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The container-wide entry point of fairslice in a standalone Tomcat: Tomcat runs the initializers of the jars in
 * {@code $CATALINA_BASE/lib} for every web application, so this one decides, per application, whether the
 * middleware's own {@link FairsliceInitializer} runs (the bundle ships only this initializer in its
 * {@code META-INF/services}). It selects the applications named in {@link TomcatSettings}, never fairslice's metrics
 * application, and makes sure the Prometheus registry behind {@code /fairslice/metrics} exists before the
 * middleware registers its meters. A broken settings file stops the application with a message naming it.
 */
public final class TomcatInitializer implements ServletContainerInitializer {

    private static final Logger LOG = Loggers.of(TomcatInitializer.class);
    /** Whether the unread configuration was logged: once for the JVM, not once per application. */
    private static final AtomicBoolean UNREAD_SAID = new AtomicBoolean();

    /**
     * A warning when the installer's {@code conf/fairslice.properties} exists under {@code catalinaBase} but the JVM
     * was not told to read it ({@code -Dfairslice.config}, set by the installer's {@code bin/setenv.sh}): Tomcat
     * started without its scripts (a Windows service, whose wrapper starts Java directly; a start that bypasses
     * catalina.sh). The jars in lib/ still run fairslice, with the defaults and no weaving agent: the file was passed
     * over in silence. Null otherwise.
     */
    static String unreadConfiguration(String catalinaBase, String configProperty) {
        if (catalinaBase == null || configProperty != null && !configProperty.isBlank()) {
            return null;
        }
        Path file = Path.of(catalinaBase).resolve(TomcatLayout.CONFIG);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        return "fairslice: " + file + " is not read: this JVM has no -Dfairslice.config, which the installer's"
                + " bin/setenv.sh sets (Tomcat started without its scripts: a Windows service, say); fairslice runs"
                + " with its defaults and without the weaving agent. Give the JVM the options setenv.sh holds"
                + " (docs/tomcat.md)";
    }

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) throws ServletException {
        String path = context.getContextPath();
        String name = ApplicationNames.ofContextPath(path);
        if (TomcatLayout.METRICS_CONTEXT.equals(path)) {
            return;
        }
        String base = System.getProperty("catalina.base");
        TomcatSettings settings;
        try {
            settings = base == null ? TomcatSettings.defaults() : TomcatSettings.load(Path.of(base));
        } catch (IllegalArgumentException e) {
            // Tomcat's own line says only "Error during ServletContainerInitializer processing", the reason in the
            // stack trace under it: say it on one line, as the filter does for its configuration
            LOG.severe(() -> ApplicationNames.logPrefix(name) + "not started, so the application does not start: "
                    + e.getMessage());
            throw new ServletException(ApplicationNames.logPrefix(name) + e.getMessage(), e);
        }
        if (!settings.selects(path)) {
            context.log(ApplicationNames.logPrefix(name) + "not enabled (apps=" + String.join(",", settings.apps())
                    + " in " + TomcatLayout.TOMCAT_SETTINGS + ")");
            return;
        }
        String unread = unreadConfiguration(base, System.getProperty("fairslice.config"));
        if (unread != null && UNREAD_SAID.compareAndSet(false, true)) {
            LOG.warning(unread);
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
