package io.fairslice.probe;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts a JVM on this test's class path, optionally behind a prefix command such as {@code taskset -c 1}. */
public final class ForkedJvm {

    private ForkedJvm() {
    }

    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /** The command line: prefix, java, native access, class path, main class, arguments. */
    public static List<String> command(List<String> prefix, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(javaBinary());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(classPath().replace(File.pathSeparator + File.pathSeparator, File.pathSeparator));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs to completion (bounded); returns its output, failing with the output when the exit code is not 0. */
    public static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("forked-jvm", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("timed out after " + timeoutSeconds + " s: " + command + "\n"
                        + Files.readString(out, StandardCharsets.UTF_8));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new AssertionError("exit " + p.exitValue() + ": " + command + "\n" + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** {@code key=value} lines of an output. */
    public static Map<String, String> keyValues(String output) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.contains(" ")) {
                map.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        return map;
    }

    /** True if {@code command} runs and exits 0 within a few seconds. */
    public static boolean works(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
