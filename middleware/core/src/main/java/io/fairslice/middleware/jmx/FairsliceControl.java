package io.fairslice.middleware.jmx;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.RequestClassConfig;
import io.fairslice.middleware.classify.RequestClassifier;
import io.fairslice.middleware.classify.Route;
import io.fairslice.middleware.classify.RouteTable;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.Durations;
import io.fairslice.middleware.internal.ApplicationNames;
import io.fairslice.middleware.internal.Loggers;
import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.middleware.schedule.Scheduler;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServer;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/** The JMX face of a web application's scheduler: reads its state, swaps validated configurations. */
public final class FairsliceControl implements FairsliceControlMBean, AutoCloseable {

    private static final Logger LOG = Loggers.of(FairsliceControl.class);

    /** Routes {@link #getRoutes} lists at most, the most expensive first: the table holds up to 100 000. */
    static final int MAX_ROUTES_SHOWN = 200;

    private final Scheduler scheduler;
    private final RequestClassifier classifier;
    private final String application;
    private final BiConsumer<FairsliceConfig, FairsliceConfig> changed;
    private ObjectName name;

    public FairsliceControl(Scheduler scheduler, RequestClassifier classifier, String application) {
        this(scheduler, classifier, application, (before, next) -> { });
    }

    /**
     * A control that calls {@code changed} with the configuration before and after each change it applies, once the
     * change is in force (the filter says there what it would have warned of at startup); what it throws is logged.
     */
    public FairsliceControl(Scheduler scheduler, RequestClassifier classifier, String application,
            BiConsumer<FairsliceConfig, FairsliceConfig> changed) {
        this.scheduler = scheduler;
        this.classifier = classifier;
        this.application = application;
        this.changed = changed;
    }

    /** Registers under {@code io.fairslice:type=Fairslice,application=<name>}; returns the name used. */
    public ObjectName register() throws JMException {
        String exposure = remoteExposure(System.getProperties());
        if (exposure != null) {
            LOG.warning(() -> ApplicationNames.logPrefix(application) + "the JMX control can change scheduling and is "
                    + exposure + " (docs/reliability.md)");
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName n = nameOf(application);
        // never another's: a name in use belongs to a running application (the filter claims free names), and
        // unregistering it took its control away and let an operator change the wrong application
        server.registerMBean(new Described(this), n);
        this.name = n;
        return n;
    }

    /**
     * The control as jconsole shows it: a plain standard MBean keeps no parameter names (the interface's are not in
     * its class file), so {@code set(key, value)} read {@code set(p1, p2)}.
     */
    private static final class Described extends StandardMBean {
        Described(FairsliceControl control) throws NotCompliantMBeanException {
            super(control, FairsliceControlMBean.class);
        }

        @Override
        protected String getDescription(MBeanOperationInfo op) {
            return op.getName().equals("set")
                    ? "sets a key that can change at run time (docs/configuration.md), validated as at startup"
                    : super.getDescription(op);
        }

        @Override
        protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
            if (op.getName().equals("set")) {
                return sequence == 0 ? "key" : "value";
            }
            return super.getParameterName(op, param, sequence);
        }

        @Override
        protected String getDescription(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
            if (op.getName().equals("set")) {
                return sequence == 0 ? "a key of docs/configuration.md without the fairslice. prefix,"
                        + " e.g. class.heavy.share" : "its new value, e.g. 10";
            }
            return super.getDescription(op, param, sequence);
        }
    }

    /** Whether an application of this name has its control registered in the platform MBean server. */
    public static boolean isRegistered(String application) {
        try {
            return ManagementFactory.getPlatformMBeanServer().isRegistered(nameOf(application));
        } catch (JMException e) {
            return false;
        }
    }

    private static ObjectName nameOf(String application) throws JMException {
        return new ObjectName("io.fairslice:type=Fairslice,application=" + ObjectName.quote(application));
    }

    @Override
    public void close() {
        if (name != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (JMException e) {
                // already gone: nothing to release
            }
            name = null;
        }
    }

    /** Keys that a running application may change; the rest shape data structures built at startup. */
    static boolean changeable(String key) {
        return key.equals(ConfigKeys.POLICY) || key.startsWith(ConfigKeys.CLASS_PREFIX)
                || key.startsWith("share.") || key.startsWith("sleep.") || key.equals(ConfigKeys.RETRY_AFTER_MAX)
                || key.startsWith(ConfigKeys.ADAPTIVE + ".") || key.startsWith(ConfigKeys.RULE_PREFIX);
    }

    /**
     * How the JVM's own remote JMX agent exposes this MBean, when it does so without authentication or TLS (from the
     * {@code com.sun.management.jmxremote.*} properties), and what to do about it; null when remote JMX is off or
     * protected. Remote JMX is off unless the operator starts the JVM with {@code com.sun.management.jmxremote.port}.
     * Bound to loopback (the user guide's setenv lines) it is open to every user of the host, so the advice is a
     * password file, not binding it to loopback as for one reachable from other hosts.
     */
    static String remoteExposure(Properties system) {
        String port = system.getProperty("com.sun.management.jmxremote.port");
        if (port == null || port.isBlank()) {
            return null;
        }
        boolean noAuth = "false".equalsIgnoreCase(system.getProperty("com.sun.management.jmxremote.authenticate"));
        boolean noTls = "false".equalsIgnoreCase(system.getProperty("com.sun.management.jmxremote.ssl"));
        if (!noAuth && !noTls) {
            return null;
        }
        String host = system.getProperty("com.sun.management.jmxremote.host", "all interfaces");
        String open = "reachable over remote JMX on port " + port.trim() + " (" + host + ")"
                + (noAuth ? " without authentication" : "") + (noAuth && noTls ? " and" : "")
                + (noTls ? " without TLS" : "");
        if (!loopback(host)) {
            return open + "; require authentication and TLS, or bind JMX to loopback";
        }
        return noAuth ? open + ": every user of this host can change it; require authentication (a password file)"
                : open + "; require TLS";
    }

    private static boolean loopback(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.equals("localhost") || h.startsWith("127.")) {
            return true;
        }
        // an IPv6 literal in any of its spellings (::1, 0:0:0:0:0:0:0:1); a literal is parsed, never looked up
        try {
            return h.indexOf(':') >= 0 && InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException notALiteral) {
            return false;
        }
    }

    /**
     * Applies {@code changes} atomically: all validated together (the startup validation), then one swap and one log
     * line with each key's old and new value. A refused change throws {@link FairsliceConfigException} naming the
     * key, changes nothing, and is logged as a warning.
     */
    public synchronized void apply(Map<String, String> changes) {
        FairsliceConfig before = scheduler.config();
        FairsliceConfig next;
        try {
            for (var e : changes.entrySet()) {
                if (e.getKey() == null || !changeable(e.getKey())) {
                    if (e.getKey() != null && e.getValue() != null) {
                        try {
                            before.with(Map.of(e.getKey(), e.getValue()));
                        } catch (FairsliceConfigException unknown) {
                            // a typo: named as at startup, with the key it is closest to. Only this key's: a new
                            // classes list leaves the keys of the old classes unknown, which the operator never set
                            if (unknown.unknownKey() && unknown.key().equals(e.getKey().trim())) {
                                throw unknown;
                            }
                        }
                    }
                    throw FairsliceConfigException.of(String.valueOf(e.getKey()), "cannot change at runtime (restart "
                            + "the application)", e.getValue());
                }
                if (e.getValue() == null || e.getValue().isBlank()) {
                    // an empty value would silently fall back to the default: say what was meant instead
                    throw FairsliceConfigException.of(e.getKey(), "must be given a value (to go back to the default, "
                            + "set the default explicitly)", e.getValue());
                }
            }
            next = before.with(changes);
        } catch (FairsliceConfigException e) {
            LOG.warning(() -> ApplicationNames.logPrefix(application) + "JMX change refused, nothing changed: "
                    + e.getMessage());
            throw e;
        }
        scheduler.reconfigure(next);
        StringJoiner what = new StringJoiner(", ");
        changes.forEach((k, v) -> what.add(k + " " + before.source().getOrDefault(k, "(default)") + " -> " + v));
        LOG.info(() -> ApplicationNames.logPrefix(application) + "configuration changed through JMX: " + what);
        try {
            changed.accept(before, next);
        } catch (RuntimeException e) { // the change is in force: a failure to say more must not report it refused
            LOG.log(Level.WARNING, ApplicationNames.logPrefix(application) + "the change's warnings failed", e);
        }
    }

    /**
     * {@link #apply} for the MBean methods: a refusal reaches the JMX client as a plain
     * {@link IllegalArgumentException} with the same message, a type every client (jconsole, a remote tool without
     * fairslice's classes) can read.
     */
    private void applyFromJmx(Map<String, String> changes) {
        try {
            apply(changes);
        } catch (FairsliceConfigException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static Map<String, String> one(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(key, value);
        return m;
    }

    @Override
    public String getPolicy() {
        return scheduler.config().policy().value();
    }

    @Override
    public void setPolicy(String policy) {
        applyFromJmx(one(ConfigKeys.POLICY, policy));
    }

    @Override
    public String getShares() {
        StringJoiner j = new StringJoiner(",");
        for (RequestClassConfig c : scheduler.config().classes()) {
            j.add(c.name() + "=" + c.share());
        }
        return j.toString();
    }

    @Override
    public void setShares(String shares) {
        Map<String, String> changes = new LinkedHashMap<>();
        for (String pair : shares == null ? new String[] {""} : shares.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                refuse(FairsliceConfigException.of("shares", "must be class=weight pairs, comma-separated", shares));
            }
            String cls = pair.substring(0, eq).trim();
            if (!scheduler.config().classNames().contains(cls)) {
                refuse(FairsliceConfigException.of("shares", "must name configured classes "
                        + scheduler.config().classNames() + " ('" + cls + "' is not one)", shares));
            }
            if (changes.put(ConfigKeys.CLASS_PREFIX + cls + "." + ConfigKeys.SHARE, pair.substring(eq + 1).trim())
                    != null) { // light=80,light=10: which one was meant?
                refuse(FairsliceConfigException.of("shares", "must name each class once ('" + cls + "' twice)",
                        shares));
            }
        }
        applyFromJmx(changes);
    }

    private void refuse(FairsliceConfigException e) {
        LOG.warning(() -> ApplicationNames.logPrefix(application) + "JMX change refused, nothing changed: "
                + e.getMessage());
        throw new IllegalArgumentException(e.getMessage());
    }

    @Override
    public String getShareQuantum() {
        return Durations.format(scheduler.config().shareQuantum());
    }

    @Override
    public void setShareQuantum(String quantum) {
        applyFromJmx(one(ConfigKeys.SHARE_QUANTUM, quantum));
    }

    @Override
    public String getSleepQuantum() {
        return Durations.format(scheduler.config().sleepQuantum());
    }

    @Override
    public void setSleepQuantum(String quantum) {
        applyFromJmx(one(ConfigKeys.SLEEP_QUANTUM, quantum));
    }

    @Override
    public String getSleepDuration() {
        return Durations.format(scheduler.config().sleepDuration());
    }

    @Override
    public void setSleepDuration(String duration) {
        applyFromJmx(one(ConfigKeys.SLEEP_DURATION, duration));
    }

    @Override
    public void set(String key, String value) {
        applyFromJmx(one(key == null ? null : key.strip(), value));
    }

    @Override
    public String getConfiguration() {
        return scheduler.config().toString();
    }

    @Override
    public String getState() {
        StringJoiner j = new StringJoiner("; ");
        for (ClassState c : scheduler.classes()) {
            double share = scheduler.cpuShare(c.index()); // NaN while the classes used next to no CPU
            j.add(String.format(Locale.ROOT,
                    "%s: inflight=%d running=%d waiting=%d balance=%.1fms cpu-share=%s target=%.3f",
                    c.name(), c.inflight(), c.running(), c.waiting(), c.balanceNanos() / 1e6,
                    Double.isNaN(share) ? "idle" : String.format(Locale.ROOT, "%.3f", share),
                    scheduler.targetShare(c.index())));
        }
        return j.toString();
    }

    /** A route and its expected CPU per request as read once for a listing. */
    private record Listed(Route route, long cpuNanos) { }

    @Override
    public String getRoutes() {
        FairsliceConfig config = scheduler.config();
        RouteTable table = classifier.routes();
        StringJoiner j = new StringJoiner("; ");
        // each route's cost read once: request threads change it while the sort runs, and a sort keyed on the live
        // value saw a route's order change under it ("Comparison method violates its general contract!")
        List<Listed> routes = new ArrayList<>();
        for (Route route : table.routes()) {
            routes.add(new Listed(route, route.expectedCpuNanos()));
        }
        routes.sort(Comparator.comparingLong(Listed::cpuNanos).reversed().thenComparing(l -> l.route().key()));
        for (Listed listed : routes.subList(0, Math.min(routes.size(), MAX_ROUTES_SHOWN))) {
            Route route = listed.route();
            j.add(String.format(Locale.ROOT, "%s: class=%s cpu=%.3fms samples=%d%s",
                    RouteTable.printable(route.key()),
                    config.classes().get(classifier.routeClass(config, route)).name(),
                    listed.cpuNanos() / 1e6, route.samples(), route.decided() ? "" : " learning"));
        }
        if (routes.size() > MAX_ROUTES_SHOWN) {
            j.add((routes.size() - MAX_ROUTES_SHOWN) + " cheaper routes not shown");
        }
        j.add(String.format(Locale.ROOT, "table: %d of %d routes, %d requests overflowed to other, %d idle"
                + " routes evicted%s", table.size(), table.maxRoutes(), table.overflowCount(), table.evictionCount(),
                config.adaptive() ? "" : " (adaptive off)"));
        return j.toString();
    }
}
