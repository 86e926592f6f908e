package io.fairslice.probe;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads and writes /proc/sys files the way that works: Files.readAllBytes and RandomAccessFile.readLine both see
 * only the first byte of them on JDK 17 and 25 (they read in small steps and /proc/sys answers EOF after the first).
 */
public final class ProcSys {

    private ProcSys() {
    }

    public static String read(String path) throws IOException {
        try (FileChannel ch = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate(4096);
            ch.read(buf);
            buf.flip();
            return StandardCharsets.US_ASCII.decode(buf).toString().trim();
        }
    }

    public static void write(String path, String value) throws IOException {
        try (FileChannel ch = FileChannel.open(Path.of(path), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((value + "\n").getBytes(StandardCharsets.US_ASCII)));
        }
    }
}
