package io.fairslice.middleware.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.FairsliceConfig;
import io.fairslice.middleware.FairsliceConfigException;
import io.fairslice.middleware.Policy;
import io.fairslice.middleware.classify.RequestClassifier;
import io.fairslice.middleware.classify.Route;
import io.fairslice.middleware.schedule.Clock;
import io.fairslice.middleware.schedule.Scheduler;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.management.Attribute;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JMX control through the platform MBean server, as jconsole or a JMX client uses it: every change goes through
 * the startup validation, a refused change names the key and changes nothing, and every change or refusal is
 * logged (java.util.logging, the module's logger).
 */
class JmxControlTest {

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger(FairsliceControl.class.getName());
    private Scheduler scheduler;
    private RequestClassifier classifier;
    private FairsliceControl control;
    private ObjectName name;
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @BeforeEach
    void start() throws Exception {
        logger.addHandler(capture);
        FairsliceConfig config = FairsliceConfig.parse(Map.of("class.heavy.share", "30"));
        scheduler = new Scheduler(config, Clock.system());
        classifier = new RequestClassifier(config);
        control = new FairsliceControl(scheduler, classifier, "/jmx-test");
        name = control.register();
    }

    @AfterEach
    void stop() {
        control.close();
        scheduler.close();
        logger.removeHandler(capture);
    }

    /** The change hook sees each change once it is in force, and none that was refused; its failure is logged. */
    @Test
    void shouldCallTheChangeHookAfterAChangeAndKeepTheChangeWhenTheHookFails() {
        List<String> seen = new ArrayList<>();
        FairsliceControl hooked = new FairsliceControl(scheduler, classifier, "/jmx-hook", (before, next) -> {
            seen.add(before.policy().value() + " -> " + next.policy().value() + ", in force: "
                    + scheduler.config().policy().value());
            throw new IllegalStateException("hook broke");
        });
        assertThatThrownBy(() -> hooked.apply(Map.of("policy", "fair"))).isInstanceOf(FairsliceConfigException.class);
        hooked.apply(Map.of("policy", "observe"));

        assertThat(seen).containsExactly("share -> observe, in force: observe");
        assertThat(scheduler.config().policy()).isEqualTo(Policy.OBSERVE);
        assertThat(logged).anySatisfy(r -> {
            assertThat(r.getLevel()).isEqualTo(Level.WARNING);
            assertThat(r.getMessage()).isEqualTo("fairslice[/jmx-hook]: the change's warnings failed");
            assertThat(r.getThrown()).hasMessage("hook broke");
        });
    }

    @Test
    void shouldRefuseABadValueNamingTheKeyChangeNothingAndLogTheRefusal() throws Exception {
        FairsliceConfig before = scheduler.config();
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("ShareQuantum", "5 parsecs")))
                .isInstanceOf(RuntimeMBeanException.class)
                .rootCause().isExactlyInstanceOf(IllegalArgumentException.class) // readable by any JMX client
                .hasMessageStartingWith("fairslice configuration: share.quantum must be a duration");
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"class.heavy.share", "0"},
                new String[] {"java.lang.String", "java.lang.String"}))
                .rootCause().hasMessage("fairslice configuration: class.heavy.share must be 1..1000, got '0'");
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Shares", "heavy=5,medium=1")))
                .rootCause().hasMessageContaining("shares must name configured classes");
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Shares", "light=80,heavy=20,")))
                .as("a comma too many, refused as light=80,,heavy=20 is").rootCause()
                .hasMessageContaining("shares must be class=weight pairs, comma-separated");
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Shares", "light=80,light=10")))
                .as("which one was meant? the last one won").rootCause()
                .hasMessage("fairslice configuration: shares must name each class once ('light' twice), got"
                        + " 'light=80,light=10'");
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Policy", null)))
                .rootCause().hasMessageStartingWith("fairslice configuration: policy must be given a value");
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Policy", " ")))
                .as("blank, as a blank value sets nothing at startup").rootCause()
                .hasMessageStartingWith("fairslice configuration: policy must be given a value");
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"routes.max", "10"},
                new String[] {"java.lang.String", "java.lang.String"}))
                .rootCause().hasMessageContaining("routes.max cannot change at runtime");
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"classes", "interactive,batch"},
                new String[] {"java.lang.String", "java.lang.String"}))
                .as("not the old classes' keys, which that list leaves unknown").rootCause()
                .hasMessage("fairslice configuration: classes cannot change at runtime (restart the application), got"
                        + " 'interactive,batch'");
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"routs.max", "10"},
                new String[] {"java.lang.String", "java.lang.String"}))
                .as("no key at all: a restart would not take it either")
                .rootCause()
                .hasMessageContaining("routs.max is not a fairslice configuration key; did you mean routes.max?");

        assertThat(scheduler.config()).as("nothing changed").isSameAs(before);
        assertThat(warnings()).hasSize(10);
        assertThat(warnings().get(0)).contains("/jmx-test").contains("refused").contains("share.quantum")
                .contains("5 parsecs");
        assertThat(warnings().get(1)).contains("class.heavy.share");
    }

    @Test
    void shouldApplyAValidChangeAtomicallyAndLogOldAndNewValues() throws Exception {
        server.setAttribute(name, new Attribute("Shares", "light=60,heavy=40"));
        assertThat(scheduler.config().classes().get(0).share()).isEqualTo(60);
        assertThat(scheduler.config().classes().get(1).share()).isEqualTo(40);
        server.setAttribute(name, new Attribute("Policy", "observe"));
        assertThat(scheduler.config().policy()).isEqualTo(Policy.OBSERVE);

        List<String> infos = logged.stream().filter(r -> r.getLevel() == Level.INFO).map(LogRecord::getMessage)
                .filter(m -> m.contains("changed through JMX")).toList();
        assertThat(infos).hasSize(2);
        assertThat(infos.get(0)).contains("/jmx-test").contains("class.light.share (default) -> 60")
                .contains("class.heavy.share 30 -> 40");
        assertThat(infos.get(1)).contains("policy (default) -> observe");

        // one bad pair refuses the whole change: shares are not half-applied
        FairsliceConfig before = scheduler.config();
        assertThatThrownBy(() -> server.setAttribute(name, new Attribute("Shares", "light=70,heavy=0")))
                .rootCause().hasMessageContaining("class.heavy.share must be 1..1000");
        assertThat(scheduler.config()).as("the same configuration object").isSameAs(before);
        assertThat(scheduler.config().classes().get(0).share()).isEqualTo(60);
        assertThat(scheduler.config().classes().get(1).share()).isEqualTo(40);
    }

    /** Rules and the adaptive classifier's keys change at runtime through the same validation as shares. */
    @Test
    void shouldApplyAValidRuleOrAdaptiveChangeAndRefuseABadOneChangingNothing() throws Exception {
        String[] strings = {"java.lang.String", "java.lang.String"};
        server.invoke(name, "set", new Object[] {"rule.5", "heavy path=/export/**"}, strings);
        assertThat(scheduler.config().rules()).hasSize(1);
        assertThat(classifier.ruleClass(scheduler.config(), "/export/all", "GET", h -> null, () -> null))
                .as("the new rule classifies").isEqualTo(1);
        // a key with spaces around it, as a console's text field takes it: it was refused as "cannot change at runtime"
        server.invoke(name, "set", new Object[] {" adaptive.heavy-above ", "8ms"}, strings);
        assertThat(scheduler.config().adaptiveHeavyAbove()).isEqualTo(Duration.ofMillis(8));

        FairsliceConfig before = scheduler.config();
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"rule.6", "reports path=/x"}, strings))
                .rootCause().hasMessageStartingWith("fairslice configuration: rule.6");
        assertThatThrownBy(() -> server.invoke(name, "set", new Object[] {"adaptive.light-below", "9ms"}, strings))
                .rootCause().hasMessageStartingWith("fairslice configuration: adaptive.light-below must be below"
                        + " adaptive.heavy-above (8ms)");
        assertThat(scheduler.config()).as("nothing changed").isSameAs(before);
        assertThat(warnings()).hasSize(2);
        assertThat(logged.stream().filter(r -> r.getLevel() == Level.INFO).map(LogRecord::getMessage)
                .filter(m -> m.contains("changed through JMX")).toList())
                .containsExactly("fairslice[/jmx-test]: configuration changed through JMX: rule.5 (default) ->"
                        + " heavy path=/export/**", "fairslice[/jmx-test]: configuration changed through JMX:"
                        + " adaptive.heavy-above (default) -> 8ms");
    }

    /** An idle server's classes have no CPU share to show (the gauge reads NaN): the State attribute says idle. */
    @Test
    void shouldShowEachClassAsIdleInTheStateWhileNoClassUsesTheCpu() throws Exception {
        assertThat(server.getAttribute(name, "State")).isEqualTo(
                "light: inflight=0 running=0 waiting=0 balance=0.0ms cpu-share=idle target=0.727; " // 80 / (80 + 30)
                + "heavy: inflight=0 running=0 waiting=0 balance=0.0ms cpu-share=idle target=0.273");
    }

    /** What an operator reads to see why a page runs in its class: the adaptive classifier's table, route by route. */
    @Test
    void shouldShowEachRoutesClassAndCpuPerRequestAsTheAdaptiveClassifierLearnsThem() throws Exception {
        FairsliceConfig config = scheduler.config();
        for (int i = 0; i < 10; i++) { // adaptive.min-samples: the tenth request decides
            served(config, "/orders/" + i + "/report", 20_000_000L + i);
            served(config, "/home", 400_000L);
        }
        served(config, "/search", 9_000_000L); // one request: still learning, in the default class meanwhile
        assertThat(server.getAttribute(name, "Routes")).isEqualTo(
                "/orders/{n}/report: class=heavy cpu=20.000ms samples=10; "
                + "/search: class=light cpu=9.000ms samples=1 learning; "
                + "/home: class=light cpu=0.400ms samples=10; "
                + "table: 3 of 1000 routes, 0 requests overflowed to other, 0 idle routes evicted");
        for (int i = 0; i < FairsliceControl.MAX_ROUTES_SHOWN; i++) {
            served(config, "/page-" + (char) ('a' + i % 26) + "/" + (char) ('a' + i / 26), 100_000L);
        }
        assertThat(control.getRoutes()).as("the most expensive 200 of 203 (by key among equals), then how many not")
                .startsWith("/orders/{n}/report: class=heavy").contains("/home: ", "/page-z/d: ")
                .doesNotContain("/page-z/e: ", "/page-z/g: ")
                .endsWith("; 3 cheaper routes not shown; table: 203 of 1000 routes, 0 requests overflowed to"
                        + " other, 0 idle routes evicted");
    }

    /**
     * Request threads change routes' costs while the listing sorts them: sorted on the live values, the sort saw the
     * order change under it and threw "Comparison method violates its general contract!" (27 of 47 594 listings of
     * 1000 routes in an audit).
     */
    @Test
    void shouldListRoutesWhoseCostsChangeWhileTheListingSortsThem() throws Exception {
        FairsliceConfig config = scheduler.config();
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String word = "" + (char) ('a' + i % 26) + (char) ('a' + i / 26 % 26) + (char) ('a' + i / 676);
            Route route = classifier.end(classifier.route("/page-" + word), "GET", 200);
            classifier.learn(config, route, 1_000_000L);
            routes.add(route);
        }
        AtomicBoolean stop = new AtomicBoolean();
        Thread requests = new Thread(() -> {
            Random random = new Random(7);
            while (!stop.get()) { // alpha 1: each measurement is the route's cost, which jumps across the others'
                routes.get(random.nextInt(routes.size())).record(random.nextInt(50_000_000), 1.0, 1, 5_000_000L,
                        2_000_000L);
            }
        }, "requests");
        requests.start();
        int listings = 0;
        try {
            long until = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() - until < 0) {
                assertThat(control.getRoutes()).endsWith("table: 1000 of 1000 routes, 0 requests overflowed to other, 0"
                        + " idle routes evicted");
                listings++;
            }
        } finally {
            stop.set(true);
            requests.join();
        }
        assertThat(listings).as("listings made").isPositive();
    }

    /** A path's characters are the client's: the listing percent-encodes what would blur its separators. */
    @Test
    void shouldListARouteWhosePathHoldsTheListingsSeparatorsUnambiguously() throws Exception {
        served(scheduler.config(), "/a; b: class=heavy", 400_000L);
        assertThat(control.getRoutes()).isEqualTo("/a%3B%20b:%20class=heavy: class=light cpu=0.400ms samples=1 "
                + "learning; table: 1 of 1000 routes, 0 requests overflowed to other, 0 idle routes evicted");
    }

    private void served(FairsliceConfig config, String path, long cpuNanos) {
        Route route = classifier.end(classifier.route(path), "GET", 200);
        classifier.learn(config, route, cpuNanos);
    }

    @Test
    void shouldWarnWhenRemoteJmxIsOpenWithoutAuthenticationOrTls() {
        Properties off = new Properties();
        assertThat(FairsliceControl.remoteExposure(off)).as("remote JMX is off unless a port is set").isNull();
        Properties secured = new Properties();
        secured.setProperty("com.sun.management.jmxremote.port", "9010");
        assertThat(FairsliceControl.remoteExposure(secured)).as("the JDK's defaults: authentication and TLS on")
                .isNull();
        Properties open = new Properties();
        open.setProperty("com.sun.management.jmxremote.port", "9010");
        open.setProperty("com.sun.management.jmxremote.authenticate", "false");
        open.setProperty("com.sun.management.jmxremote.ssl", "false");
        assertThat(FairsliceControl.remoteExposure(open)).contains("9010").contains("without authentication")
                .contains("without TLS");
        assertThat(System.getProperty("com.sun.management.jmxremote.port"))
                .as("this test JVM has no remote JMX, so register() logged no exposure warning").isNull();
        assertThat(warnings()).isEmpty();
    }

    /**
     * jconsole shows an operation by its MBean info: a plain standard MBean has no parameter names (the interface's
     * are not kept in the class file), so the user guide's set(key, value) read set(p1, p2) there, with nothing to say
     * which of the two strings is the key.
     */
    @Test
    void shouldNameTheSetOperationsParametersKeyAndValue() throws Exception {
        MBeanOperationInfo set = Arrays.stream(server.getMBeanInfo(name).getOperations())
                .filter(o -> o.getName().equals("set")).findFirst().orElseThrow();
        assertThat(Arrays.stream(set.getSignature()).map(MBeanParameterInfo::getName))
                .containsExactly("key", "value");
        assertThat(set.getDescription()).contains("docs/configuration.md");
        server.invoke(name, "set", new Object[] {"class.heavy.share", "25"},
                new String[] {"java.lang.String", "java.lang.String"});
        assertThat(server.getAttribute(name, "Shares")).isEqualTo("light=80,heavy=25");
    }

    /**
     * The user guide's remote JMX is bound to loopback (jmxremote.host=127.0.0.1) without authentication. The warning
     * told that operator to "bind JMX to loopback", which the setenv lines had done: what is open there is every user
     * of the host, and a password file is the way out. Only a JMX reachable from other hosts gets the advice to bind it
     * to loopback.
     */
    @Test
    void shouldNotAdviseBindingToLoopbackWhenRemoteJmxIsBoundToLoopback() {
        for (String host : List.of("127.0.0.1", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1", "[0:0::1]")) {
            Properties loopback = new Properties();
            loopback.setProperty("com.sun.management.jmxremote.port", "9010");
            loopback.setProperty("com.sun.management.jmxremote.host", host);
            loopback.setProperty("com.sun.management.jmxremote.authenticate", "false");
            loopback.setProperty("com.sun.management.jmxremote.ssl", "false");
            assertThat(FairsliceControl.remoteExposure(loopback)).as(host)
                    .contains("9010 (" + host + ")", "without authentication", "every user of this host")
                    .doesNotContain("bind JMX to loopback");
        }
        Properties tlsOff = new Properties();
        tlsOff.setProperty("com.sun.management.jmxremote.port", "9010");
        tlsOff.setProperty("com.sun.management.jmxremote.host", "127.0.0.1");
        tlsOff.setProperty("com.sun.management.jmxremote.ssl", "false");
        assertThat(FairsliceControl.remoteExposure(tlsOff)).as("authentication on: not every user")
                .contains("without TLS", "require TLS").doesNotContain("every user", "bind JMX to loopback");
        Properties everywhere = new Properties();
        everywhere.setProperty("com.sun.management.jmxremote.port", "9010");
        everywhere.setProperty("com.sun.management.jmxremote.authenticate", "false");
        assertThat(FairsliceControl.remoteExposure(everywhere)).contains("(all interfaces)", "bind JMX to loopback");
        Properties lan = new Properties();
        lan.setProperty("com.sun.management.jmxremote.port", "9010");
        lan.setProperty("com.sun.management.jmxremote.host", "10.0.0.5");
        lan.setProperty("com.sun.management.jmxremote.ssl", "false");
        assertThat(FairsliceControl.remoteExposure(lan)).contains("(10.0.0.5)", "without TLS", "bind JMX to loopback");
        lan.setProperty("com.sun.management.jmxremote.host", "fe80::1");
        assertThat(FairsliceControl.remoteExposure(lan)).as("an IPv6 address not loopback")
                .contains("(fe80::1)", "bind JMX to loopback");
    }

    private List<String> warnings() {
        return logged.stream().filter(r -> r.getLevel() == Level.WARNING).map(LogRecord::getMessage).toList();
    }
}
