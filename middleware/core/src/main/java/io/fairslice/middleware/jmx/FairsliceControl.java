package io.fairslice.middleware.jmx;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.RequestClassConfig;
import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.Durations;
import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.middleware.schedule.Scheduler;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** The JMX face of a web application's scheduler: reads its state, swaps validated configurations. */
public final class FairsliceControl implements FairsliceControlMBean, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(FairsliceControl.class.getName());

    private final Scheduler scheduler;
    private final String application;
    private ObjectName name;

    public FairsliceControl(Scheduler scheduler, String application) {
        this.scheduler = scheduler;
        this.application = application;
    }

    /** Registers under {@code io.fairslice:type=Fairslice,application=<name>}; returns the name used. */
    public ObjectName register() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName n = new ObjectName("io.fairslice:type=Fairslice,application=" + ObjectName.quote(application));
        if (server.isRegistered(n)) {
            server.unregisterMBean(n); // a redeployed application replaces its previous instance
        }
        server.registerMBean(this, n);
        this.name = n;
        return n;
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

    /** Applies {@code changes} atomically: all validated together, then one swap and one log line. */
    public synchronized void apply(Map<String, String> changes) {
        for (var e : changes.entrySet()) {
            if (!changeable(e.getKey())) {
                throw FairsliceConfigException.of(e.getKey(), "cannot change at runtime (restart the application)",
                        e.getValue());
            }
        }
        FairsliceConfig next = scheduler.config().with(changes);
        scheduler.reconfigure(next);
        LOG.info(() -> "fairslice[" + application + "]: configuration changed through JMX: " + changes);
    }

    @Override
    public String getPolicy() {
        return scheduler.config().policy().value();
    }

    @Override
    public void setPolicy(String policy) {
        apply(Map.of(ConfigKeys.POLICY, policy));
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
        for (String pair : shares.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw FairsliceConfigException.of("shares", "must be class=weight pairs, comma-separated", shares);
            }
            String cls = pair.substring(0, eq).trim();
            if (!scheduler.config().classNames().contains(cls)) {
                throw FairsliceConfigException.of("shares", "must name configured classes "
                        + scheduler.config().classNames() + " ('" + cls + "' is not one)", shares);
            }
            changes.put(ConfigKeys.CLASS_PREFIX + cls + "." + ConfigKeys.SHARE, pair.substring(eq + 1).trim());
        }
        apply(changes);
    }

    @Override
    public String getShareQuantum() {
        return Durations.format(scheduler.config().shareQuantum());
    }

    @Override
    public void setShareQuantum(String quantum) {
        apply(Map.of(ConfigKeys.SHARE_QUANTUM, quantum));
    }

    @Override
    public String getSleepQuantum() {
        return Durations.format(scheduler.config().sleepQuantum());
    }

    @Override
    public void setSleepQuantum(String quantum) {
        apply(Map.of(ConfigKeys.SLEEP_QUANTUM, quantum));
    }

    @Override
    public String getSleepDuration() {
        return Durations.format(scheduler.config().sleepDuration());
    }

    @Override
    public void setSleepDuration(String duration) {
        apply(Map.of(ConfigKeys.SLEEP_DURATION, duration));
    }

    @Override
    public void set(String key, String value) {
        apply(Map.of(key, value));
    }

    @Override
    public String getConfiguration() {
        return scheduler.config().toString();
    }

    @Override
    public String getState() {
        StringJoiner j = new StringJoiner("; ");
        for (ClassState c : scheduler.classes()) {
            j.add(String.format(java.util.Locale.ROOT,
                    "%s: inflight=%d running=%d waiting=%d balance=%.1fms cpu-share=%.3f target=%.3f",
                    c.name(), c.inflight(), c.running(), c.waiting(), c.balanceNanos() / 1e6,
                    scheduler.cpuShare(c.index()), scheduler.targetShare(c.index())));
        }
        return j.toString();
    }
}
