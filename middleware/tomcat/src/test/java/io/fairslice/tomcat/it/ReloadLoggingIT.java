package io.fairslice.tomcat.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.tomcat.install.Installer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;

/**
 * fairslice's log after an application reload on a real Tomcat, whose log manager (JULI) files each logger under the
 * thread's context class loader when the logger is made. The filter's static logger was made as the first
 * application that used it started, so it was that application's; once it reloaded (a redeployed WAR, a changed
 * web.xml), Tomcat reset that application's loggers and fairslice logged nothing more: no "started" line, no
 * configuration error naming its key, no change through JMX.
 */
class ReloadLoggingIT {

    private static final String STARTED = "fairslice[/shop]: started";
    private static final String CHANGED = "fairslice[/shop]: configuration changed through JMX: policy";

    @Test
    void shouldKeepLoggingAfterTheApplicationReloads() throws Exception {
        String version = System.getProperty("tomcat.versions").split(",")[0].strip();
        Path home = Path.of(System.getProperty("tomcat.dir"), "apache-tomcat-" + version);
        try (StandaloneTomcat tomcat = StandaloneTomcat.create(home,
                Path.of(System.getProperty("it.work")).resolve("reload-logging-" + version))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int status = Installer.run(List.of("--catalina-base", tomcat.base().toString(), "--catalina-home",
                    home.toString(), "--dist", System.getProperty("fairslice.dist"), "--apps", "/shop"),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(out, true, StandardCharsets.UTF_8));
            assertThat(status).as(out.toString(StandardCharsets.UTF_8)).isZero();
            Path shop = Files.createDirectories(tomcat.base().resolve("webapps/shop/WEB-INF"));
            Path webXml = shop.resolve("web.xml");
            Files.writeString(webXml, "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\"/>\n");
            Files.writeString(shop.resolveSibling("index.html"), "shop\n");

            tomcat.start("");
            awaitConsoleLines(tomcat, STARTED, 1);
            change(tomcat, "observe");
            awaitConsoleLines(tomcat, CHANGED, 1);

            // a changed web.xml is a watched resource: Tomcat reloads the application
            Files.setLastModifiedTime(webXml, FileTime.fromMillis(System.currentTimeMillis() + 2000));
            awaitConsoleLines(tomcat, "Reloading Context with name [/shop] is completed", 1);
            assertThat(tomcat.get("/shop/", Map.of()).status()).isEqualTo(200);
            change(tomcat, "share");

            assertThat(awaitConsoleLines(tomcat, STARTED, 2)).as("the reloaded application's start").hasSize(2);
            assertThat(awaitConsoleLines(tomcat, CHANGED, 2)).as("a change through JMX after the reload").hasSize(2);
            assertThat(tomcat.stop()).isZero();
        }
    }

    private static void change(StandaloneTomcat tomcat, String policy) throws Exception {
        try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(tomcat.jmxUrl()))) {
            c.getMBeanServerConnection().setAttribute(
                    new ObjectName("io.fairslice:type=Fairslice,application=\"/shop\""),
                    new Attribute("Policy", policy));
        }
    }

    /** The console's lines that contain {@code needle}, once there are {@code count} of them or after 60 s. */
    private static List<String> awaitConsoleLines(StandaloneTomcat tomcat, String needle, int count)
            throws Exception {
        Path console = tomcat.base().resolve("logs/console.log");
        List<String> hits = List.of();
        for (int i = 0; i < 300; i++) {
            hits = Files.readAllLines(console, StandardCharsets.ISO_8859_1).stream().filter(l -> l.contains(needle))
                    .toList();
            if (hits.size() >= count) {
                return hits;
            }
            Thread.sleep(200);
        }
        return hits;
    }
}
