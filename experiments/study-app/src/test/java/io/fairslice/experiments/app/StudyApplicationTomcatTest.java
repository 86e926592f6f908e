package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletContext;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The study's pages served by a real embedded Tomcat. */
class StudyApplicationTomcatTest {

    @TempDir
    Path dir;

    private Tomcat tomcat;
    private final HttpClient client = HttpClient.newHttpClient();

    @AfterEach
    void stop() throws Exception {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private Context start(String... parameters) throws Exception {
        String[] withDir = new String[parameters.length + 2];
        withDir[0] = "study.heavy.dir";
        withDir[1] = dir.resolve("documents").toString();
        System.arraycopy(parameters, 0, withDir, 2, parameters.length);
        return startWith(withDir);
    }

    private Context startWith(String... parameters) throws Exception {
        tomcat = new Tomcat();
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        File docBase = Files.createDirectories(dir.resolve("docBase")).toFile();
        Context context = tomcat.addContext("", docBase.getAbsolutePath());
        for (int i = 0; i < parameters.length; i += 2) {
            context.addParameter(parameters[i], parameters[i + 1]);
        }
        context.addApplicationListener(StudyApplication.class.getName());
        tomcat.start();
        return context;
    }

    private HttpResponse<String> get(String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + path);
        return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long field(String body, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\">(\\d+)<").matcher(body);
        assertThat(m.find()).as("field %s in %s", id, body).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void shouldServeTheTwentyFifthFibonacciNumber() throws Exception {
        start();
        HttpResponse<String> response = get("/light");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/html"));
        assertThat(field(response.body(), "value")).isEqualTo(75025);
    }

    /** The index said "the 25th Fibonacci number" whatever study.light.fibonacci was. */
    @Test
    void shouldSayOnTheIndexWhatTheLightPagesComputeWithTheirSettings() throws Exception {
        start("study.light.fibonacci", "20", "study.light2.primes", "5000");

        HttpResponse<String> index = get("/");

        assertThat(index.statusCode()).isEqualTo(200);
        assertThat(index.body()).contains("the Fibonacci number fib(20), naively")
                .contains("the primes below 5000 by trial division").doesNotContain("25th");
        assertThat(field(get("/light").body(), "value")).isEqualTo(6765);
    }

    @Test
    void shouldServeThePrimeCount() throws Exception {
        start("study.light2.primes", "100");
        assertThat(field(get("/light2").body(), "value")).isEqualTo(25);
    }

    @Test
    void shouldTraverseEveryElementOfTheGeneratedDocument() throws Exception {
        start("study.heavy.bytes", "2MB", "study.heavy.seed", "11");
        Path document = dir.resolve("documents").resolve("catalogue-seed11-2097152.xml");
        assertThat(document).exists();
        long expectedElements = Documents.countElements(document);

        HttpResponse<String> response = get("/heavy");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(field(response.body(), "elements")).isEqualTo(expectedElements).isGreaterThan(10_000);
        assertThat(field(response.body(), "nodes")).isGreaterThan(expectedElements);
        assertThat(field(response.body(), "text")).isGreaterThan(500_000);
        // the same document every time: a second request walks the same tree
        assertThat(get("/heavy").body()).isEqualTo(response.body());
    }

    /**
     * The document's folder used to default to $TMPDIR/fairslice-study, a name anyone on the machine can create
     * first: the study (run as root) then parsed whatever another user left there, or wrote where a link pointed.
     */
    @Test
    void shouldGenerateTheDocumentInTheApplicationsPrivateFolderNotInASharedOneSomeoneElseMadeFirst()
            throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared-tmp"));
        Path planted = Files.createDirectories(shared.resolve("fairslice-study"))
                .resolve("catalogue-seed11-4096.xml");
        Files.writeString(planted, "<?xml version=\"1.0\"?><planted/>\n");
        String tmpdir = System.getProperty("java.io.tmpdir");
        Context context;
        System.setProperty("java.io.tmpdir", shared.toString());
        try {
            context = startWith("study.heavy.bytes", "4096", "study.heavy.seed", "11");
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }

        HttpResponse<String> response = get("/heavy");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(field(response.body(), "elements")).as("elements of the document /heavy parsed")
                .isGreaterThan(10);
        File privateDir = (File) context.getServletContext().getAttribute(ServletContext.TEMPDIR);
        Path document = privateDir.toPath().resolve("catalogue-seed11-4096.xml");
        assertThat(document).isRegularFile();
        assertThat(field(response.body(), "elements")).isEqualTo(Documents.countElements(document));
        try (var files = Files.list(shared.resolve("fairslice-study"))) {
            assertThat(files).as("nothing written to the shared folder").containsExactly(planted);
        }
    }

    @Test
    void shouldFailStartupOnABadSetting() throws Exception {
        Context context = start("study.heavy.bytes", "lots");
        assertThat(context.getState()).isNotEqualTo(LifecycleState.STARTED);
        assertThat(get("/light").statusCode()).isEqualTo(404);
    }
}
