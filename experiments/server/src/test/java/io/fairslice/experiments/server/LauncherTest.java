package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairslice.experiments.app.HeavyServlet;
import io.fairslice.middleware.weaving.WeavingScope;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Smoke test of the `./fairslice` launcher at the repository root: commands that need no build, and `serve` run from a
 * copy of the launcher with a stand-in build and JDK ({@link Sandbox}) to see the JVM options it starts the server
 * with.
 */
class LauncherTest {

    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../../fairslice")
            .normalize();
    private static final String TEST_CLASS_PATH = System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path"));
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");
    /** After the launcher's own -Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch, so these count: a test's server is small. */
    private static final String SMALL_HEAP = "-Xms64m -Xmx256m -Xmn32m -XX:-AlwaysPreTouch";
    /** What the launcher says as it runs the sandbox's stand-in build. */
    private static final String BUILDING_THE_SERVER = "fairslice: building experiments/server (./mvnw package"
            + " -DskipTests) ...\n";

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

    /** A usage error, as an unknown command is: the text on stderr, nothing on stdout (a pipe gets no usage). */
    @Test
    void shouldFailWithUsageOnStderrWhenGivenNoCommand() throws Exception {
        Result result = run();
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("usage: ./fairslice <command>");
        assertThat(result.stdout()).isEmpty();
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

    /**
     * Every command answers --help and -h itself, as `serve` does: `study --help` and `install --help` built the
     * project first (a minute on a fresh clone) and `study` printed a weaving line before the text; `test --help` was
     * refused as an argument. Run in the {@link Sandbox}: no java and no build may run. The texts are the programs'
     * own, checked against them in their modules (StudyMain, Installer, ProbeTop tests). Every command's usage lists
     * --help among its options (probe's did not, nor test's).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "study      ; usage: ./fairslice study [--quick | --full]",
        "install    ; usage: ./fairslice install --catalina-base DIR",
        "probe      ; usage: ./fairslice probe --pid N",
        "prometheus ; usage: ./fairslice prometheus [options]",
        "test       ; usage: ./fairslice test",
        "serve      ; usage: ./fairslice serve [options]",
        "help       ; usage: ./fairslice <command> [options]"})
    void shouldAnswerEveryCommandsHelpWithoutJavaOrABuild(String command, String firstLine, @TempDir Path dir)
            throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        for (String option : List.of("--help", "-h")) {
            Result result = sandbox.run(Map.of(), command, option);

            assertThat(result.exitCode()).as("%s %s: %s", command, option, result.stderr()).isZero();
            assertThat(result.stdout()).as("%s %s", command, option).startsWith(firstLine);
            if (!command.equals("help")) { // help lists the commands
                assertThat(result.stdout().lines()).as("%s %s: a line for --help", command, option)
                        .anyMatch(line -> line.matches("\\s+--help\\s.*"));
            }
            assertThat(result.stdout().lines()).as("%s %s: lines of at most 120 characters", command, option)
                    .allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(120));
            assertThat(result.stderr()).as("%s %s", command, option).isEmpty();
        }
        sandbox.assertNothingBuiltOrStarted();
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
        assertThat(result.stderr())
                .startsWith("fairslice test: it takes no arguments (got: --bogus)\nusage: ./fairslice test\n")
                .contains("./mvnw -B verify -pl MODULE -am");
    }

    /** help took an argument without a word: `help serve` printed the list of commands and nothing of serve. */
    @Test
    void shouldRejectArgumentsToHelp() throws Exception {
        for (String help : List.of("help", "--help", "-h")) {
            Result result = run(help, "serve");

            assertThat(result.exitCode()).as(help).isEqualTo(2);
            assertThat(result.stdout()).as(help).isEmpty();
            assertThat(result.stderr()).as(help).startsWith("fairslice help: it takes no arguments (got: serve); a"
                    + " command's own: ./fairslice COMMAND --help\nusage: ./fairslice <command> [options]\n");
        }
    }

    /** The command it names is the build's without -q: it must not run the whole module's tests as well. */
    @Test
    void shouldNameTheBuildWithoutItsTestsWhenTheBuildFails(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("mvnw"), "#!/usr/bin/env bash\necho \"$*\" >> mvnw.log\nexit 1\n");

        Result result = sandbox.run(Map.of(), "serve", "--policy", "none");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("fairslice: the build of experiments/server failed; run"
                + " ./mvnw -B -DskipTests package -pl experiments/server -am to see why");
        assertThat(sandbox.serverCommand()).isEmpty();
    }

    /**
     * Run through a link from another folder (ln -s .../fairslice ~/bin/), the launcher builds and runs its checkout's:
     * it took the link's folder for the checkout, made a stray target/ there and said it could not write a build stamp.
     */
    @Test
    void shouldRunTheCheckoutALinkPointsTo(@TempDir Path dir, @TempDir Path elsewhere) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Path link = Files.createSymbolicLink(elsewhere.resolve("fairslice"), dir.resolve("fairslice"));

        Result result = sandbox.run(link, elsewhere, Map.of(), "serve", "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(sandbox.builds()).as("builds in the checkout").isNotEmpty();
        assertThat(sandbox.serverCommand()).contains("--policy", "none");
        assertThat(elsewhere.resolve("target")).as("nothing made beside the link").doesNotExist();
    }

    /** A copy of the script alone is no checkout: said so, before anything is made beside it. */
    @Test
    void shouldSayThatACopyOfTheLauncherIsNoCheckout(@TempDir Path dir, @TempDir Path elsewhere) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Path copy = Files.copy(dir.resolve("fairslice"), elsewhere.resolve("fairslice"));

        Result result = sandbox.run(copy, elsewhere, Map.of(), "probe", "--pid", "1", "--once");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr().strip()).isEqualTo("fairslice: " + elsewhere.toRealPath() + " is not a fairslice"
                + " checkout (no executable mvnw there): run the launcher from its checkout, or through a link to it"
                + " (ln -s /path/to/checkout/fairslice ~/bin/), not a copy");
        assertThat(elsewhere.resolve("target")).doesNotExist();
    }

    /** A source folder the build stamp lists that is missing: said so, not "cannot write the build stamp". */
    @Test
    void shouldSayThatItCannotListTheSourcesOfABuild(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Files.delete(dir.resolve("experiments/study-app"));

        Result result = sandbox.run(Map.of(), "serve", "--policy", "none");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("study-app").contains("fairslice: cannot list the sources of"
                + " experiments/server (find's message is above): is the checkout at " + dir.toRealPath()
                + " complete?").doesNotContain("build stamp");
        assertThat(sandbox.builds()).isEmpty();
    }

    /**
     * `test` as root on Debian: an apt-get that fails stops the launcher with a message of its own (it ended with
     * apt's status and none), and one that leaves a tool missing does not go on to the whole suite. Run with a PATH
     * of the few commands the launcher uses, a stand-in apt-get and an id that says root; nothing is installed. The
     * message is named "fairslice test: " as the other commands' are (it was "fairslice: test: ").
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "update fails  | 100 | 0   | apt-get update failed (its message is above); install nodejs npm util-linux"
                + " prometheus by hand (Debian: sudo apt-get install nodejs npm util-linux prometheus) and run again",
        "install fails | 0   | 100 | apt-get install nodejs npm util-linux prometheus failed (its message is above);"
                + " install nodejs npm util-linux prometheus by hand",
        "tools missing | 0   | 0   | apt-get installed nodejs npm util-linux prometheus, but node npm taskset"
                + " prometheus promtool still not on the PATH; install nodejs npm util-linux prometheus by hand"})
    void shouldStopTheTestsWhenAptGetDoesNotInstallTheirTools(String how, int update, int install, String message,
                                                              @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Path bin = fewCommands(dir, 0);
        Sandbox.executable(bin.resolve("apt-get"), """
                #!/usr/bin/env bash
                echo "$*" >> '%s'
                case "$1" in update) exit %d ;; install) exit %d ;; esac
                """.formatted(dir.resolve("apt-get.log"), update, install));

        Result result = sandbox.run(Map.of("PATH", bin.toString()), "test");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).contains("fairslice test: " + message);
        assertThat(Files.readAllLines(dir.resolve("apt-get.log"))).as("apt-get runs")
                .hasSize(update == 0 ? 2 : 1);
        assertThat(sandbox.builds()).as("no test suite run").isEmpty();
    }

    /** Not root, `test` names the tools to install and runs nothing; the same PATH with an id that says 1000. */
    @Test
    void shouldNameTheToolsTheTestsNeedWhenItCannotInstallThem(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of("PATH", fewCommands(dir, 1000).toString()), "test");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).contains("fairslice test: the tests need nodejs npm util-linux prometheus; install"
                + " nodejs npm util-linux prometheus by hand (Debian: sudo apt-get install nodejs npm util-linux"
                + " prometheus) and run again");
        assertThat(sandbox.builds()).as("no test suite run").isEmpty();
    }

    /** A misspelt FAIRSLICE_SKIP_JDK21_TESTS stops `test` at once: it was read after the whole suite had run. */
    @Test
    void shouldRefuseAMisspeltSkipOfTheJdk21TestsBeforeTheSuite(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Path bin = fewCommands(dir, 1000);

        Result result = sandbox.run(Map.of("PATH", bin.toString(), "FAIRSLICE_SKIP_JDK21_TESTS", "true"), "test");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("fairslice test: FAIRSLICE_SKIP_JDK21_TESTS must be 1 (leave the"
                + " virtual-thread tests out) or 0, got 'true'\n");
        assertThat(sandbox.builds()).as("no test suite run").isEmpty();
    }

    /** A folder for the PATH with the few commands the launcher's `test` uses and an id that says {@code uid}. */
    private static Path fewCommands(Path dir, int uid) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String command : List.of("bash", "sed", "head", "dirname", "readlink", "cat")) {
            Files.createSymbolicLink(bin.resolve(command), onThePath(command));
        }
        Sandbox.executable(bin.resolve("id"), "#!/usr/bin/env bash\necho " + uid + "\n");
        return bin;
    }

    private static Path onThePath(String command) {
        return Stream.of(System.getenv("PATH").split(File.pathSeparator)).map(dir -> Path.of(dir, command))
                .filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new AssertionError("no " + command + " on the PATH"));
    }

    /** The baseline pays for no weaving: no agent, no scope check, whatever FAIRSLICE_WEAVING says. */
    @Test
    void shouldStartTheServerWithoutTheWeavingAgentUnderPolicyNone(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of(), "serve", "--port", "0", "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(sandbox.serverCommand()).contains("--policy", "none")
                .noneMatch(arg -> arg.startsWith("-javaagent:"))
                .noneMatch(arg -> arg.startsWith("-D" + WeavingScope.CONFIGURATION_PROPERTY));
        assertThat(sandbox.commands()).as("no JVM checked a weaving scope")
                .noneMatch(command -> command.contains(WeavingScope.class.getName()));
        assertThat(result.stderr()).doesNotContain("FAIRSLICE_WEAVING");
    }

    /**
     * FAIRSLICE_JAVA_OPTS is split on blanks and newlines, never glob-expanded: unquoted, -Dglob=* became the name of
     * a file in the folder the launcher ran in.
     */
    @Test
    void shouldPassTheJavaOptionsAsWrittenWithoutExpandingGlobs(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Files.writeString(dir.resolve("-Dglob=matched"), "");

        Result result = sandbox.run(Map.of("FAIRSLICE_JAVA_OPTS", " -Dglob=*  -Xss1m\n-Dnext.line=1 "), "serve",
                "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        List<String> command = sandbox.serverCommand();
        assertThat(command).contains("-Dglob=*", "-Xss1m", "-Dnext.line=1").doesNotContain("-Dglob=matched", "");
        assertThat(command.indexOf("-Dnext.line=1")).as("before the class path").isLessThan(command.indexOf("-cp"));
    }

    /**
     * FAIRSLICE_JAVA_OPTS the JVM does not start with (serve's own options before it) is refused naming the variable,
     * before the build: the server's JVM said only "Unrecognized option: -Xbogus", or that -Xms was over -Xmx.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-Xss1m -Xbogus | Unrecognized option: -Xbogus",
        "-Xmx2g         | Initial heap size set to a larger value than the maximum heap size"})
    void shouldRefuseJavaOptionsTheJvmDoesNotStartWithNamingTheVariable(String options, String complaint,
                                                                         @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of("FAIRSLICE_JAVA_OPTS", options), "serve", "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("fairslice serve: FAIRSLICE_JAVA_OPTS='" + options + "': the server's"
                + " JVM (" + dir.resolve("jdk/bin/java") + ") does not start with it after serve's own"
                + " -XX:+UseSerialGC -Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch: " + complaint + "\n");
        assertThat(sandbox.builds()).as("builds").isEmpty();
        assertThat(sandbox.serverCommand()).isEmpty();
    }

    /** The check starts no agent: a debugger's, with suspend=y, would wait for one. */
    @Test
    void shouldCheckTheJavaOptionsWithoutTheirAgents(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        String agent = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0";

        Result result = sandbox.run(Map.of("FAIRSLICE_JAVA_OPTS", agent + " -Xss1m"), "serve", "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(sandbox.commands()).as("the check").filteredOn(c -> c.contains("-version") && c.contains("-Xss1m"))
                .singleElement().satisfies(check -> assertThat(check).doesNotContain(agent));
        assertThat(sandbox.serverCommand()).contains(agent, "-Xss1m");
    }

    @Test
    void shouldSayThatPolicyNoneDoesNotUseTheWeavingSettingsGiven(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of("FAIRSLICE_WEAVING", "calls"), "serve", "--policy", "none");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(sandbox.serverCommand()).noneMatch(arg -> arg.startsWith("-javaagent:"));
        assertThat(result.stderr()).contains("--policy none runs without the middleware and without the weaving agent");
    }

    /** --fairslice adds a key each time it is given: the launcher's refusal of an option given twice spares it. */
    @Test
    void shouldPassARepeatedFairsliceOptionToTheServer(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of(), "serve", "--fairslice", "class.heavy.share=10", "--fairslice",
                "class.light.share=90");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(sandbox.serverCommand()).containsSubsequence("--fairslice", "class.heavy.share=10", "--fairslice",
                "class.light.share=90");
    }

    /**
     * The installer gets the checkout's bundle as --dist unless the command line names another, which it refuses to
     * be given twice: `install --dist DIR` passed the launcher's --dist and then the user's.
     */
    @Test
    void shouldGiveTheInstallerOneDist(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        for (String module : List.of("middleware/tomcat", "middleware/core", "kernel-probe")) {
            Files.createDirectories(dir.resolve(module).resolve("src/main"));
            Files.writeString(dir.resolve(module).resolve("pom.xml"), "");
        }

        sandbox.run(Map.of(), "install", "--catalina-base", "/opt/tomcat", "--dist", "/opt/bundle");
        sandbox.run(Map.of(), "install", "--catalina-base", "/opt/tomcat");

        List<List<String>> installs = sandbox.commands().stream()
                .filter(c -> c.contains("io.fairslice.tomcat.install.Installer")).toList();
        assertThat(installs).hasSize(2);
        assertThat(installs.get(0)).containsSubsequence("--catalina-base", "/opt/tomcat", "--dist", "/opt/bundle")
                .containsOnlyOnce("--dist");
        assertThat(installs.get(1)).containsSubsequence("--dist", dir.resolve("middleware/tomcat/target/dist")
                .toString()).containsOnlyOnce("--dist");
    }

    /** Under a fairslice policy, the agent and the checked scope file. */
    @Test
    void shouldWeaveUnderAFairslicePolicyWithTheWeaversDefaultListFromJava(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of(), "serve", "--policy", "share");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).contains("fairslice: weaving scope [" + HeavyServlet.class.getName() + "]");
        String option = "-D" + WeavingScope.CONFIGURATION_PROPERTY + "=" + WeavingScope.DEFAULT_CONFIGURATION
                + ";file:" + dir.resolve("target/weaving/aop-");
        assertThat(sandbox.serverCommand())
                .contains("-javaagent:" + dir.resolve("experiments/server/target/agent/aspectjweaver.jar"))
                .anyMatch(arg -> arg.startsWith(option) && arg.endsWith(".xml"));
    }

    /**
     * A checkout whose path holds '=' cannot pass the weaving agent: the JVM reads -javaagent's jar path up to the
     * first '=', and the server's JVM did not start. serve and a study that measures refuse it before building;
     * without the agent (--policy none, FAIRSLICE_WEAVING=off) they run.
     */
    @Test
    void shouldRefuseACheckoutPathWithAnEqualsSignBeforeBuildingWhereTheWeavingAgentIsUsed(@TempDir Path dir)
            throws Exception {
        Path root = Files.createDirectories(dir.resolve("a=b"));
        Sandbox sandbox = new Sandbox(root);
        Sandbox.executable(root.resolve("stand-in-harness"), "#!/usr/bin/env bash\necho harness ran\n");
        String refusal = "the checkout's path " + root + " contains the character '=', which the JVM's -javaagent "
                + "option cannot carry: it takes the agent's jar path up to the first '=' (the rest are the agent's "
                + "options), and the server's JVM would not start; use a checkout at a path without it, or run "
                + "without the weaving agent (FAIRSLICE_WEAVING=off)";

        for (String command : List.of("serve", "study")) {
            Result refused = sandbox.run(Map.of(), command);

            assertThat(refused.exitCode()).as(refused.stderr()).isEqualTo(2);
            assertThat(refused.stderr()).isEqualTo("fairslice " + command + ": " + refusal + "\n");
        }
        assertThat(sandbox.builds()).as("refused before any build").isEmpty();

        Result baseline = sandbox.run(Map.of(), "serve", "--policy", "none");
        assertThat(baseline.exitCode()).as(baseline.stderr()).isZero();
        Result unwoven = sandbox.run(Map.of("FAIRSLICE_WEAVING", "off"), "study");
        assertThat(unwoven.exitCode()).as(unwoven.stderr()).isZero();
        assertThat(unwoven.stdout()).contains("harness ran");
    }

    /**
     * Every test class with a test for Java 21+ only runs again on the JDK 21+ after a Java 17 run: OsThreadsTest's
     * (a virtual thread gets no OS thread id) was left out of the launcher's list, and skipped in every run.
     */
    @Test
    void shouldRunEveryTestForJava21OnlyAgainOnAJdk21() throws IOException {
        String launcher = Files.readString(LAUNCHER);
        int at = launcher.indexOf("-Dtest='");
        assertThat(at).as("the launcher's rerun list").isPositive();
        List<String> listed = new ArrayList<>(List.of(
                launcher.substring(at + 8, launcher.indexOf('\'', at + 8)).split(",")));
        int it = launcher.indexOf("-Dit.test=");
        listed.addAll(List.of(launcher.substring(it + 10, launcher.indexOf(' ', it)).split(",")));
        Path root = LAUNCHER.getParent();
        List<String> gated;
        try (Stream<Path> files = Files.walk(root)) {
            gated = files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/test/")
                            && !f.toString().contains("/node_modules/"))
                    .filter(f -> {
                        try {
                            // spelt in two parts, or this file would count itself
                            return Files.readString(f).contains("@EnabledForJreRange(min = JRE." + "JAVA_21)");
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .map(f -> f.getFileName().toString().replace(".java", "")).sorted().toList();
        }
        assertThat(gated).as("test classes with Java 21+ tests").contains("VirtualThreadsTest", "OsThreadsTest");
        assertThat(listed).as("the launcher's rerun on a JDK 21+").containsAll(gated);
    }

    /** One source of truth: the launcher takes the weaver's default aop.xml list from WeavingScope. */
    @Test
    void shouldLeaveTheWeaversDefaultListToWeavingScope() throws IOException {
        String launcher = Files.readString(LAUNCHER);

        for (String resource : WeavingScope.DEFAULT_CONFIGURATION.split(";")) {
            if (!resource.equals("META-INF/aop.xml")) { // also the name of fairslice's own file, in comments
                assertThat(launcher).as("the launcher spells " + resource).doesNotContain(resource);
            }
        }
    }

    @Test
    void shouldRefuseAMisspeltWeavingModeUnderPolicyNoneToo(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of("FAIRSLICE_WEAVING", "of"), "serve", "--policy", "none");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("FAIRSLICE_WEAVING must be on, calls or off (got 'of')");
        assertThat(sandbox.serverCommand()).isEmpty();
    }

    /**
     * A bad value is answered with the one line that names the option and the value, exit 2; the usage follows only a
     * command line of the wrong form (an unknown option, an option without its value, options that exclude each
     * other): after an address that did not resolve, a dozen lines of options buried the line that mattered. The real
     * server's main, run by the launcher and on its own.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--address no-such-host.invalid.  | false | --address 'no-such-host.invalid.' does not resolve to an IP address"
                + " (a misspelt host name?)",
        "--port 65536                     | false | --port must be 0..65535, got 65536",
        "--max-threads many               | false | --max-threads must be a whole number, got 'many'",
        "--fairslice class.heavy.share    | false | --fairslice needs key=value, got 'class.heavy.share'",
        "--fairslice class.heavy.share=abc | false | fairslice configuration: class.heavy.share must be a whole number"
                + " 1..1000, got 'abc' (set by --fairslice class.heavy.share)",
        "--bogus                          | true  | unknown option '--bogus'",
        "--port                           | true  | --port needs a value",
        "--port 8080 --port 65536         | true  | --port given twice, '8080' and '65536'",
        "--policy none --fairslice class.heavy.share=10 | true | --fairslice needs a policy other than none, got"
                + " [class.heavy.share]"})
    void shouldAnswerABadServeValueInOneLineAndOnlyAWrongFormWithTheUsage(String args, boolean usage, String message,
                                                                          @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        sandbox.runTheRealServer();
        List<String> serverArgs = List.of(args.split(" "));

        Result launched = sandbox.run(Map.of("FAIRSLICE_JAVA_OPTS", SMALL_HEAP, "FAIRSLICE_WEAVING", "off"),
                Stream.concat(Stream.of("serve"), serverArgs.stream()).toArray(String[]::new));
        Process process = new ProcessBuilder(Stream.concat(Stream.of(JAVA.toString(), "-cp", TEST_CLASS_PATH,
                StudyServer.class.getName()), serverArgs.stream()).toList()).start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the server's main finished").isTrue();
        Result main = new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));

        // a command line of the wrong form that the usage text shows is refused by the launcher, before the build
        boolean refusedBeforeTheBuild = message.startsWith("unknown option") || message.endsWith("needs a value")
                || message.contains(" given twice, ");
        if (refusedBeforeTheBuild) {
            assertThat(sandbox.builds()).as("builds").isEmpty();
        } else {
            assertThat(launched.stderr()).as("the sandbox's build").startsWith(BUILDING_THE_SERVER);
        }
        for (Result result : List.of(launched, main)) {
            String stderr = result.stderr().replace(BUILDING_THE_SERVER, "");
            assertThat(result.exitCode()).as(stderr).isEqualTo(2);
            assertThat(result.stdout()).isEmpty();
            if (usage) {
                assertThat(stderr).startsWith("fairslice serve: " + message + "\nusage: ./fairslice serve");
            } else {
                assertThat(stderr).isEqualTo("fairslice serve: " + message + "\n");
            }
        }
    }

    /** A peer the server does not know (the study's -Dfairslice.peer) is one line and exit 2, not a stack trace. */
    @Test
    void shouldAnswerAnUnknownPeerInOneLine() throws Exception {
        Process process = new ProcessBuilder(JAVA.toString(), "-Dfairslice.peer=bogus", "-cp", TEST_CLASS_PATH,
                StudyServer.class.getName(), "--port", "0", "--policy", "none").start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the server's main finished").isTrue();
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.exitValue()).as(stderr).isEqualTo(2);
        assertThat(stderr).endsWith("fairslice serve: fairslice.peer must be none or netflix-partitioned, got 'bogus'"
                + " (unknown peer)\n").doesNotContain("\tat ");
    }

    /**
     * `serve --prometheus`: a Prometheus that exits while the server runs is said at once, in one line on stderr with
     * its status and where its log is, and the server goes on serving (a load test may be running); the dashboard only
     * went stale without a word. A TERM then stops the launcher as before, leaving nothing running. The server and
     * Prometheus are real; Prometheus is killed as the OOM killer would.
     */
    @Test
    void shouldSayThatPrometheusExitedAndGoOnServing(@TempDir Path dir) throws Exception {
        onThePath("prometheus"); // fails, as the dashboards' tests do, without it: ./fairslice test installs it
        Sandbox sandbox = new Sandbox(dir);
        sandbox.runTheRealServer();
        int serverPort = freePort();
        String listen = "127.0.0.1:" + freePort();
        Path stderr = dir.resolve("launcher.stderr");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Process launcher = sandbox.start(stderr, Map.of("FAIRSLICE_JAVA_OPTS", SMALL_HEAP,
                "FAIRSLICE_PROMETHEUS_LISTEN", listen, "TMPDIR", tmp.toString()),
                "serve", "--prometheus", "--port", Integer.toString(serverPort), "--policy", "none");
        List<ProcessHandle> children = List.of();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (status("http://127.0.0.1:" + serverPort + "/metrics") != 200 && System.nanoTime() < deadline) {
                assertThat(launcher.isAlive()).as("launcher running: %s", Files.readString(stderr)).isTrue();
                Thread.sleep(200);
            }
            assertThat(status("http://127.0.0.1:" + serverPort + "/metrics")).as("the server answering within 60 s: %s",
                    Files.readString(stderr)).isEqualTo(200);
            children = launcher.descendants().toList();
            ProcessHandle prometheus = children.stream()
                    .filter(p -> p.info().command().orElse("").endsWith("/prometheus")).findFirst().orElseThrow();

            prometheus.destroyForcibly();

            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(stderr).contains("Prometheus exited") && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(Files.readAllLines(stderr)).as("the launcher's stderr").contains("fairslice: Prometheus exited"
                    + " with status 137 (SIGKILL); the server goes on serving, but the dashboard gets no new data."
                    + " Prometheus's log: its lines above on this standard error (ts=...). To start another:"
                    + " ./fairslice prometheus --target 127.0.0.1:" + serverPort + " --listen " + listen);
            assertThat(launcher.isAlive()).as("the launcher").isTrue();
            assertThat(status("http://127.0.0.1:" + serverPort + "/light")).as("the server serves").isEqualTo(200);

            new ProcessBuilder("kill", "-TERM", Long.toString(launcher.pid())).start().waitFor();

            assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("launcher finished").isTrue();
            assertThat(launcher.exitValue()).as(Files.readString(stderr)).isEqualTo(143);
            assertThat(children).as("processes the launcher started").allSatisfy(child ->
                    assertThat(child.isAlive()).as("%s alive after the launcher ended", child.info()).isFalse());
            try (Stream<Path> left = Files.list(tmp)) {
                assertThat(left).as("Prometheus's storage, deleted").isEmpty();
            }
        } finally {
            children.forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The HTTP status of a GET, -1 when nothing answers. */
    private static int status(String url) throws InterruptedException {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * A TERM ends `./fairslice prometheus` with 143, the status of a program the signal ended, and its Prometheus
     * with it (the launcher's EXIT trap): it exited 130, as for Ctrl-C. INT (130) cannot be sent here: a test run
     * in the background, as CI may run it, inherits INT ignored, and bash cannot trap a signal ignored as it starts.
     */
    @Test
    void shouldExitWith143WhenPrometheusIsTerminated() throws Exception {
        onThePath("prometheus"); // fails, as the dashboards' tests do, without it: ./fairslice test installs it
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Process launcher = new ProcessBuilder(LAUNCHER.toString(), "prometheus", "--listen", "127.0.0.1:" + port)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader stderr = new BufferedReader(new InputStreamReader(launcher.getErrorStream(),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = stderr.readLine()) != null && !line.contains("query it at")) {
                // Prometheus's own lines, if any
            }
            assertThat(line).as("Prometheus started").isNotNull();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!listening(port) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(listening(port)).as("Prometheus listening").isTrue();
            Thread.sleep(500); // the launcher's own readiness check, 0.2 s apart: then it waits for Prometheus

            new ProcessBuilder("kill", "-TERM", Long.toString(launcher.pid())).start().waitFor();

            assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("launcher finished").isTrue();
            assertThat(launcher.exitValue()).isEqualTo(143);
            assertThat(listening(port)).as("its Prometheus stopped").isFalse();
        } finally {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static final Path RR_TIMESLICE = Path.of("/proc/sys/kernel/sched_rr_timeslice_ms");
    private static final Path RT_RUNTIME = Path.of("/proc/sys/kernel/sched_rt_runtime_us");

    /**
     * The launcher's backstop for a study harness that dies without its shutdown hook (killed with SIGKILL, or out of
     * memory), and for Ctrl-C on the launcher: it stops what the harness started (its process group, where a
     * realtime server would go on holding a core) and puts back the machine's SCHED_RR quantum (100 ms) and
     * realtime throttle that the harness changed. The stand-in harness changes both for real (so this needs root, as
     * the study's round-robin configurations do), starts a stand-in server and waits; the test then kills the harness
     * or terminates the launcher. Whatever happens, the test puts both settings back as it found them.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"harness killed, 137", "launcher terminated, 143"})
    void shouldStopTheStudysProcessesAndRestoreTheRealtimeSettingsWhenTheHarnessCannot(String how, int exitCode,
                                                                                      @TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isWritable(RR_TIMESLICE) && Files.isWritable(RT_RUNTIME),
                "needs root: the realtime settings are written for real");
        String rrAtStart = kernelSetting(RR_TIMESLICE);
        String rtAtStart = kernelSetting(RT_RUNTIME);
        assumeTrue(rrAtStart.equals("100"), "the SCHED_RR quantum is 100 ms, as the launcher puts it back");
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), """
                #!/usr/bin/env bash
                echo 8 > %s
                echo -1 > %s
                sleep 600 &
                echo $! > server.pid
                echo $$ > harness.pid.new
                mv harness.pid.new harness.pid
                wait
                """.formatted(RR_TIMESLICE, RT_RUNTIME));
        Process launcher = sandbox.start("study", "--quick");
        try {
            // harness.pid appears whole (renamed into place), after server.pid: `echo > file` creates the file before
            // it writes, and the test once read it empty in between
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(dir.resolve("harness.pid")) && System.nanoTime() < deadline && launcher.isAlive()) {
                Thread.sleep(20);
            }
            assertThat(dir.resolve("harness.pid")).as("the stand-in harness started").exists();
            assertThat(kernelSetting(RR_TIMESLICE)).as("changed by the stand-in harness").isEqualTo("8");
            long harness = Long.parseLong(Files.readString(dir.resolve("harness.pid")).strip());
            long server = Long.parseLong(Files.readString(dir.resolve("server.pid")).strip());
            if (exitCode == 137) {
                new ProcessBuilder("kill", "-KILL", Long.toString(harness)).start().waitFor();
            } else {
                // TERM, which the launcher traps as it traps INT (Ctrl-C): a test run in the background, as CI may run
                // it, inherits INT ignored, and bash cannot trap a signal ignored as it starts
                new ProcessBuilder("kill", "-TERM", Long.toString(launcher.pid())).start().waitFor();
            }

            assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("launcher finished").isTrue();
            String stderr = new String(launcher.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(launcher.exitValue()).as(stderr).isEqualTo(exitCode);
            assertThat(stderr).contains("restored " + RR_TIMESLICE + " to 100")
                    .contains("restored " + RT_RUNTIME + " to " + rtAtStart);
            assertThat(kernelSetting(RR_TIMESLICE)).isEqualTo("100");
            assertThat(kernelSetting(RT_RUNTIME)).isEqualTo(rtAtStart);
            assertThat(ProcessHandle.of(server).filter(ProcessHandle::isAlive)).as("the stand-in server").isEmpty();
            assertThat(ProcessHandle.of(harness).filter(ProcessHandle::isAlive)).as("the stand-in harness").isEmpty();
        } finally {
            launcher.destroyForcibly();
            for (String pidFile : List.of("server.pid", "harness.pid")) {
                if (Files.exists(dir.resolve(pidFile))) {
                    ProcessHandle.of(Long.parseLong(Files.readString(dir.resolve(pidFile)).strip()))
                            .ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            Files.writeString(RR_TIMESLICE, rrAtStart);
            Files.writeString(RT_RUNTIME, rtAtStart);
        }
    }

    /**
     * A harness that put the SCHED_RR quantum back itself (to 100 ms, from a machine whose value at start was another)
     * leaves the launcher nothing to restore: it said it had restored it all the same. The test puts it back.
     */
    @Test
    void shouldNotSayItRestoredTheQuantumWhenTheHarnessHad(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isWritable(RR_TIMESLICE), "needs root: the quantum is written for real");
        // written before the launcher takes the study's lock: not under a study that is measuring
        assumeTrue(new ProcessBuilder("flock", "-n", "/run/fairslice-study.lock", "true").start().waitFor() == 0,
                "no study running on this machine");
        String rrAtStart = kernelSetting(RR_TIMESLICE);
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), """
                #!/usr/bin/env bash
                echo 8 > %1$s
                echo 100 > %1$s
                """.formatted(RR_TIMESLICE));
        try {
            Files.writeString(RR_TIMESLICE, "90");

            Result result = sandbox.run(Map.of(), "study", "--quick");

            assertThat(result.exitCode()).as(result.stderr()).isZero();
            assertThat(kernelSetting(RR_TIMESLICE)).isEqualTo("100");
            assertThat(result.stderr()).doesNotContain("restored");
        } finally {
            Files.writeString(RR_TIMESLICE, rrAtStart);
        }
    }

    /**
     * Bash reads a script as it runs it: a launcher edited in place while a study runs (a `git pull`, an editor) must
     * not go on at the old offset of the new text once the study ends (it reported a syntax error after a finished
     * run, or would run a command twice). The stand-in harness puts lines before the launcher's text, in place, as
     * an editor writing the file does, and ends.
     */
    @Test
    void shouldEndWithTheStudyWhenItsOwnScriptIsEditedWhileItRuns(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), """
                #!/usr/bin/env bash
                echo run >> harness.log
                edited="$(printf '# a line put before the launcher while it ran\\n%.0s' {1..20}; cat fairslice)"
                printf '%s\\n' "$edited" > fairslice
                """);

        Result result = sandbox.run(Map.of(), "study", "--plan");

        assertThat(result.stderr()).doesNotContain("syntax error").doesNotContain("command not found");
        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(Files.readAllLines(dir.resolve("harness.log"))).as("the harness ran once").hasSize(1);
        assertThat(Files.readString(dir.resolve("fairslice"))).as("the stand-in edited the launcher")
                .startsWith("# a line put before the launcher while it ran");
    }

    /**
     * A build or the tests from the checkout hold its study lock shared: a study that would measure does not start
     * under them (the harness's jars were being emptied and refilled), and says why; once they end, it runs.
     */
    @Test
    void shouldNotStartAStudyWhileABuildOrTheTestsFromItsCheckoutRun(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), """
                #!/usr/bin/env bash
                echo run >> harness.log
                """);
        Files.createDirectories(dir.resolve("target"));
        Process build = new ProcessBuilder("bash", "-c",
                "exec 9>>target/launcher-study.lock && flock -s 9 && exec sleep 60").directory(dir.toFile()).start();
        try {
            while (new ProcessBuilder("flock", "-n", dir.resolve("target/launcher-study.lock").toString(), "true")
                    .start().waitFor() == 0) {
                Thread.sleep(20);
            }
            Result refused = sandbox.run(Map.of(), "study", "--quick");

            assertThat(refused.exitCode()).as(refused.stderr()).isNotZero();
            assertThat(refused.stderr()).contains("another study, a build or the tests from this checkout are"
                    + " running (they hold " + dir.resolve("target/launcher-study.lock") + ")");
            assertThat(dir.resolve("harness.log")).doesNotExist();
        } finally {
            build.destroy();
            build.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(sandbox.run(Map.of(), "study", "--plan").exitCode()).isZero();
        assertThat(dir.resolve("harness.log")).exists();
    }

    /**
     * The harness gets the checkout's server as --server-classpath unless the command line names another, which
     * StudyMain refuses to be given twice: `study --server-classpath CP` passed the launcher's and then the user's.
     */
    @Test
    void shouldGiveTheHarnessOneServerClasspath(@TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), "#!/usr/bin/env bash\necho harness ran\n");

        Result result = sandbox.run(Map.of("FAIRSLICE_WEAVING", "off"), "study", "--server-classpath", "/opt/s.jar");

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        List<String> harness = sandbox.commands().stream()
                .filter(c -> c.contains("io.fairslice.experiments.harness.StudyMain")).findFirst().orElseThrow();
        assertThat(harness).containsOnlyOnce("--server-classpath").endsWith("--server-classpath", "/opt/s.jar");

        // without one, the launcher's
        assertThat(sandbox.run(Map.of("FAIRSLICE_WEAVING", "off"), "study").exitCode()).isZero();
        List<String> second = sandbox.commands().stream()
                .filter(c -> c.contains("io.fairslice.experiments.harness.StudyMain"))
                .reduce((first, last) -> last).orElseThrow();
        assertThat(second).containsOnlyOnce("--server-classpath").doesNotContain("/opt/s.jar");
    }

    /**
     * `study --plan` prints settings and `study --report DIR` reads a run's files: neither builds the study server nor
     * checks weaving (a --plan beside a running study rebuilt, after an edit, the jars that study's servers use).
     */
    @ParameterizedTest
    @ValueSource(strings = {"--plan", "--report"})
    void shouldBuildNeitherTheServerNorTheWeavingForAStudyThatMeasuresNothing(String option, @TempDir Path dir)
            throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        Sandbox.executable(dir.resolve("stand-in-harness"), "#!/usr/bin/env bash\necho harness ran\n");
        String[] args = option.equals("--report") ? new String[] {"study", option, dir.toString()}
                : new String[] {"study", option};

        Result result = sandbox.run(Map.of(), args);

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout()).contains("harness ran");
        assertThat(sandbox.builds()).as("builds").isNotEmpty().noneMatch(b -> b.contains("experiments/server"));
        List<String> harness = sandbox.commands().stream()
                .filter(c -> c.contains("io.fairslice.experiments.harness.StudyMain")).findFirst().orElseThrow();
        assertThat(harness).doesNotContain("--server-classpath", "--weaving-jvm-option").endsWith(
                Arrays.copyOfRange(args, 1, args.length));
        assertThat(harness).as("the code a run measures, for its settings: no git checkout here")
                .contains("-Dfairslice.source=unknown");
    }

    /**
     * An argument a command does not take, or an option without its value at the end, is refused before the build, as
     * the Java side would refuse it after (a mistyped --quick on a fresh clone built the project for minutes to be
     * told so; serve, install and probe built first until 2026-12-05). The options come from each usage text. So are
     * prometheus's, which has no Java side: `prometheus --metrics-path` alone scraped /metrics, and its refusals were
     * "fairslice: prometheus: ... (./fairslice prometheus --help)", without the usage the other commands give. An
     * option given an empty or blank value (an unset shell variable: {@code --out "$DIR"}) passed the check, and the
     * Java side refused it only after the build (study's "--out needs a value, got an empty one", serve's "--port must
     * be a whole number, got ''"; both Java sides now word it as the launcher does), or `serve --prometheus --port ''`
     * said it needs a fixed port. In {@code args}, {@code <empty>} stands for an empty argument and {@code <blank>} for
     * a blank one.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "study --server-jvm-option --add-opens=java.base/java.lang=ALL-UNNAMED --quik | unknown option '--quik'",
        "study --server-jvm-option --add-opens=java.base/java.lang=ALL-UNNAMED stray  | unknown option 'stray'",
        "study --server-jvm-option --add-opens=java.base/java.lang=ALL-UNNAMED --out  | --out needs a value",
        "study --quick --full]                                                        | unknown option '--full]'",
        "study --out --plan                                                           | --out needs a value",
        "serve --prot 8080                                                            | unknown option '--prot'",
        "serve --policy none --fairslice                                              | --fairslice needs a value",
        "serve --prometheus --port 8080 --address 127.0.0.1 --max-threads            | --max-threads needs a value",
        "serve --prometheus --port                                                    | --port needs a value",
        "serve --port 8080 --prometheus --address                                     | --address needs a value",
        "serve --policy                                                               | --policy needs a value",
        "serve --port --address 127.0.0.1                                             | --port needs a value",
        "install --catalina-base --weave com.acme..*                                  | --catalina-base needs a value",
        "install --catalina-base /opt/tomcat --wave com.acme..*                       | unknown option '--wave'",
        "install --weave com.acme..* --catalina-base                                  | --catalina-base needs a value",
        "install --catalina-base /opt/tomcat --uninstall --dist                       | --dist needs a value",
        "probe --pid 1 --colour                                                       | unknown option '--colour'",
        "probe --once --pid                                                           | --pid needs a value",
        "probe --pid 1 --count                                                        | --count needs a value",
        "probe --once                                                                 | --pid is required",
        "prometheus --target                                                          | --target needs a value",
        "prometheus --metrics-path --listen 127.0.0.1:9091                            | --metrics-path needs a value",
        "prometheus --listen 127.0.0.1:9091 --scrape-interval                         | --scrape-interval needs a"
                + " value",
        "prometheus --traget 127.0.0.1:8080                                           | unknown option '--traget'",
        "install --catalina-base /opt/tomcat --weave=com.acme..*                      | unknown option"
                + " '--weave=com.acme..*' (write --weave and its value apart)",
        // a flag: it was told to write --once and its value apart, and it takes none
        "probe --pid 1 --once=true                                                    | unknown option '--once=true'"
                + " (--once takes no value)",
        // the last one was taken without a word: serve listened on 9090, install installed into /b alone
        "serve --port 8080 --port 9090                                                | --port given twice, '8080'"
                + " and '9090'",
        "serve --policy none --prometheus --policy share                              | --policy given twice, 'none'"
                + " and 'share'",
        "study --out a --plan --out b                                                 | --out given twice, 'a' and"
                + " 'b'",
        "install --catalina-base /a --weave com.acme..* --catalina-base /b            | --catalina-base given twice,"
                + " '/a' and '/b'",
        "probe --pid 1 --once --pid 2                                                 | --pid given twice, '1' and"
                + " '2'",
        "prometheus --target 127.0.0.1:8080 --target 127.0.0.1:8081                   | --target given twice,"
                + " '127.0.0.1:8080' and '127.0.0.1:8081'",
        // an empty or blank value, except where the command's own check names it (below)
        "study --out <empty> --plan                                    | --out needs a value, got ''",
        "study --quick --config <blank>                                | --config needs a value, got ' '",
        "study --report <empty>                                        | --report needs a value, got ''",
        "study --resume <blank>                                        | --resume needs a value, got ' '",
        "study --server-classpath <empty> --plan                       | --server-classpath needs a value, got ''",
        "study --loadgen-classpath <empty>                             | --loadgen-classpath needs a value, got ''",
        "study --server-jvm-option <empty>                             | --server-jvm-option needs a value, got ''",
        "study --weaving-jvm-option -Xint --weaving-jvm-option <blank> | --weaving-jvm-option needs a value, got ' '",
        "serve --port <empty>                                          | --port needs a value, got ''",
        "serve --prometheus --port <empty>                             | --port needs a value, got ''",
        "serve --address <blank> --port 8080                           | --address needs a value, got ' '",
        "serve --max-threads <empty>                                   | --max-threads needs a value, got ''",
        "serve --document-size <empty>                                 | --document-size needs a value, got ''",
        "serve --policy <empty>                                        | --policy needs a value, got ''",
        "serve --fairslice class.heavy.share=10 --fairslice <empty>    | --fairslice needs a value, got ''",
        "probe --pid <empty> --once                                    | --pid needs a value, got ''",
        "probe --pid 1 --interval <blank>                              | --interval needs a value, got ' '",
        "probe --pid 1 --count <empty>                                 | --count needs a value, got ''",
        "probe --pid 1 --top <empty>                                   | --top needs a value, got ''"})
    void shouldRefuseAnArgumentACommandDoesNotTakeBeforeBuilding(String args, String message, @TempDir Path dir)
            throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        String[] argv = withEmptyValues(args);

        Result result = sandbox.run(Map.of(), argv);

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).startsWith("fairslice " + argv[0] + ": " + message + "\nusage: ")
                .contains("fairslice " + argv[0]);
        sandbox.assertNothingBuiltOrStarted();
    }

    /**
     * The commands whose own checks say what an empty value should have been keep their words: install's Java side
     * ("--metrics-ports needs at least one port such as 9404; got ''"), to which the launcher passes it on, and
     * prometheus's check, which answers before anything is built or started.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "install --catalina-base <empty>                   | cannot list the sources",
        "install --catalina-base d --metrics-ports <empty> | cannot list the sources",
        "install --catalina-base d --weave <blank>         | cannot list the sources",
        "prometheus --target <empty>                       | fairslice prometheus: --target must be HOST:PORT, got ''",
        "prometheus --scrape-interval <blank>              | fairslice prometheus: --scrape-interval must be a"
                + " Prometheus duration such as 5s, got ' '"})
    void shouldLeaveAnEmptyValueToACommandThatNamesItItself(String args, String message, @TempDir Path dir)
            throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of(), withEmptyValues(args));

        // install goes past the launcher's check to the build, which in this sandbox has no sources to list
        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).contains(message).doesNotContain("needs a value, got").doesNotContain("usage:");
    }

    /** {@code args} split at blanks, with {@code <empty>} as an empty argument and {@code <blank>} as a blank one. */
    private static String[] withEmptyValues(String args) {
        return Stream.of(args.split(" ")).map(arg -> arg.replace("<empty>", "").replace("<blank>", " "))
                .toArray(String[]::new);
    }

    /**
     * A value Prometheus cannot take is refused naming the option, or serve's environment variable, that gave it,
     * before any build: "fairslice: the Prometheus listen address must be on loopback ..." named neither, and serve
     * said it only after its build.
     */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "0.0.0.0:9 | prometheus --listen 0.0.0.0:9090 | --listen, Prometheus's listen address, must be on loopback (",
        "0.0.0.0:9 | prometheus --scrape-interval 20s | --scrape-interval must be between 1ms and 15s (the recording",
        "0.0.0.0:9 | prometheus --target nohost       | --target must be HOST:PORT,",
        "0.0.0.0:9 | serve --prometheus --port 8080   | FAIRSLICE_PROMETHEUS_LISTEN, Prometheus's listen address, must",
        "127.0.0.1:9 | serve --prometheus --port 8 --address a/b | the scrape target (--address, --port) must be"})
    void shouldRefuseAValuePrometheusCannotTakeNamingWhereItCameFrom(String listen, String args, String message,
                                                                     @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        String[] argv = args.split(" ");
        String value = args.contains("--address") ? "a/b:8" : argv[1].equals("--prometheus") ? listen : argv[2];

        Result result = sandbox.run(Map.of("FAIRSLICE_PROMETHEUS_LISTEN", listen), argv);

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).startsWith("fairslice " + argv[0] + ": " + message)
                .endsWith(", got '" + value + "'\n").hasLineCount(1);
        sandbox.assertNothingBuiltOrStarted();
    }

    /** Without Prometheus installed, serve --prometheus said so only after its build; and the prometheus command. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"serve --prometheus --port 8080", "prometheus --target 127.0.0.1:8080"})
    void shouldRefuseWithoutPrometheusInstalledBeforeTheBuild(String args, @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);
        String[] argv = args.split(" ");

        Result result = sandbox.run(Map.of("PATH", fewCommands(dir, 1000).toString()), argv);

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("fairslice " + argv[0] + ": prometheus is not installed; on Debian:"
                + " sudo apt-get install --no-install-recommends prometheus (then sudo systemctl disable --now"
                + " prometheus: fairslice runs its own)\n");
        assertThat(sandbox.builds()).as("builds").isEmpty();
    }

    /** Every option a usage text shows passes the launcher's check: each command's whole set at once. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "probe | --pid 1 --interval 1s --once --count 2 --top 3",
        "install | --catalina-base d --weave a --weave-calls --weave-jdbc --apps /a --no-metrics --metrics-ports 1"
                + " --catalina-home h --dist d --uninstall",
        // the options that add a value each time may be given again
        "install | --catalina-base d --weave a --weave b --apps /a --apps /b --metrics-ports 1 --metrics-ports 2"})
    void shouldPassEveryOptionTheUsageShows(String command, String args, @TempDir Path dir) throws Exception {
        Sandbox sandbox = new Sandbox(dir);

        Result result = sandbox.run(Map.of(), (command + " " + args).split(" "));

        // past the check: the launcher goes on to the build, which in this sandbox has no sources to list
        assertThat(result.stderr()).doesNotContain("unknown option").doesNotContain("needs a value")
                .doesNotContain("given twice").contains("cannot list the sources");
    }

    /** A /proc/sys file's value; read by line, as Files.readString reads only the first byte of one on JDK 17. */
    private static String kernelSetting(Path file) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file)) {
            return reader.readLine().strip();
        }
    }

    /**
     * A copy of the launcher in a folder of its own, where `./mvnw` logs its arguments and only puts the weaving
     * agent's jar where the launcher looks for it, and JAVA_HOME is a JDK whose java logs each command, runs the real
     * java for everything but the study server (a weaving scope check gets the class path of this test's middleware
     * and study app), and returns at once for the study server ({@link #runTheRealServer} runs the real one); for
     * the study harness it runs the sandbox's {@code stand-in-harness} script, which a test writes.
     */
    private static final class Sandbox {
        private final Path root;
        private final Path log;

        Sandbox(Path root) throws IOException, URISyntaxException {
            this.root = root;
            this.log = root.resolve("java-commands.log");
            Files.copy(LAUNCHER, root.resolve("fairslice"));
            // what the launcher's build stamp lists; empty here
            Files.writeString(root.resolve("pom.xml"), "");
            for (String module : List.of("experiments/server", "experiments/study-app", "experiments/harness",
                    "middleware/core", "kernel-probe", "loadgen")) {
                Files.createDirectories(root.resolve(module));
            }
            executable(root.resolve("mvnw"), """
                    #!/usr/bin/env bash
                    echo "$*" >> mvnw.log
                    mkdir -p experiments/server/target/agent && : > experiments/server/target/agent/aspectjweaver.jar
                    """);
            String classpath = codeSource(WeavingScope.class) + File.pathSeparator + codeSource(HeavyServlet.class);
            Path realJava = Path.of(System.getProperty("java.home"), "bin", "java");
            Files.createDirectories(root.resolve("jdk/bin"));
            executable(root.resolve("jdk/bin/java"), """
                    #!/usr/bin/env bash
                    printf '%%s\\n' "$@" '' >> '%s'
                    args=("$@")
                    for ((i = 0; i < ${#args[@]}; i++)); do
                      case "${args[i]}" in
                        -cp) args[i + 1]='%s'; classpath=$((i + 1)) ;;
                        io.fairslice.experiments.server.StudyServer)
                          [[ -f real-server ]] || exit 0
                          args[classpath]='%s' ;;
                        io.fairslice.experiments.harness.StudyMain) exec ./stand-in-harness ;;
                      esac
                    done
                    exec '%s' "${args[@]}"
                    """.formatted(log, classpath, TEST_CLASS_PATH, realJava));
        }

        Result run(Map<String, String> environment, String... args) throws IOException, InterruptedException {
            return run(root.resolve("fairslice"), root, environment, args);
        }

        /** Runs {@code launcher} (the sandbox's, a link to it or a copy) in {@code directory}. */
        Result run(Path launcher, Path directory, Map<String, String> environment, String... args)
                throws IOException, InterruptedException {
            Process process = start(launcher, directory, environment, args);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
            return new Result(process.exitValue(),
                    new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                    new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }

        /** Starts the sandbox's launcher with {@code args}; its output goes to pipes, its input is closed. */
        Process start(String... args) throws IOException {
            return start(root.resolve("fairslice"), root, Map.of(), args);
        }

        /** Starts the sandbox's launcher with {@code args}, its stderr to {@code stderr}, its stdout discarded. */
        Process start(Path stderr, Map<String, String> environment, String... args) throws IOException {
            Process process = builder(root.resolve("fairslice"), root, environment, args)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            return process;
        }

        private Process start(Path launcher, Path directory, Map<String, String> environment, String... args)
                throws IOException {
            Process process = builder(launcher, directory, environment, args).start();
            process.getOutputStream().close();
            return process;
        }

        private ProcessBuilder builder(Path launcher, Path directory, Map<String, String> environment,
                                       String... args) {
            List<String> command = Stream.concat(Stream.of(launcher.toString()), Stream.of(args)).toList();
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
            builder.environment().keySet().removeIf(name -> name.startsWith("FAIRSLICE_"));
            builder.environment().put("JAVA_HOME", root.resolve("jdk").toString());
            builder.environment().putAll(environment);
            return builder;
        }

        /**
         * From now on `serve` runs the real study server (this test's class path; exec'd, so that the launcher's
         * server pid is the JVM's), and Prometheus has the checkout's configuration and rules.
         */
        void runTheRealServer() throws IOException {
            Files.writeString(root.resolve("real-server"), "");
            Files.createDirectories(root.resolve("dashboards"));
            Files.createSymbolicLink(root.resolve("dashboards/prometheus"),
                    LAUNCHER.resolveSibling("dashboards/prometheus"));
        }

        /** Every java command the launcher ran, each as its arguments. */
        List<List<String>> commands() throws IOException {
            List<List<String>> commands = new ArrayList<>();
            if (!Files.exists(log)) {
                return commands;
            }
            for (String command : Files.readString(log).split("\n\n")) {
                if (!command.isBlank()) {
                    commands.add(Arrays.asList(command.strip().split("\n")));
                }
            }
            return commands;
        }

        /** The arguments of every ./mvnw run, one line each. */
        List<String> builds() throws IOException {
            Path builds = root.resolve("mvnw.log");
            return Files.exists(builds) ? Files.readAllLines(builds) : List.of();
        }

        /** What a launch that answered on its own leaves: no build, and no java started. */
        void assertNothingBuiltOrStarted() throws IOException {
            assertThat(builds()).as("builds").isEmpty();
            assertThat(commands()).as("java commands").isEmpty();
        }

        /** The arguments of the study server's java command, or none if it was not started. */
        List<String> serverCommand() throws IOException {
            return commands().stream().filter(c -> c.contains(StudyServer.class.getName())).findFirst()
                    .orElse(List.of());
        }

        private static void executable(Path file, String text) throws IOException {
            Files.writeString(file, text);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        private static Path codeSource(Class<?> type) throws URISyntaxException {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
    }
}
