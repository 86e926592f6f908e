package io.fairslice.loadgen;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A simulation run by Gatling in a JVM of its own through {@link GatlingLauncher}, as the study harness runs it
 * (LoadGenerator): its exit status and everything it printed, stdout and stderr in the order written.
 */
record SimulationRun(int status, String output) {

    /** Runs {@code simulation} with {@code parameters} as system properties, its results under {@code dir}. */
    static SimulationRun of(Class<?> simulation, Map<String, String> parameters, Path dir) throws Exception {
        // surefire runs the tests from a manifest-only jar; this property holds the real class path
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
                "-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9"));
        new TreeMap<>(parameters).forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-cp", classpath, GatlingLauncher.class.getName(),
                "--simulation", simulation.getName(),
                "--results-folder", dir.resolve("results").toString(), "--no-reports"));
        Files.createDirectories(dir);
        Path log = Files.createTempFile(dir, "gatling", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("Gatling did not finish within 90 s:\n" + Files.readString(log));
        }
        return new SimulationRun(process.exitValue(), Files.readString(log, StandardCharsets.ISO_8859_1));
    }
}
