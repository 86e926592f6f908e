package io.fairslice.tomcat.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Finds a Tomcat running from a {@code CATALINA_BASE}: a process whose command line holds
 * {@code -Dcatalina.base=DIR} (catalina.sh and the service wrappers pass it) for that directory. Read from Linux's
 * /proc; elsewhere nothing is found. An uninstall under a running Tomcat deleted the weaving agent its JVM still
 * reads: at its shutdown AspectJ logged SEVERE errors and left ajcore dump files in the Tomcat directory.
 */
final class RunningTomcat {

    private static final String BASE_OPTION = "-Dcatalina.base=";

    private RunningTomcat() {
    }

    /** The id of a process running Tomcat from {@code base}, if there is one and /proc says so. */
    static OptionalLong find(Path base, Path proc) {
        if (!Files.isDirectory(proc)) {
            return OptionalLong.empty();
        }
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : processes) {
                long pid = Long.parseLong(process.getFileName().toString());
                if (pid != self && runsFrom(process.resolve("cmdline"), base)) {
                    return OptionalLong.of(pid);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty(); // cannot tell: the uninstall goes on, as where there is no /proc
        }
        return OptionalLong.empty();
    }

    private static boolean runsFrom(Path cmdline, Path base) {
        String text;
        try {
            text = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return false; // it ended meanwhile, or is another user's
        }
        for (String arg : text.split("\0")) {
            if (arg.startsWith(BASE_OPTION)) {
                try {
                    return Files.isSameFile(Path.of(arg.substring(BASE_OPTION.length())), base);
                } catch (IOException | RuntimeException e) {
                    return false; // a directory that is gone, or not a path
                }
            }
        }
        return false;
    }
}
