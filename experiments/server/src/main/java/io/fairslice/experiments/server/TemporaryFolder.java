package io.fairslice.experiments.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A folder in the JVM's temporary folder that its owner deletes with all it holds: the study server's Tomcat base
 * ({@code fairslice-tomcat-*}, 2 MB once the catalogue is generated), and the temporary folder a process gives the
 * servers it starts ({@link #javaOption}). A server deletes its own base as it stops, on SIGTERM and Ctrl-C too, but
 * one killed with SIGKILL cannot: the process that started it deletes the folder it gave it once it has ended.
 */
public final class TemporaryFolder implements AutoCloseable {

    private final Path path;

    private TemporaryFolder(Path path) {
        this.path = path;
    }

    /** A new folder in {@code java.io.tmpdir}, named {@code prefix} and a random number. */
    public static TemporaryFolder create(String prefix) {
        try {
            return new TemporaryFolder(Files.createTempDirectory(prefix));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder " + prefix + "* in "
                    + System.getProperty("java.io.tmpdir"), e);
        }
    }

    public Path path() {
        return path;
    }

    /** The JVM option that makes this folder the temporary folder of a JVM this one starts. */
    public String javaOption() {
        return "-Djava.io.tmpdir=" + path;
    }

    /**
     * Deletes the folder and what it holds, as far as it can: a temporary folder left behind is not worth failing a
     * shutdown for. Deleting it again, or from two threads at once, is harmless.
     */
    @Override
    public void close() {
        try (Stream<Path> paths = Files.walk(path)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // gone already, or a file went while the walk listed its folder (another close): that one deletes it
        }
    }
}
