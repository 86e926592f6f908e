package io.fairslice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code run.sh}'s arguments and what it saves, run from a copy in a sandbox with a stand-in JMH (a {@code java} that
 * logs its arguments and answers as JMH does: a regex that matches nothing, an unknown option or an option given
 * twice fail; {@code Failing} prints a benchmark's failure) and a stand-in {@code mvnw} that logs a build.
 */
class RunScriptTest {

    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).resolve("run.sh");

    @TempDir
    Path root;

    record Result(int exitCode, String stdout, String stderr) {
    }

    @Test
    void shouldPassEveryDefaultWhenTheCallerGivesNone() throws Exception {
        Result result = run("Benchmark");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(jmhCommands()).containsExactly(
                List.of("-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s", "-prof", "gc", "Benchmark"));
    }

    @Test
    void shouldLetTheCallersOptionsReplaceTheDefaults() throws Exception {
        Result result = run("Benchmark", "-f", "3", "-wi=1", "-w100ms", "-wbs", "2");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(jmhCommands()).containsExactly(
                List.of("-i", "5", "-r", "1s", "-prof", "gc", "Benchmark", "-f", "3", "-wi=1", "-w100ms", "-wbs", "2"));
        assertThat(saved()).hasSize(1);
    }

    /** With -o JMH writes its results there and nothing to the output run.sh checks and saves. */
    @Test
    void shouldRefuseJmhsOwnOutputFile() throws Exception {
        Result result = run("Benchmark", "-o", "results.txt", "-opi", "2");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("run.sh: -o is not taken");
        assertThat(root.resolve("jmh-commands.log")).doesNotExist();
        assertThat(saved()).isEmpty();
    }

    @Test
    void shouldSaveARunHeadedByTheMachinesFacts() throws Exception {
        Result result = run("Benchmark");

        assertThat(saved()).singleElement().satisfies(file -> {
            assertThat(file.getFileName().toString()).matches("jmh-\\d{8}T\\d{6}Z-jdk17\\.txt");
            assertThat(Files.readString(file)).startsWith("# fairslice JMH run\n")
                    .contains("command:     middleware/benchmarks/run.sh Benchmark\n", "# Run complete.",
                            "load after:");
        });
        assertThat(result.stderr()).contains("saved: ");
        assertThat(leftInTmp()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"NoSuchBenchmark", "--bogus", "-f 1 -f 3"})
    void shouldSaveNothingWhenJmhFails(String args) throws Exception {
        Result result = run(args.split(" "));

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).contains("JMH exited with status 1: nothing saved");
        assertThat(saved()).isEmpty();
        assertThat(leftInTmp()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-h", "-l", "-lp"})
    void shouldOnlyPrintHelpAndLists(String option) throws Exception {
        Result result = run("Benchmark", option);

        assertThat(result.exitCode()).isZero();
        assertThat(result.stdout()).contains("stand-in JMH " + option);
        assertThat(saved()).isEmpty();
        assertThat(leftInTmp()).isEmpty();
    }

    @Test
    void shouldKeepAFailedBenchmarksOutputOutOfTheSavedRuns() throws Exception {
        Result result = run("Failing");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).contains("a benchmark failed");
        assertThat(saved()).isEmpty();
        assertThat(leftInTmp()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pom.xml", "middleware/pom.xml", "middleware/core/pom.xml", "middleware/benchmarks/pom.xml",
            "middleware/core/src/main/java/A.java", "middleware/benchmarks/src/B.java"})
    void shouldRebuildTheJarWhenAFileItIsBuiltFromIsNewer(String file) throws Exception {
        sandbox();
        Files.setLastModifiedTime(root.resolve(file), FileTime.fromMillis(System.currentTimeMillis() + 60_000));

        run("-l");

        assertThat(Files.readString(root.resolve("mvnw.log"))).contains("package -pl middleware/benchmarks -am");
    }

    @Test
    void shouldNotRebuildAJarNewerThanEverythingItIsBuiltFrom() throws Exception {
        run("-l");

        assertThat(root.resolve("mvnw.log")).doesNotExist();
    }

    private Result run(String... args) throws IOException, InterruptedException {
        sandbox();
        List<String> command = Stream.concat(Stream.of(root.resolve("middleware/benchmarks/run.sh").toString()),
                Arrays.stream(args)).toList();
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
        builder.environment().put("JAVA_HOME", root.resolve("jdk").toString());
        builder.environment().put("TMPDIR", root.resolve("tmp").toString());
        builder.environment().remove("FAIRSLICE_COMMIT");
        // not the machine's shared build lock: another build holding it would stall the test
        builder.environment().put("FAIRSLICE_BUILD_LOCK", "");
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError("run.sh did not finish in 60 s");
        }
        return new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** The repository's layout as far as run.sh looks, its jar newer than every file it is built from. */
    private void sandbox() throws IOException {
        if (Files.exists(root.resolve("middleware/benchmarks/run.sh"))) {
            return;
        }
        Files.createDirectories(root.resolve("middleware/benchmarks/target"));
        Files.createDirectories(root.resolve("middleware/core/src/main/java"));
        Files.createDirectories(root.resolve("tmp"));
        Files.copy(SCRIPT, root.resolve("middleware/benchmarks/run.sh"));
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
        for (String file : List.of("pom.xml", "middleware/pom.xml", "middleware/core/pom.xml",
                "middleware/benchmarks/pom.xml", "middleware/core/src/main/java/A.java",
                "middleware/benchmarks/src/B.java")) {
            Files.createDirectories(root.resolve(file).getParent());
            Files.writeString(root.resolve(file), "");
            Files.setLastModifiedTime(root.resolve(file), old);
        }
        Files.writeString(root.resolve("middleware/benchmarks/target/benchmarks.jar"), "");
        executable(root.resolve("mvnw"), """
                #!/usr/bin/env bash
                echo "$*" >> mvnw.log
                """);
        Files.createDirectories(root.resolve("jdk/bin"));
        executable(root.resolve("jdk/bin/java"), """
                #!/usr/bin/env bash
                case "$1" in
                  -XshowSettings:properties) echo '    java.specification.version = 17' >&2; exit 0 ;;
                  -version) echo 'openjdk version "17" (stand-in)' >&2; exit 0 ;;
                  -jar) shift 2 ;;
                esac
                printf '%s\\n' "$@" '' >> jmh-commands.log
                seen=" "
                for arg in "$@"; do
                  case "$arg" in
                    -h | -l | -lp) echo "stand-in JMH $arg"; exit 0 ;;
                    --bogus) echo 'Error parsing command line:'; echo ' bogus is not a recognized option'; exit 1 ;;
                    NoSuch*) echo 'No matching benchmarks. Miss-spelled regexp?'; exit 1 ;;
                    -f | -wi | -w | -i | -r)
                      if [[ "$seen" == *" $arg "* ]]; then
                        echo "Found multiple arguments for option ${arg#-}, but you asked for only one"; exit 1
                      fi
                      seen+="$arg " ;;
                  esac
                done
                [[ "$*" == *Failing* ]] && printf 'Iteration   1: <failure>\\n\\njava.lang.IllegalStateException\\n'
                echo '# Run complete. Total time: 00:00:01'
                """);
    }

    /** Each stand-in JMH run's arguments (after {@code -jar benchmarks.jar}). */
    private List<List<String>> jmhCommands() throws IOException {
        List<List<String>> commands = new ArrayList<>();
        for (String command : Files.readString(root.resolve("jmh-commands.log")).split("\n\n")) {
            if (!command.isBlank()) {
                commands.add(Arrays.asList(command.strip().split("\n")));
            }
        }
        return commands;
    }

    private List<Path> saved() throws IOException {
        Path dir = root.resolve("docs/benchmarks");
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        }
    }

    private List<Path> leftInTmp() throws IOException {
        try (Stream<Path> files = Files.list(root.resolve("tmp"))) {
            return files.toList();
        }
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
