package io.fairslice.experiments.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A folder in the JVM's temporary folder that its owner deletes with all it holds: the study server's Tomcat base
 * ({@code fairslice-tomcat-*}, 2 MB once the catalogue is generated), and the temporary folder a process gives the
 * servers it starts ({@link #javaOption}). A server deletes its own base as it stops, on SIGTERM and Ctrl-C too, but
 * one killed with SIGKILL cannot: the process that started it deletes the folder it gave it once it has ended.
 */
public final class TemporaryFolder implements AutoCloseable {

    /** How many times {@link #close} walks a folder that is still there, and the pause between two walks. */
    static final int PASSES = 10;
    static final long PASS_PAUSE_MILLIS = 100;

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
     * shutdown for. Deleting it again, or from two threads at once (the harness's shutdown hook and its main thread
     * both close it as a run stops on SIGTERM), is harmless: an entry another deleter took first is passed over. A
     * folder still there after a pass (an entry written in it as the pass went, by a killed server not yet gone) gets
     * up to {@link #PASSES} passes, {@link #PASS_PAUSE_MILLIS} ms apart: once, a study stopped on SIGTERM left the
     * servers' folder in /tmp (StudyInterruptTest, on JDK 25; the cause was not seen).
     */
    @Override
    public void close() {
        for (int pass = 1; pass <= PASSES && Files.exists(path, LinkOption.NOFOLLOW_LINKS); pass++) {
            if (pass > 1) {
                try {
                    Thread.sleep(PASS_PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            deleteOnce();
        }
    }

    private void deleteOnce() {
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    file.toFile().delete();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE; // gone already: another deleter took it
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                    dir.toFile().delete();
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // not deleted as far as it could be: left, as said above
        }
    }
}
