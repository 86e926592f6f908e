package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Smoke test of the `./fairslice` launcher at the repository root (commands that need no build). */
class LauncherTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../../fairslice")
            .normalize();

    record Result(int exitCode, String stdout, String stderr) {
    }

    private static Result run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), args);
    }

    private static Result run(Map<String, String> environment, String... args)
            throws IOException, InterruptedException {
        List<String> command = Stream.concat(Stream.of(LAUNCHER.toString()), Stream.of(args)).toList();
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        return new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void shouldExistAndBeExecutable() {
        assertThat(LAUNCHER).exists();
        assertThat(Files.isExecutable(LAUNCHER)).isTrue();
    }

    @Test
    void shouldPrintUsageWithEveryCommandOnHelp() throws Exception {
        Result result = run("--help");
        assertThat(result.exitCode()).isZero();
        assertThat(result.stdout()).contains("usage: ./fairslice").contains("serve").contains("study").contains("test");
    }

    @Test
    void shouldRejectAnUnknownCommandByName() throws Exception {
        Result result = run("frobnicate");
        assertThat(result.exitCode()).isNotZero();
        assertThat(result.stderr()).contains("unknown command 'frobnicate'").contains("usage:");
    }

    @Test
    void shouldFailWithUsageWhenGivenNoCommand() throws Exception {
        Result result = run();
        assertThat(result.exitCode()).isNotZero();
        assertThat(result.stdout() + result.stderr()).contains("usage:");
    }

    /** Answered by the launcher: no build, no 4 GB server JVM; the server's options and the launcher's own. */
    @Test
    void shouldAnswerServeHelpWithTheServersOptionsAndPrometheus() throws Exception {
        Result result = run("serve", "--help");
        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).as("nothing built or started").isEmpty();
        assertThat(ServerOptions.USAGE.lines()).allSatisfy(line -> assertThat(result.stdout()).contains(line));
        assertThat(result.stdout()).contains("--prometheus");
    }

    /** One error, before any build: the refusal ended only a command substitution, and a second error followed. */
    @Test
    void shouldRefuseServeWithPrometheusOnAPortPickedAtRandomWithOneError() throws Exception {
        Result result = run("serve", "--prometheus", "--port", "0");
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr().strip()).isEqualTo("fairslice: serve --prometheus needs a fixed --port (got '0'):"
                + " Prometheus must know where to scrape");
    }

    @Test
    void shouldNameAJavaHomeWithoutJava() throws Exception {
        Result result = run(Map.of("JAVA_HOME", "/nonexistent-jdk"), "serve");
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("JAVA_HOME=/nonexistent-jdk has no bin/java")
                .doesNotContain("weaving");
    }

    @Test
    void shouldRejectArgumentsToTest() throws Exception {
        Result result = run("test", "--bogus");
        assertThat(result.exitCode()).isNotZero();
        assertThat(result.stderr()).contains("test takes no arguments");
    }
}
