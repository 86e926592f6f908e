package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The soak benchmark's load (experiments/soak/SoakLoad.java, run by soak.sh in the JDK's source launcher) reads its
 * options as the experiments' other settings are read, and a refusal names the option. Each run is one second
 * against a closed port, so that a bad option taken (as before) ends too.
 */
class SoakLoadOptionsTest {

    private static final Path SOAK_LOAD = Path.of(System.getProperty("user.dir")).resolve("../soak/SoakLoad.java")
            .normalize();
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @TempDir
    Path dir;

    record Result(int exitCode, String stdout, String stderr) {
    }

    /** The load with {@code options}, and a run and sample period of one second where they give none. */
    private Result run(String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA.toString(), "-Xmx64m", SOAK_LOAD.toString(), "--url",
                "http://127.0.0.1:" + ClosedLoopLoadTest.closedPort(), "--csv", dir.resolve("soak.csv").toString()));
        for (String period : List.of("--seconds", "--sample")) {
            if (!List.of(options).contains(period)) {
                command.addAll(List.of(period, "1"));
            }
        }
        command.addAll(List.of(options));
        return runCommand(command.toArray(String[]::new));
    }

    private Result runCommand(String... command) throws IOException, InterruptedException {
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(); // a value taken for 0 or NaN: the load never reaches its end
            throw new AssertionError(List.of(command) + " did not finish within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }

    /**
     * Double.parseDouble read {@code --light 1d} as 1 and {@code --scan NaN} as a rate (the load never ended); 0
     * outstanding sent nothing; an unknown option was left out unnoticed; a refusal was a NumberFormatException's stack
     * trace naming no option. {@code --seconds 1000000000000} overflowed the run's end in nanoseconds: the load ended
     * at once and reported a run of that many seconds (exit 0). {@code --light 1e12} never ended: its arrivals' step
     * rounded to 0 ns.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "--light|1d|--light must be a rate (requests/s) such as 300 or 12.5, at most 100000, got '1d'",
        "--scan|NaN|--scan must be a rate (requests/s) such as 300 or 12.5, at most 100000, got 'NaN'",
        "--seconds|1e3|--seconds must be a whole number 1..31536000 (365 days), got '1e3'",
        "--max-outstanding|0|--max-outstanding must be a whole number 1..2147483647, got '0'",
        "--seconds|1000000000000|--seconds must be a whole number 1..31536000 (365 days), got '1000000000000'",
        "--sample|1000000000000|--sample must be a whole number 1..31536000 (365 days), got '1000000000000'",
        "--minutes|1|--minutes and --seconds both given: give one",
        "--light|1e12|--light must be a rate (requests/s) such as 300 or 12.5, at most 100000, got '1e12'",
        "--heavy|100000.5|--heavy must be a rate (requests/s) such as 300 or 12.5, at most 100000, got '100000.5'",

        "--ligth|5|unknown option '--ligth' (the options: --csv, --heavy, --light, --max-outstanding, --minutes, --pid,"
                + " --sample, --scan, --seconds, --url)"})
    void shouldRefuseABadOptionNamingIt(String option, String value, String message) throws Exception {
        Result result = run(option, value);

        assertThat(result.stderr()).isEqualTo("soak: " + message + "\n");
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stdout()).isEmpty();
    }

    /** {@code --check} first: the options read, nothing run (soak.sh asks so before it starts the server). */
    @Test
    void shouldOnlyReadTheOptionsWhenAskedToCheck() throws Exception {
        Result good = runCommand(JAVA.toString(), "-Xmx64m", SOAK_LOAD.toString(), "--check", "--minutes", "2",
                "--light", "12.5", "--heavy", "5e-1", "--scan", "2E1", "--csv", dir.resolve("soak.csv").toString());
        Result bad = runCommand(JAVA.toString(), "-Xmx64m", SOAK_LOAD.toString(), "--check", "--minutes", "525601");

        assertThat(good).isEqualTo(new Result(0, "", ""));
        assertThat(dir.resolve("soak.csv")).doesNotExist();
        assertThat(bad).isEqualTo(new Result(2, "",
                "soak: --minutes must be a whole number 1..525600 (365 days), got '525601'\n"));
    }

    /**
     * An option given twice is refused naming both values, as every other entry point of the project refuses one that
     * takes a single value: the later one was taken without a word (both ran, for 1 s, and exited 0).
     */
    @Test
    void shouldRefuseAnOptionGivenTwice() throws Exception {
        Result rate = run("--light", "12.5", "--light", "5");
        Result period = run("--seconds", "1", "--sample", "1", "--seconds", "2");

        assertThat(rate).isEqualTo(new Result(2, "", "soak: --light given twice, '12.5' and '5'\n"));
        assertThat(period).isEqualTo(new Result(2, "", "soak: --seconds given twice, '1' and '2'\n"));
    }

    /** A rate beyond a double was read as Infinity: every arrival at once, a flood of requests until the end. */
    @Test
    void shouldRefuseARateBeyondADouble() throws Exception {
        String beyond = "1" + "0".repeat(400);

        Result result = run("--light", beyond);

        assertThat(result).isEqualTo(new Result(2, "", "soak: --light must be a rate (requests/s) such as 300 or 12.5,"
                + " at most 100000, got '" + beyond + "'\n"));
    }

    /**
     * A rate so small that its first step lies beyond a long's nanoseconds ({@code --light 1e-12} alone): the next
     * arrival overflowed to a time long past, and the load sent without a pause and never ended.
     */
    @Test
    void shouldEndARunWhoseRateSendsNothingMoreInIt() throws Exception {
        Result result = run("--light", "1e-12", "--heavy", "0", "--scan", "0", "--max-outstanding", "10");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout()).startsWith("soak: ").contains(" every 1 s over 1 s ");
    }

    @Test
    void shouldRunWithPlainNumbers() throws Exception {
        Result result = run("--light", "0.5", "--heavy", "0", "--scan", ".5", "--max-outstanding", "10");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout()).startsWith("soak: ").contains(" every 1 s over 1 s ");
    }
}
