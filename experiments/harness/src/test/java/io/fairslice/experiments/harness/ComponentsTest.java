package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComponentsTest {

    @TempDir
    Path dir;

    @Test
    void shouldRecordTheVersionsOnTheChildJvmsClassPaths() throws IOException {
        Path lib = Files.createDirectories(dir.resolve("server/lib"));
        Files.createFile(lib.resolve("tomcat-embed-core-11.0.25.jar"));
        Files.createFile(lib.resolve("tomcat-embed-core-extras-2.0.jar")); // another artifact, same prefix
        Files.createFile(lib.resolve("micrometer-core-1.17.2.jar"));
        Path gatling = Files.createFile(dir.resolve("gatling-core-3.15.1.jar"));
        Path agent = dir.resolve("agent/aspectjweaver.jar");
        Files.createDirectories(agent.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        // the weaver keeps its version in its package's section, not the main one
        manifest.getEntries().computeIfAbsent("org/aspectj/weaver/", k -> new Attributes())
                .put(Attributes.Name.IMPLEMENTATION_VERSION, "1.9.24");
        try (OutputStream out = new JarOutputStream(Files.newOutputStream(agent), manifest)) {
            out.flush();
        }

        String described = Components.describe(new StudyRunner.Classpaths(
                dir.resolve("server/app.jar") + File.pathSeparator + lib + File.separator + "*",
                gatling.toString(), List.of(), List.of("-javaagent:" + agent, "-Daj.weaving.verbose=false")));

        assertThat(described).isEqualTo(
                "tomcat-embed-core 11.0.25, micrometer-core 1.17.2, gatling-core 3.15.1, aspectjweaver 1.9.24");
    }

    @Test
    void shouldSayWhatItDidNotFindAndLeaveOutTheAgentOfARunWithout() {
        String described = Components.describe(
                new StudyRunner.Classpaths(dir + File.separator + "*", "", List.of(), List.of()));

        assertThat(described).isEqualTo(
                "tomcat-embed-core not found, micrometer-core not found, gatling-core not found");
    }
}
