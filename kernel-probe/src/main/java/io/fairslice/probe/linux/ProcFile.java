package io.fairslice.probe.linux;

import com.sun.jna.LastErrorException;
import java.io.IOException;

/**
 * A {@code /proc} file kept open and re-read from offset 0 with {@code pread}: one system call per reading, no
 * allocation, and unlike a {@link java.nio.channels.FileChannel} it is not closed when the reading thread is
 * interrupted (a worker thread's interrupt must not break the probe). Reads from several threads are safe as long
 * as each passes its own buffer.
 */
final class ProcFile implements AutoCloseable {

    private final String path;
    private volatile int fd;

    private ProcFile(String path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    static ProcFile open(String path) throws IOException {
        try {
            return new ProcFile(path, LinuxLibC.open(path, LinuxLibC.O_RDONLY | LinuxLibC.O_CLOEXEC));
        } catch (LastErrorException e) {
            throw new IOException("open " + path + " failed: " + e.getMessage(), e);
        }
    }

    /** Reads the whole file into {@code buf}; the length read, or -1 if the file is gone or the read failed. */
    int read(NativeBuffer buf) {
        int f = fd;
        if (f < 0) {
            return -1;
        }
        try {
            // A read shorter than asked is the end: /proc's files (seq files, /proc/sys) fill the buffer up to it.
            // Reading on to a read of 0 bytes took a second pread at every reading of a 30-byte schedstat.
            long total = 0;
            while (total < buf.capacity()) {
                long asked = buf.capacity() - total;
                long n = LinuxLibC.pread(f, buf.address + total, asked, total);
                if (n <= 0) {
                    break;
                }
                total += n;
                if (n < asked) {
                    break;
                }
            }
            return (int) total;
        } catch (LastErrorException e) {
            return -1; // ESRCH: the thread exited
        }
    }

    /** Reads the whole file of {@code path} once (for files not worth keeping open, and for /proc/sys). */
    static int readOnce(String path, NativeBuffer buf) {
        try (ProcFile f = open(path)) {
            return f.read(buf);
        } catch (IOException e) {
            return -1;
        }
    }

    String path() {
        return path;
    }

    @Override
    public void close() {
        int f = fd;
        fd = -1;
        if (f >= 0) {
            LinuxLibC.close(f);
        }
    }
}
