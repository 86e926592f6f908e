package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `./fairslice study --help` is answered by the launcher itself, without a build or a JVM (LauncherTest, in
 * experiments/server, checks that for every command): with StudyMain's own text, which this checks. The copy of the
 * launcher runs alone in a scratch folder, with no ./mvnw beside it: a launch that tried to build would fail.
 */
class LauncherStudyHelpTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../../fairslice")
            .normalize();

    @Test
    void shouldAnswerStudyHelpWithStudyMainsUsage(@TempDir Path checkout) throws Exception {
        Path launcher = Files.copy(LAUNCHER, checkout.resolve("fairslice"));
        Process process = new ProcessBuilder(launcher.toString(), "study", "--help").directory(checkout.toFile())
                .start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.exitValue()).as(stderr).isZero();
        assertThat(stdout).as("the launcher's study_usage in ./fairslice").startsWith(StudyMain.USAGE);
        assertThat(StudyMain.USAGE.lines()).as("lines of the usage").allSatisfy(line ->
                assertThat(line.length()).as(line).isLessThanOrEqualTo(120));
    }
}
