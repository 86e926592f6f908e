package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The simulations run on machines that reach no outside host, and a run must not try:
 * Gatling's analytics and its HTTP warm-up request are off in gatling.conf, and the plugin's forked JVM sends the
 * version check (an https request) to a dead proxy. Nothing else notices when one of them goes: a run still passes,
 * it only tries the network first. The settings are read, and a run is watched through a recording proxy.
 */
class OfflineSettingsTest {

    @Test
    void shouldTurnAnalyticsAndTheWarmUpRequestOffInGatlingConf() {
        Config ours = ConfigFactory.parseResources("gatling.conf",
                ConfigParseOptions.defaults().setAllowMissing(false));
        // Gatling's own defaults, from its jar: what Gatling reads our file over
        Config defaults = ConfigFactory.parseResources("gatling-defaults.conf",
                ConfigParseOptions.defaults().setAllowMissing(false));
        Config resolved = ours.withFallback(defaults).resolve();

        assertThat(resolved.getBoolean("gatling.data.enableAnalytics")).as("gatling.data.enableAnalytics").isFalse();
        assertThat(resolved.getString("gatling.http.warmUpUrl")).as("gatling.http.warmUpUrl").isEmpty();
        // a key Gatling does not know is ignored, silently: each of ours must be one of its own
        assertThat(ours.entrySet()).allSatisfy(entry -> assertThat(defaults.hasPath(entry.getKey()))
                .as("%s is one of Gatling's settings", entry.getKey()).isTrue());
        assertThat(defaults.getBoolean("gatling.data.enableAnalytics")).as("Gatling's default, which ours turns off")
                .isTrue();
    }

    @Test
    void shouldSendTheVersionCheckToADeadProxyFromThePluginsJvm() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(Path.of("pom.xml").toFile());
        Element plugin = null;
        NodeList plugins = pom.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element candidate = (Element) plugins.item(i);
            if (text(candidate, "artifactId").equals("gatling-maven-plugin")) {
                plugin = candidate;
            }
        }
        assertThat(plugin).as("the gatling-maven-plugin in loadgen/pom.xml").isNotNull();
        List<String> jvmArgs = new ArrayList<>();
        NodeList args = plugin.getElementsByTagName("jvmArg");
        for (int i = 0; i < args.getLength(); i++) {
            jvmArgs.add(args.item(i).getTextContent().trim());
        }

        // port 9 (discard) on loopback: nothing listens, the check fails at once instead of leaving the machine
        assertThat(jvmArgs).as("the plugin's jvmArgs").contains("-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9");
    }

    /**
     * What a run really sends out: with the https proxy pointed at a socket that records each connection's first line,
     * a run asks for nothing but the version check (a CONNECT to Maven Central, which the dead proxy of the plugin's
     * JVM fails at once). A run with analytics turned back on shows the recorder sees what it must: it asks for
     * Gatling's analytics host too.
     */
    @Test
    @Timeout(180)
    void shouldAskTheProxyForNothingButTheVersionCheck(@TempDir Path dir) throws Exception {
        HttpServer pages = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        pages.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = "page\n".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        pages.start();
        List<String> asked = new CopyOnWriteArrayList<>();
        try (ServerSocket proxy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread recorder = new Thread(() -> record(proxy, asked), "proxy-recorder");
            recorder.setDaemon(true);
            recorder.start();
            Map<String, String> parameters = new HashMap<>(Map.of(
                    "baseUrl", "http://127.0.0.1:" + pages.getAddress().getPort(), "lightUsers", "1",
                    "heavyUsers", "0", "lightPaths", "/page", "warmUp", "0s", "duration", "1s",
                    "https.proxyPort", Integer.toString(proxy.getLocalPort())));

            parameters.put("gatling.data.enableAnalytics", "true");
            SimulationRun withAnalytics = SimulationRun.of(OverloadStudy.class, parameters, dir.resolve("analytics"));
            assertThat(withAnalytics.status()).as(withAnalytics.output()).isZero();
            assertThat(asked).as("the recorder sees the analytics request").anyMatch(line -> line.startsWith("CONNECT")
                    && !line.startsWith("CONNECT repo1.maven.org:"));

            asked.clear();
            parameters.remove("gatling.data.enableAnalytics");
            SimulationRun run = SimulationRun.of(OverloadStudy.class, parameters, dir.resolve("offline"));
            assertThat(run.status()).as(run.output()).isZero();
            assertThat(asked).as("what the run asked the proxy for").allMatch(line ->
                    line.startsWith("CONNECT repo1.maven.org:443 "));
        } finally {
            pages.stop(0);
        }
    }

    /** Records the first line of every connection to {@code proxy}, then closes it: a proxy that answers nothing. */
    private static void record(ServerSocket proxy, List<String> asked) {
        while (!proxy.isClosed()) {
            try (Socket client = proxy.accept()) {
                client.setSoTimeout(5000);
                String first = new BufferedReader(new InputStreamReader(client.getInputStream(),
                        StandardCharsets.ISO_8859_1)).readLine();
                asked.add(first == null ? "(nothing)" : first);
            } catch (IOException e) {
                // closed at the test's end, or a client that sent nothing in 5 s
            }
        }
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }
}
