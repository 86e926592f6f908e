package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Under Gatling's Maven plugin the class path holds two logback.xml, ours (target/classes) and the plugin jar's;
 * logback then printed ~20 lines of its own status (the duplicate, then every step of its configuration) before each
 * run. A JVM of its own with the same two files (ours first, a copy of the plugin's after it) logs one WARN: that line
 * must show, logback's status must not.
 */
class LogbackStatusTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldPrintNoLogbackStatusWithTwoLogbackXmlOnTheClassPathButStillTheLoggersWarnings() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugin"));
        // the plugin's own file, as in gatling-maven-plugin-4.21.12.jar
        Files.writeString(plugins.resolve("logback.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <configuration>
                  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} [%-5level] %logger{15} - %msg%n%rEx</pattern></encoder>
                  </appender>
                  <root><level value="WARN"/><appender-ref ref="CONSOLE"/></root>
                </configuration>
                """);
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
                + File.pathSeparator + plugins;
        Path log = dir.resolve("out.log");
        Process process = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-cp", classpath,
                WarnOnce.class.getName()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(50, TimeUnit.SECONDS)).as("the JVM ended").isTrue();
        String output = Files.readString(log, StandardCharsets.UTF_8);

        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).as("logback's status lines").doesNotContain("|-INFO in ch.qos.logback")
                .doesNotContain("|-WARN in ch.qos.logback").doesNotContain("occurs multiple times");
        // our pattern, so our file configured it
        assertThat(output).containsPattern("WARN  io.fairslice.loadgen.probe - a real warning");
    }

    /** Logs one WARN through slf4j, as Gatling does, and stops logback so that its unflushed console is written. */
    public static final class WarnOnce {
        public static void main(String[] args) {
            LoggerFactory.getLogger("io.fairslice.loadgen.probe").warn("a real warning");
            ((LoggerContext) LoggerFactory.getILoggerFactory()).stop();
        }
    }
}
