package io.fairslice.tomcat.install;

import io.fairslice.tomcat.TomcatLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * {@code fairslice install}: the command line over {@link Installation}. Exit status 0 when done, 2 when it refused
 * (bad option, not a Tomcat, damaged block or record) without changing anything, 1 when an I/O error stopped it.
 */
public final class Installer {

    private Installer() {
    }

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /** Runs the installer; returns the exit status. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(InstallOptions.USAGE);
            return 0;
        }
        try {
            InstallOptions options = InstallOptions.parse(args, defaultDist());
            // the home is looked at for the version only: an uninstall needs none (that Tomcat may be gone)
            TomcatBase base = TomcatBase.open(options.catalinaBase(), options.uninstall() ? null
                    : options.catalinaHome());
            Installation installation = new Installation(base, version(), line -> out.println("  " + line));
            if (options.uninstall()) {
                if (refusedWhileRunning(base, err, "uninstall", "Its JVM still reads the weaving agent and jars the"
                        + " uninstall deletes: at its shutdown AspectJ logged SEVERE errors and left ajcore.*.txt"
                        + " dumps.")) {
                    return 2;
                }
                out.println("fairslice: uninstalling from " + base.dir());
                if (installation.uninstall()) {
                    out.println("fairslice: removed; Tomcat starts without it from now on.");
                }
                return 0;
            }
            if (!options.weave().isEmpty()) {
                TomcatBase.checkWeavingPathCharacters(base.dir());
            }
            Bundle bundle = Bundle.open(options.dist(), args.contains("--dist")); // (no option's value starts --)
            List<String> removed = installation.jarsRemovedBy(options, bundle);
            if (!removed.isEmpty() && refusedWhileRunning(base, err, "install", "This install deletes "
                    + String.join(", ", removed) + " of the last one, which its JVM still reads (as an uninstall"
                    + " would: at its shutdown AspectJ logged SEVERE errors).")) {
                return 2;
            }
            out.println("fairslice: installing " + version() + " into " + base.dir()
                    + base.version().map(v -> " (Tomcat " + v + ")").orElse(" (Tomcat version not checked: no"
                            + " lib/catalina.jar here; pass --catalina-home to check it)"));
            // a running Tomcat deploys a new context descriptor at once (autoDeploy), and the metrics application's
            // servlet is in lib/, which it read at its start: that deployment fails, with a SEVERE in its log
            boolean runningWithoutMetricsApp = options.metrics() && !Files.exists(installation.metricsDescriptor())
                    && RunningTomcat.find(base.dir(), Path.of("/proc")).isPresent();
            installation.install(options, bundle);
            out.println("fairslice: done. Restart Tomcat to apply it. Configuration: "
                    + base.dir().resolve(TomcatLayout.CONFIG)
                    + (options.metrics() ? "; metrics: " + metricsUrl(base, options.metricsPorts()) : ""));
            if (runningWithoutMetricsApp) {
                out.println("fairslice: note: Tomcat is running from " + base.dir() + ": with autoDeploy it tries the"
                        + " new " + TomcatLayout.METRICS_CONTEXT + " application now and fails (SEVERE in its log: its"
                        + " servlet is in lib/, which this Tomcat has not read); the restart starts it");
            }
            return 0;
        } catch (InstallException e) {
            // as the launcher refuses a command line before it builds (refuse_usage): the message, then the usage
            err.println("fairslice install: " + e.getMessage());
            if (e.showsUsage()) {
                err.print(InstallOptions.USAGE);
            }
            return 2;
        } catch (IllegalStateException e) {
            err.println("fairslice install: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("fairslice install: stopped by an I/O error: " + e + " (what was done so far is listed"
                    + " above; fix the cause and run the installer again)");
            return 1;
        }
    }

    /**
     * Whether a Tomcat runs from the base (as Linux's /proc shows it), in which case this says so on {@code err}: stop
     * it, then {@code step}, then start it, and {@code why}. Nothing was changed yet.
     */
    private static boolean refusedWhileRunning(TomcatBase base, PrintStream err, String step, String why) {
        OptionalLong running = RunningTomcat.find(base.dir(), Path.of("/proc"));
        if (running.isPresent()) {
            err.println("fairslice install: Tomcat is running from " + base.dir() + " (process " + running.getAsLong()
                    + "): stop it first (bin/shutdown.sh), then " + step + ", then start it. " + why
                    + " Nothing was changed");
        }
        return running.isPresent();
    }

    /**
     * Where the metrics answer: through server.xml's first HTTP/1.1 connector. On a connector that listens on another
     * address than loopback, the metrics servlet answers only if {@code --metrics-ports} lists its port.
     */
    private static String metricsUrl(TomcatBase base, List<Integer> metricsPorts) {
        return base.httpConnector().map(c -> {
            String url = c.localUrl(TomcatLayout.METRICS_PATH);
            boolean listed = metricsPorts.stream().anyMatch(p -> String.valueOf(p).equals(c.port()));
            if (listed && c.everyInterface()) {
                return url + " from any client on every interface of this host (--metrics-ports lists " + c.port()
                        + ", a connector with no address or a wildcard one): warning: public wherever this host is;"
                        + " give the metrics a connector of their own on an internal address (docs/user-guide.md)";
            }
            if (c.loopback()) {
                return url + " from this host";
            }
            if (listed) {
                return url + " from any client (--metrics-ports lists " + c.port() + ")";
            }
            return url + "; the connector listens only on " + c.address() + ", and the metrics answer only requests"
                    + " to a loopback address unless --metrics-ports lists its port (" + c.port() + ")";
        }).orElse(TomcatLayout.METRICS_PATH + " from this host, through an HTTP connector (conf/server.xml has no"
                + " HTTP/1.1 <Connector> in the service of its <Engine>)");
    }

    /** The bundle this installer came in: its jar is {@code DIST/lib/fairslice-tomcat-*.jar}. */
    private static Path defaultDist() {
        try {
            CodeSource source = Installer.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return null;
            }
            Path jar = Path.of(source.getLocation().toURI());
            if (!Files.isRegularFile(jar) || jar.getParent() == null || jar.getParent().getParent() == null) {
                return null;
            }
            return jar.getParent().getParent();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    private static String version() {
        String v = Installer.class.getPackage().getImplementationVersion();
        return v != null ? v : "(development build)";
    }
}
