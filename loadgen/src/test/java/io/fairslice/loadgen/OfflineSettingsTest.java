package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The simulations run on machines that reach no outside host, and a run must not try:
 * Gatling's analytics and its HTTP warm-up request are off in gatling.conf, and the plugin's forked JVM sends the
 * version check (an https request) to a dead proxy. Nothing else notices when one of them goes: a run still passes,
 * it only tries the network first.
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

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }
}
