package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * experiments/soak.sh checks the load's options before it starts anything. Run from a copy of the checkout's soak
 * files whose {@code ./fairslice} is a stand-in that only notes that it was started (and its JVM options) and exits:
 * no real server. A stand-in {@code getconf} on the PATH gives the machine {@link #MEMORY_GB} GB of memory.
 */
class SoakScriptTest {

    private static final Path EXPERIMENTS = Path.of(System.getProperty("user.dir")).resolve("..").normalize();
    private static final String JAVA_HOME = System.getProperty("java.home");
    /** The memory the stand-in getconf reports, three quarters of which bound --heap-gb. */
    private static final int MEMORY_GB = 16;
    /** The largest heap the script takes on that machine. */
    private static final int HEAP_BOUND_GB = MEMORY_GB * 3 / 4;
    private static final int PAGE_SIZE = 4096;

    @TempDir
    Path root;

    record Result(int exitCode, String stdout, String stderr) {
    }

    @BeforeEach
    void copyTheSoakFiles() throws IOException {
        Files.createDirectories(root.resolve("experiments/soak"));
        Files.copy(EXPERIMENTS.resolve("soak.sh"), root.resolve("experiments/soak.sh"));
        Files.copy(EXPERIMENTS.resolve("soak/SoakLoad.java"), root.resolve("experiments/soak/SoakLoad.java"));
        Path launcher = root.resolve("fairslice");
        Files.writeString(launcher, "#!/usr/bin/env bash\necho \"$*\" >> '" + root.resolve("started")
                + "'\necho \"$FAIRSLICE_JAVA_OPTS\" > '" + root.resolve("java-opts") + "'\nexit 1\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path getconf = Files.createDirectories(root.resolve("bin")).resolve("getconf");
        long pages = (long) MEMORY_GB * 1024 * 1024 * 1024 / PAGE_SIZE;
        Files.writeString(getconf, "#!/usr/bin/env bash\ncase \"$1\" in\n  _PHYS_PAGES) echo " + pages
                + " ;;\n  PAGESIZE) echo " + PAGE_SIZE + " ;;\n  *) exit 1 ;;\nesac\n");
        Files.setPosixFilePermissions(getconf, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Result run(String... options) throws IOException, InterruptedException {
        return runWith(JAVA_HOME, options);
    }

    private Result runWith(String javaHome, String... options) throws IOException, InterruptedException {
        List<String> command = Stream.concat(Stream.of("bash", root.resolve("experiments/soak.sh").toString(),
                "--out", root.resolve("out").toString()), Stream.of(options)).toList();
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(root.resolve("stdout.txt").toFile())
                .redirectError(root.resolve("stderr.txt").toFile());
        builder.environment().put("JAVA_HOME", javaHome);
        builder.environment().put("PATH", root.resolve("bin") + ":" + System.getenv("PATH"));
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("soak.sh " + List.of(options) + " did not finish within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(root.resolve("stdout.txt")),
                Files.readString(root.resolve("stderr.txt")));
    }

    /**
     * A bad rate, period or length is refused by the load's own rules before the server starts or the output folder
     * is made: the rates were checked only by the load, once the server ran, and bash read --minutes 010 as 8.
     */
    @Test
    void shouldRefuseABadLoadOptionBeforeStartingTheServer() throws Exception {
        for (List<String> bad : List.of(List.of("--light", "1d"), List.of("--minutes", "525601"),
                List.of("--sample", "0"))) {
            Result result = run(bad.toArray(String[]::new));

            assertThat(result.exitCode()).as("%s: %s", bad, result.stderr()).isEqualTo(2);
            assertThat(result.stderr()).as("%s", bad).startsWith("soak: " + bad.get(0) + " must be ")
                    .endsWith(", got '" + bad.get(1) + "'\n").hasLineCount(1);
            assertThat(root.resolve("started")).as("%s: the server started", bad).doesNotExist();
            assertThat(root.resolve("out")).as("%s", bad).doesNotExist();
        }
    }

    /**
     * An option given twice, or left without its value, or with an empty one, is refused naming it before the server
     * starts: the later value was taken without a word, bash stopped at "$2: unbound variable", `--out --pin` made a
     * folder named --pin and `--out ""` wrote to the default folder.
     */
    @Test
    void shouldRefuseAnOptionGivenTwiceOrWithoutItsValue() throws Exception {
        Result twice = run("--light", "300", "--heap-gb", "1", "--light", "30");
        Result missing = run("--heavy");
        Result another = run("--out", "--pin");
        Result empty = run("--out", "");
        Result blank = run("--policy", " ");

        assertThat(twice).isEqualTo(new Result(2, "", "soak: --light given twice, '300' and '30'\n"));
        assertThat(missing).isEqualTo(new Result(2, "", "soak: --heavy needs a value (see --help)\n"));
        assertThat(another).isEqualTo(new Result(2, "", "soak: --out needs a value (see --help)\n"));
        assertThat(empty).isEqualTo(new Result(2, "", "soak: --out needs a value, got ''\n"));
        assertThat(blank).isEqualTo(new Result(2, "", "soak: --policy needs a value, got ' '\n"));
        assertThat(root.resolve("started")).doesNotExist();
        assertThat(root.resolve("--pin")).doesNotExist();
    }

    /**
     * A check whose own JVM fails (here a java that cannot start) is said as such, exit 1, not as a refused option
     * (exit 2, which the load's own refusals keep), and nothing starts.
     */
    @Test
    void shouldSayWhenTheChecksOwnJvmFails() throws Exception {
        Path java = Files.createDirectories(root.resolve("broken-jdk/bin")).resolve("java");
        Files.writeString(java, "#!/usr/bin/env bash\necho 'Error: could not create the Java Virtual Machine.' >&2\n"
                + "exit 1\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        Result result = runWith(root.resolve("broken-jdk").toString());

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(1);
        assertThat(result.stderr()).isEqualTo("Error: could not create the Java Virtual Machine.\n"
                + "soak: could not check the load's options: " + java
                + " -Xmx512m experiments/soak/SoakLoad.java exited with 1\n");
        assertThat(root.resolve("started")).doesNotExist();
        assertThat(root.resolve("out")).doesNotExist();
    }

    /** The stand-in notes a start: with good options the script gets that far (and says the server exited). */
    @Test
    void shouldStartTheServerWhenTheOptionsAreGood() throws Exception {
        Result result = run("--minutes", "010", "--light", "12.5");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(1);
        assertThat(result.stderr()).startsWith("soak: the server exited; see ");
        assertThat(root.resolve("started")).exists();
        assertThat(result.stdout()).startsWith("soak: 010 min, sample every 10 s, policy share, light 12.5/s");
    }

    /**
     * --heap-gb is read in base 10: bash read 010 as octal 8 in -Xmn's arithmetic (-Xms010g -Xmx010g -Xmn5461m) and
     * refused 08 with its own error ("value too great for base").
     */
    @Test
    void shouldReadTheHeapInBaseTen() throws Exception {
        for (String heap : List.of("010", "08")) {
            Result result = run("--heap-gb", heap);

            int gb = Integer.parseInt(heap, 10);
            assertThat(result.exitCode()).as("%s: %s", heap, result.stderr()).isEqualTo(1);
            assertThat(Files.readString(root.resolve("java-opts"))).as(heap)
                    .startsWith("-Xms" + gb + "g -Xmx" + gb + "g -Xmn" + gb * 1024 * 2 / 3 + "m ");
            assertThat(result.stdout()).as(heap).contains(", heap " + gb + " GB;");
        }
    }

    /**
     * A heap beyond three quarters of the machine's memory (the server touches all of it at start, beside the load and
     * the OS), or one so large that bash wrapped it around, is refused naming --heap-gb and the value before the server
     * starts: both were started; 0 and 1.5 were refused without the value.
     */
    @Test
    void shouldRefuseAHeapOutsideOneGbToThreeQuartersOfTheMachinesMemory() throws Exception {
        for (String heap : List.of(String.valueOf(HEAP_BOUND_GB + 1), "0", "99999999999999999999", "1.5")) {
            Result result = run("--heap-gb", heap);

            assertThat(result.exitCode()).as("%s: %s", heap, result.stderr()).isEqualTo(2);
            assertThat(result.stderr()).as(heap).isEqualTo("soak: --heap-gb must be a whole number of GB from 1 to "
                    + HEAP_BOUND_GB + " (three quarters of this machine's memory), got '" + heap + "'\n");
            assertThat(root.resolve("started")).as("%s: the server started", heap).doesNotExist();
            assertThat(root.resolve("out")).as(heap).doesNotExist();
        }
        assertThat(run("--heap-gb", String.valueOf(HEAP_BOUND_GB)).exitCode()).as("the bound").isEqualTo(1);
        assertThat(Files.readString(root.resolve("java-opts"))).startsWith("-Xms" + HEAP_BOUND_GB + "g ");
    }
}
