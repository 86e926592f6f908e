package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged WAR (after `package`): what it holds, and that Tomcat deploys it as it is. */
class WarPackagingIT {

    private static final Path WAR = Path.of(System.getProperty("study.war", "target/fairslice-study.war"));

    @TempDir
    Path dir;

    @Test
    void shouldHoldTheApplicationAndNotTheServletApi() throws Exception {
        assertThat(WAR).exists();
        try (ZipFile war = new ZipFile(WAR.toFile())) {
            List<String> names = Collections.list(war.entries()).stream().map(ZipEntry::getName).toList();
            assertThat(names).contains("WEB-INF/web.xml",
                    "WEB-INF/classes/io/fairslice/experiments/app/StudyApplication.class",
                    "WEB-INF/classes/io/fairslice/experiments/app/HeavyServlet.class");
            assertThat(names).noneMatch(name -> name.startsWith("WEB-INF/lib/"));
        }
    }

    @Test
    void shouldDeployUnchangedIntoTomcat() throws Exception {
        System.setProperty("study.heavy.dir", dir.resolve("documents").toString());
        System.setProperty("study.heavy.bytes", "256KB");
        Tomcat tomcat = new Tomcat();
        try {
            tomcat.setBaseDir(dir.resolve("tomcat").toString());
            tomcat.setPort(0);
            tomcat.getConnector().setProperty("address", "127.0.0.1");
            Context context = tomcat.addWebapp("/study", WAR.toAbsolutePath().toString());
            tomcat.start();
            assertThat(context.getState()).isEqualTo(LifecycleState.STARTED);

            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/study";
            HttpResponse<String> light = client.send(HttpRequest.newBuilder(URI.create(base + "/light")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(light.statusCode()).isEqualTo(200);
            assertThat(light.body()).contains(">75025<");
            HttpResponse<String> heavy = client.send(HttpRequest.newBuilder(URI.create(base + "/heavy")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(heavy.statusCode()).isEqualTo(200);
            assertThat(heavy.body()).contains("id=\"elements\"");
        } finally {
            tomcat.stop();
            tomcat.destroy();
            System.clearProperty("study.heavy.dir");
            System.clearProperty("study.heavy.bytes");
        }
    }
}
