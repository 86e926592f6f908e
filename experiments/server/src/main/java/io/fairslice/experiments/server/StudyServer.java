package io.fairslice.experiments.server;

import io.fairslice.experiments.app.StudyApplication;
import io.fairslice.experiments.server.peers.Peers;
import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.FairsliceInitializer;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.ServletException;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ValveBase;

/**
 * The study application in embedded Tomcat 11, with Prometheus metrics at {@code /metrics}. This is what
 * {@code ./fairslice serve} runs and what the study harness starts for every configuration.
 */
public final class StudyServer implements AutoCloseable {

    /** The context attribute under which the server hands its meter registry to the web application. */
    public static final String METER_REGISTRY_ATTRIBUTE = FairsliceFilter.METER_REGISTRY_ATTRIBUTE;
    /** The longest a stop waits for the requests being served to end before it stops Tomcat ({@link #drain}). */
    public static final Duration STOP_AWAIT = Duration.ofSeconds(10);
    /**
     * How long who stops a server's JVM (SIGTERM) gives it before a SIGKILL: the drain's bound and 5 s for Tomcat's
     * stop (its unloadDelay is 2 s).
     */
    public static final Duration STOP_GRACE = STOP_AWAIT.plusSeconds(5);

    private final ServerOptions options;
    private final PrometheusMeterRegistry registry;
    /** Tomcat's base, made as the server starts (by then a stop removes it) and removed as it stops. */
    private TemporaryFolder baseDir;
    private JvmGcMetrics gcMetrics; // listens to the JVM's collectors until closed
    private Tomcat tomcat;
    /** The requests inside Tomcat's engine now: what a stop's {@link #drain} waits for. */
    private final AtomicInteger serving = new AtomicInteger();
    /** Closed: a start that comes after the stop starts nothing. */
    private boolean stopped;

    public StudyServer(ServerOptions options) {
        this.options = options;
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /**
     * Starts Tomcat; returns once it accepts connections. Throws, having removed what it created, when it cannot: a
     * port in use or an address that is not this machine's, or an application that failed to start.
     */
    public synchronized StudyServer start() throws LifecycleException {
        if (stopped) {
            return this; // stopped before it started (a Ctrl-C as the JVM began): nothing to start, nothing to leave
        }
        try {
            return startTomcat();
        } catch (LifecycleException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private StudyServer startTomcat() throws LifecycleException {
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics = new JvmGcMetrics();
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        Metrics.addRegistry(registry);

        baseDir = TemporaryFolder.create("fairslice-tomcat-");
        File base = baseDir.path().toFile();
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.getPath());
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Connector connector = new Connector();
        connector.setPort(options.port());
        if (!connector.setProperty("address", options.address())) {
            // the connector would listen on every interface
            throw new IllegalStateException("cannot listen on " + options.address() + ": Tomcat's connector refused"
                    + " the address");
        }
        connector.setProperty("maxThreads", Integer.toString(options.maxThreads()));
        if (options.virtualThreads()) {
            connector.setProperty("useVirtualThreads", "true");
        }
        // the study's clients hammer with keep-alive connections and no think time
        connector.setProperty("maxKeepAliveRequests", "-1");
        connector.setProperty("acceptCount", "1000");
        connector.setProperty("bindOnInit", "false"); // the listening socket can then close before the stop (drain)
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        tomcat.getEngine().getPipeline().addValve(new Serving(serving));

        Context context = tomcat.addContext("", new File(base, "docBase").getAbsolutePath());
        new File(context.getDocBase()).mkdirs();
        context.getServletContext().setAttribute(METER_REGISTRY_ATTRIBUTE, registry);
        for (var entry : options.appSettings().entrySet()) {
            context.addParameter(entry.getKey(), entry.getValue());
        }
        context.addApplicationListener(StudyApplication.class.getName());
        if (options.middleware()) {
            // what a WAR gets from the jar's META-INF/services; an embedded context does not scan jars
            context.addParameter("fairslice.policy", options.policy());
            for (var entry : options.fairslice().entrySet()) {
                context.addParameter("fairslice." + entry.getKey(), entry.getValue());
            }
            context.addServletContainerInitializer(new FairsliceInitializer(), null);
        }
        // /metrics in a context of its own: outside the study application, so fairslice neither measures nor queues
        // the scrapes (under overload they would wait, or be shed, with the light pages)
        Context metrics = tomcat.addContext("/metrics", new File(base, "metricsDocBase").getAbsolutePath());
        new File(metrics.getDocBase()).mkdirs();
        metrics.setMapperContextRootRedirectEnabled(false); // answer /metrics itself, not a redirect to /metrics/
        Tomcat.addServlet(metrics, "metrics", new MetricsServlet(registry)).setAsyncSupported(true);
        metrics.addServletMapping("", "metrics");
        // a peer of the study's comparisons (-Dfairslice.peer), if one was selected; the harness looks for this line
        String peer = Peers.install(context, registry);
        if (peer != null) {
            System.out.println(peer);
        }
        tomcat.start();
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() < 0) {
            // Tomcat logs a connector that cannot bind and starts anyway, serving nothing
            throw new IllegalStateException("cannot listen on " + options.address() + ":" + options.port()
                    + ": the port is in use, or the address is not one of this machine's (see the log above)");
        }
        if (!context.getState().isAvailable()) {
            throw new IllegalStateException("the study web application failed to start; see the log above");
        }
        return this;
    }

    /** The port Tomcat listens on (useful with port 0). */
    public int port() {
        return tomcat.getConnector().getLocalPort();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Stops Tomcat and removes the server's folder; waits for a {@link #start} in progress (a Ctrl-C during it). */
    @Override
    public synchronized void close() {
        stopped = true;
        if (tomcat != null) {
            try {
                drain(tomcat.getConnector());
                tomcat.stop();
                tomcat.destroy();
            } catch (LifecycleException e) {
                System.err.println("fairslice: Tomcat did not stop cleanly: " + e.getMessage());
            }
            tomcat = null;
        }
        if (gcMetrics != null) {
            gcMetrics.close();
            gcMetrics = null;
        }
        Metrics.removeRegistry(registry);
        registry.close();
        if (baseDir != null) {
            baseDir.close();
            baseDir = null;
        }
    }

    /**
     * The first step of a stop: the listening socket closes (a new connection is refused) and the requests being
     * served, those queued in fairslice among them, get up to {@link #STOP_AWAIT} to end. Once the socket is closed
     * Tomcat answers each request it reads with {@code Connection: close}; those it had read before are answered
     * keep-alive, and their connections, idle then, are closed by Tomcat's stop. Tomcat's stop alone closed the
     * connection of nearly every request still running or queued (docs/measurements/serve-stop-20261206); its own
     * graceful stop ({@code gracefulStopAwaitMillis}) also waits for idle keep-alive connections: one held the stop
     * for the whole bound. The requests are counted in the engine ({@link #serving}), not as busy worker threads:
     * under virtual threads Tomcat's executor keeps no such count.
     */
    private void drain(Connector connector) {
        connector.getProtocolHandler().closeServerSocketGraceful();
        long deadline = System.nanoTime() + STOP_AWAIT.toNanos();
        try {
            // none for 100 ms on end: a connection accepted just before the socket closed has its request read and
            // passed to the engine only when the poller gets the CPU, late on a loaded server (a safeguard: 1 s made
            // no difference in the measurement)
            for (int idleReads = 0; idleReads < 10 && System.nanoTime() - deadline < 0; Thread.sleep(10)) {
                idleReads = serving.get() == 0 ? idleReads + 1 : 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop now
        }
    }

    /** Counts the requests inside Tomcat's engine, from its first valve to the end of their dispatch. */
    private static final class Serving extends ValveBase {
        private final AtomicInteger count;

        Serving(AtomicInteger count) {
            super(true); // async requests pass (the end of an async dispatch, not of its cycle, ends the count)
            this.count = count;
        }

        @Override
        public void invoke(Request request, Response response) throws IOException, ServletException {
            count.incrementAndGet();
            try {
                getNext().invoke(request, response);
            } finally {
                count.decrementAndGet();
            }
        }
    }

    /**
     * Says why the options were refused and returns the exit status, 2: the usage follows a command line of the wrong
     * form only; after a bad value (an address that does not resolve, a port out of range, a middleware setting) its
     * 30 lines buried the one line that names the option and the value.
     */
    static int refuse(IllegalArgumentException e, PrintStream err) {
        err.println("fairslice serve: " + e.getMessage());
        if (e instanceof ServerOptions.UsageException) {
            err.println(ServerOptions.USAGE);
        }
        return 2;
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("java.util.logging.manager") == null) { // first: before anything logs
            System.setProperty("java.util.logging.manager", ServerLogManager.class.getName()); // (not initialised)
        }
        ServerOptions options;
        try {
            options = ServerOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.exit(refuse(e, System.err));
            return;
        }
        if (options.help()) {
            System.out.println(ServerOptions.USAGE);
            return;
        }
        if (!options.loopback()) {
            // said before Tomcat starts: its threads, once started, would keep serving if anything here threw
            System.err.println("fairslice serve: WARNING: --address " + options.address() + " is not loopback: the"
                    + " study pages and /metrics (which tells how the server is loaded) will be open to the network");
        }
        StudyServer server = new StudyServer(options);
        // before the start: a Ctrl-C while it runs (a large --document-size takes seconds to write) left the Tomcat
        // base and a partial document in the temporary folder; the stop waits for the start (both synchronized)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            ServerLogManager.resetAfterStop();
        }, "fairslice-shutdown"));
        ServerLogManager.holdUntilStopped(); // a stop from here logs until the hook's end, one during the start too
        try {
            server.start();
        } catch (IllegalStateException | IllegalArgumentException | LifecycleException e) {
            // IllegalArgumentException: a -Dfairslice.peer or peer setting it refuses, said in one line too
            System.err.println("fairslice serve: " + e.getMessage());
            System.exit(2);
            return;
        }
        Tomcat running = server.running();
        if (running == null) {
            return; // a stop came during the start: the hook stopped it as the start ended
        }
        // an IPv6 address in brackets, as a URL needs it (http://[::1]:8080/); the options hold it resolved, bare
        String host = options.address().contains(":") ? "[" + options.address() + "]" : options.address();
        System.out.println("fairslice study server listening on http://" + host + ":"
                + running.getConnector().getLocalPort() + "/  (pages /light /light2 /heavy, metrics /metrics,"
                + " fairslice policy " + options.policy() + "; Ctrl-C stops)");
        running.getServer().await();
    }

    /** Tomcat while the server runs; null once it has stopped (or before it started). */
    synchronized Tomcat running() {
        return tomcat;
    }
}
