package io.fairslice.probe.linux;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/** Native memory that {@code pread} fills and a {@link ByteBuffer} view that the parsers read: one per reader. */
public final class NativeBuffer {

    final Memory memory;
    final long address;
    final ByteBuffer bytes;

    public NativeBuffer(int size) {
        memory = new Memory(size);
        address = Pointer.nativeValue(memory);
        bytes = memory.getByteBuffer(0, size);
    }

    int capacity() {
        return bytes.capacity();
    }

    /** The bytes the last read filled. */
    public ByteBuffer bytes() {
        return bytes;
    }
}
