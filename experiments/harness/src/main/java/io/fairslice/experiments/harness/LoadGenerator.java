package io.fairslice.experiments.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Gatling in a JVM of its own, pinned away from the server, running the loadgen's OverloadStudy through
 * io.fairslice.loadgen.GatlingLauncher. Offline: gatling.conf turns analytics and warm-up off, and the version
 * check goes to a dead proxy (GUIDE section 6). With requireSuccess=false: a page the server served nothing of, shed
 * or failed, is the window's to count, not a failed run.
 */
final class LoadGenerator {

    /**
     * The options Gatling's JVM starts with after the study's (gatlingJvmOptions), with which StudyMain tries those
     * before the run.
     */
    static final List<String> OWN_JVM_OPTIONS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9",
            // a page that got no successful response would fail the run (the simulations' default, for users): a
            // point whose heavy requests are all shed is a result here, and each window's served, shed and failed
            // requests are counted from simulation.log; a non-zero status fails the configuration
            "-DrequireSuccess=false");

    private final Host host;
    private final String classpath;
    private final List<String> jvmOptions;

    LoadGenerator(Host host, String classpath, List<String> jvmOptions) {
        this.host = host;
        this.classpath = classpath;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /**
     * Runs OverloadStudy with the given parameters and returns its simulation.log.
     *
     * @param parameters the simulation's system properties (baseUrl, lightUsers, heavyUsers, warmUp, duration...)
     * @param total      how long the load lasts, to bound the wait
     */
    Path run(Map<String, String> parameters, Duration total, Path resultsDir, Path log, String description)
            throws IOException, InterruptedException {
        Files.createDirectories(resultsDir);
        List<String> command = new ArrayList<>(host.pin(host.loadCore()));
        command.add(StudyServerProcess.javaExecutable());
        command.addAll(jvmOptions);
        command.addAll(OWN_JVM_OPTIONS);
        parameters.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-cp", classpath, "io.fairslice.loadgen.GatlingLauncher",
                "--simulation", "io.fairslice.loadgen.OverloadStudy",
                "--results-folder", resultsDir.toAbsolutePath().toString(),
                "--no-reports", "--run-description", description));
        Process process = host.start(command, log);
        // Gatling's own start-up takes a few seconds; a heavy request under SCHED_RR can take several more
        long waitSeconds = total.toSeconds() + 120;
        if (!process.waitFor(waitSeconds, TimeUnit.SECONDS)) {
            host.stop(process, 2000);
            throw new IOException("Gatling did not finish within " + waitSeconds + " s; see " + log);
        }
        host.stop(process, 0);
        if (process.exitValue() != 0) {
            throw new IOException("Gatling exited with status " + process.exitValue() + "; its log " + log
                    + " ends with:\n"
                    + StudyServerProcess.tail(Files.readString(log, StandardCharsets.ISO_8859_1), 20));
        }
        try (Stream<Path> files = Files.walk(resultsDir)) {
            return files.filter(p -> p.getFileName().toString().equals("simulation.log"))
                    .max(Comparator.comparingLong(LoadGenerator::modified))
                    .orElseThrow(() -> new IOException("Gatling ended but wrote no simulation.log under "
                            + resultsDir));
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
