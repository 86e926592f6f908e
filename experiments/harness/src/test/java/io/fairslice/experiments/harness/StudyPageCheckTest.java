package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page the load would request that the study server does not serve stops the study before anything is measured,
 * against a real server: a typo in {@code lightPaths} ran the whole study on 404s and ended with status 0.
 */
class StudyPageCheckTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void shouldStopTheStudyNamingThePageAndItsStatusWhenTheServerDoesNotServeAConfiguredPage() throws Exception {
        Path config = dir.resolve("typo.properties");
        Files.writeString(config, """
                configurations = none@default
                heavyUsers = 0, 4
                lightUsers = 5
                lightPaths = /light,/ligth
                warmUp = 1s
                measure = 5s
                jitWarmUp = 1s
                jitSettle = 0s
                documentSize = 256KB
                serverJvmOptions = -XX:+UseSerialGC -Xms256m -Xmx512m
                gatlingJvmOptions = -Xmx512m -XX:TieredStopAtLevel=1
                """);
        Path out = dir.resolve("run");
        // surefire runs the tests from a manifest-only jar; this property holds the real class path
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = StudyMain.execute(new String[] {"--config", config.toString(), "--out", out.toString(),
                "--server-classpath", classpath, "--loadgen-classpath", classpath},
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(said).isEqualTo(2);
        assertThat(said).contains("lightPaths = /light,/ligth: the study server (none@default) answered GET /ligth "
                + "with 404");
        assertThat(out.resolve("gatling")).as("no load ran, not even the JIT warm-up").doesNotExist();
        assertThat(out.resolve("points.csv")).doesNotExist();
    }
}
