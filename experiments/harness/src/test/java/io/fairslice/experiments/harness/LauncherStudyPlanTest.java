package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which launches of `./fairslice study` measure, as the launcher tells them apart: a run that measures builds the
 * study server first (and takes the study's locks and records the realtime settings its exit trap puts back);
 * `--plan` and `--report` build only the harness. A copy of the launcher in a scratch checkout whose `./mvnw` is a
 * stand-in that logs the module it was asked to build and fails, so that the launch ends at its first build.
 */
class LauncherStudyPlanTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../../fairslice")
            .normalize();

    @TempDir
    Path checkout;

    @Test
    void shouldTellAPlanFromARunByTheStudysOwnOptionsOnly() throws Exception {
        assertThat(firstBuild("--plan")).as("--plan").isEqualTo("experiments/harness");
        assertThat(firstBuild("--report", "results/x")).as("--report").isEqualTo("experiments/harness");
        // a JVM option's value may start with --: --plan there is the option's, and the run measures
        assertThat(firstBuild("--weaving-jvm-option", "--plan")).as("--weaving-jvm-option --plan")
                .isEqualTo("experiments/server");
        assertThat(firstBuild("--server-jvm-option", "--report", "--out", "results/y"))
                .as("--server-jvm-option --report").isEqualTo("experiments/server");
    }

    /** The module the launcher first builds for `study ARGS`, from the stand-in ./mvnw's log. */
    private String firstBuild(String... args) throws Exception {
        Path launcher = checkout.resolve("fairslice");
        if (!Files.exists(launcher)) {
            Files.copy(LAUNCHER, launcher);
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (String dir : List.of("experiments/server", "experiments/study-app", "experiments/harness",
                    "middleware/core", "kernel-probe", "loadgen")) {
                Files.createDirectories(checkout.resolve(dir));
                Files.writeString(checkout.resolve(dir).resolve("pom.xml"), "x");
            }
            Files.writeString(checkout.resolve("pom.xml"), "x");
            Path mvnw = Files.writeString(checkout.resolve("mvnw"), """
                    #!/usr/bin/env bash
                    while [[ $# -gt 0 && "$1" != -pl ]]; do shift; done
                    echo "$2" >> builds.log
                    exit 1
                    """);
            Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.deleteIfExists(checkout.resolve("builds.log"));
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "study"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(checkout.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        assertThat(checkout.resolve("builds.log")).as("a build was asked for; the launcher said: %s", said).exists();
        return Files.readAllLines(checkout.resolve("builds.log")).get(0);
    }
}
