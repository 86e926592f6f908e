package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** An external program the tests run (promtool, prometheus, npm), found on the PATH. */
final class Tool {

    /** What to tell someone whose machine lacks a tool. */
    private static final String INSTALL_HINT = "the dashboards tests need Debian's prometheus package (prometheus, "
            + "promtool) and Node.js with npm: `./fairslice test` installs them as root, or run "
            + "`apt-get install prometheus nodejs npm`";

    private final Path executable;

    private Tool(Path executable) {
        this.executable = executable;
    }

    /** The named program from the PATH; fails the test (not skips it) when it is missing. */
    static Tool require(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return new Tool(candidate);
            }
        }
        return fail("'" + name + "' is not on the PATH: " + INSTALL_HINT);
    }

    Path executable() {
        return executable;
    }

    /**
     * Runs the tool in {@code dir} and returns its exit code and merged output; fails on timeout. The tool's
     * temporary files go to a folder of this run (its TMPDIR), removed after it: promtool's rule tests leave their
     * {@code test_storage*} folders behind when a run is cut short.
     */
    Result run(Path dir, long timeoutSeconds, String... args) {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(List.of(args));
        try {
            Path tmp = Files.createTempDirectory("fairslice-tool-");
            try {
                Path log = tmp.resolve("output.log");
                ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                builder.environment().put("TMPDIR", tmp.toString());
                Process process = builder.start();
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly); // npm's node, say
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    return fail(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s:\n"
                            + Files.readString(log, StandardCharsets.UTF_8));
                }
                return new Result(String.join(" ", command), process.exitValue(),
                        Files.readString(log, StandardCharsets.UTF_8));
            } finally {
                deleteTree(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    /** Best effort: a failure here must not hide the run's own result (a child still writing, say). */
    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not remove " + root + ": " + e);
        }
    }

    /** What a run gave. {@link #toString()} is the command and its output, for assertion messages. */
    record Result(String command, int exitCode, String output) {
        @Override
        public String toString() {
            return "`" + command + "` exited with " + exitCode + ":\n" + output;
        }
    }
}
