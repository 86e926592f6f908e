package io.fairslice.probe;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Loads the constructed binary fixtures under src/test/resources/fixtures (see the README there). */
public final class Fixtures {

    private Fixtures() {
    }

    /** The fixture's bytes, little-endian like the answers they stand for. */
    public static ByteBuffer load(String name) {
        return ByteBuffer.wrap(bytes(name)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The fixture's bytes, for stand-ins of the system calls that write them into native memory. */
    public static byte[] bytes(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing fixture " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
