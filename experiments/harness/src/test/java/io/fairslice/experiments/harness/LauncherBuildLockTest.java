package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's build-if-stale step under two launches at once (`./fairslice study` runs it too): a copy of the
 * real `./fairslice` in a scratch checkout whose `./mvnw` is a stand-in that takes two seconds and logs when it runs.
 * Only one launch may build; the other waits for the lock and then finds the jar fresh.
 */
class LauncherBuildLockTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../../fairslice")
            .normalize();

    @TempDir
    Path checkout;

    @Test
    void shouldBuildOnceWhenTwoLaunchesFindTheSameJarStale() throws Exception {
        Path launcher = scratchCheckout();

        Process first = start(launcher);
        Process second = start(launcher);
        String firstErr = finish(first);
        String secondErr = finish(second);

        List<String> log = Files.readAllLines(checkout.resolve("builds.log"));
        assertThat(log).as("stand-in builds (stderr 1: %s; stderr 2: %s)", firstErr, secondErr).hasSize(2);
        assertThat(log.get(0)).startsWith("start ");
        assertThat(log.get(1)).startsWith("end ");
        assertThat(firstErr + secondErr).containsOnlyOnce("fairslice: building kernel-probe")
                .containsOnlyOnce("waiting for another launch's build");
    }

    /**
     * A study from the checkout runs from the jars under its target/: a launch that would rebuild them stops, and
     * says why. The build emptied and refilled target/lib while the study's next server or Gatling started from it.
     */
    @Test
    void shouldNotBuildWhileAStudyFromTheCheckoutHoldsItsLock() throws Exception {
        Path launcher = scratchCheckout();
        Files.createDirectories(checkout.resolve("target"));
        // a stand-in for the study's harness, which holds the lock the launcher took (one process, which frees it
        // as it is destroyed)
        Process study = new ProcessBuilder("bash", "-c",
                "exec 9>>target/launcher-study.lock && flock 9 && exec sleep 60").directory(checkout.toFile()).start();
        try {
            Path lock = checkout.resolve("target/launcher-study.lock");
            while (!Files.exists(lock) || !held(lock)) {
                Thread.sleep(20);
            }
            String err = finish(start(launcher));

            assertThat(err).contains("a study is running from this checkout (it holds " + lock + ") and its"
                    + " servers start from the jars under target/: to build kernel-probe now would replace them"
                    + " under it");
            assertThat(checkout.resolve("builds.log")).as("no build").doesNotExist();
        } finally {
            study.destroy();
            study.waitFor(10, TimeUnit.SECONDS);
        }
        finish(start(launcher));
        assertThat(Files.readAllLines(checkout.resolve("builds.log"))).as("built once the study has ended")
                .hasSize(2);
    }

    /** Whether another process holds {@code lock} (flock -n fails). */
    private static boolean held(Path lock) throws Exception {
        Process p = new ProcessBuilder("flock", "-n", lock.toString(), "true").start();
        return p.waitFor() != 0;
    }

    /**
     * A copy of the launcher in a scratch checkout whose kernel-probe sources are older than the jar the stand-in
     * `./mvnw` (two seconds, logged in builds.log) makes; returns the launcher.
     */
    private Path scratchCheckout() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/flock")) || Files.isExecutable(Path.of("/bin/flock")),
                "the launcher locks only where flock exists");
        Path launcher = checkout.resolve("fairslice");
        Files.copy(LAUNCHER, launcher);
        executable(launcher);
        // `./fairslice probe` rebuilds kernel-probe from these sources; all of them older than the jar it makes
        Instant old = Instant.now().minusSeconds(3600);
        for (String source : List.of("pom.xml", "kernel-probe/pom.xml", "kernel-probe/src/main/java/A.java",
                "middleware/core/pom.xml", "middleware/core/src/main/java/B.java")) {
            Path file = checkout.resolve(source);
            Files.createDirectories(file.getParent());
            Files.writeString(file, "x");
            Files.setLastModifiedTime(file, FileTime.from(old));
        }
        Path mvnw = Files.writeString(checkout.resolve("mvnw"), """
                #!/usr/bin/env bash
                echo "start $$" >> builds.log
                sleep 2
                mkdir -p kernel-probe/target
                touch kernel-probe/target/fairslice-kernel-probe-0.1.0-SNAPSHOT.jar
                echo "end $$" >> builds.log
                """);
        executable(mvnw);
        return launcher;
    }

    private Process start(Path launcher) throws IOException {
        // the build is what is under test: what runs after it (the probe, from a jar that is only a stand-in) fails
        // (--pid: without it the launcher refuses before any build)
        return new ProcessBuilder(launcher.toString(), "probe", "--pid", "1", "--once").directory(checkout.toFile())
                .start();
    }

    private static String finish(Process process) throws Exception {
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
