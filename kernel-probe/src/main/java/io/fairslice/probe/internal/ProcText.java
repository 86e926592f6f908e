package io.fairslice.probe.internal;

import java.nio.ByteBuffer;

/**
 * Allocation-free parsing of the text files under {@code /proc}: numbers are read straight from the bytes of a
 * buffer (absolute gets, positions untouched). Every method returns {@link #MISSING} rather than throwing when the
 * text does not have what was asked, so that a kernel that changed a file's format makes a value unsupported, not
 * a request fail.
 */
public final class ProcText {

    /** Returned when a field is absent or not a number. */
    public static final long MISSING = Long.MIN_VALUE;

    private ProcText() {
    }

    /**
     * The {@code index}-th (0-based) whitespace-separated unsigned integer field of {@code buf[0..length)}, such as
     * the three fields of {@code schedstat}; {@link #MISSING} if absent or not an integer.
     */
    public static long field(ByteBuffer buf, int length, int index) {
        int i = 0;
        int seen = 0;
        while (i < length) {
            while (i < length && isSpace(buf.get(i))) {
                i++;
            }
            if (i >= length) {
                return MISSING;
            }
            if (seen == index) {
                return parseUnsigned(buf, i, length);
            }
            while (i < length && !isSpace(buf.get(i))) {
                i++;
            }
            seen++;
        }
        return MISSING;
    }

    /**
     * In a {@code key value} file such as a cgroup's {@code cpu.stat}, the integer part of the value on the line that
     * starts with {@code key} (ASCII bytes) followed by spaces or a colon; {@link #MISSING} if no such line. Negative
     * values are accepted.
     */
    public static long keyed(ByteBuffer buf, int length, byte[] key) {
        return keyedFrom(buf, 0, length, key);
    }

    /**
     * As {@link #keyed}, in a file whose first line is a header and never read: {@code /proc/<tid>/sched}, whose
     * header is the thread's name, which the JVM copies from the Java thread's and may be anything
     * ({@code prio 1 (4242, #threads: 60)} read as a priority of 1). A cgroup v1 {@code cpu.stat} has no header: its
     * first line is {@code nr_periods}.
     */
    public static long keyedBelowHeader(ByteBuffer buf, int length, byte[] key) {
        int lineStart = 0;
        while (lineStart < length && buf.get(lineStart) != '\n') {
            lineStart++;
        }
        return keyedFrom(buf, lineStart + 1, length, key);
    }

    private static long keyedFrom(ByteBuffer buf, int lineStart, int length, byte[] key) {
        while (lineStart < length) {
            if (startsWith(buf, lineStart, length, key)) {
                int i = lineStart + key.length;
                if (i < length && (buf.get(i) == ' ' || buf.get(i) == ':' || buf.get(i) == '\t')) {
                    while (i < length && (buf.get(i) == ' ' || buf.get(i) == ':' || buf.get(i) == '\t')) {
                        i++;
                    }
                    return parseSigned(buf, i, length);
                }
            }
            while (lineStart < length && buf.get(lineStart) != '\n') {
                lineStart++;
            }
            lineStart++;
        }
        return MISSING;
    }

    /**
     * The value of {@code name=} on the line starting with {@code linePrefix}, such as {@code total=} on the
     * {@code some} line of {@code /proc/pressure/cpu}. With {@code scale} 100 the decimal {@code 7.24} reads as 724:
     * the number times {@code scale}, fractional digits beyond it dropped.
     */
    public static long namedOnLine(ByteBuffer buf, int length, byte[] linePrefix, byte[] name, int scale) {
        int lineStart = 0;
        while (lineStart < length) {
            int lineEnd = lineStart;
            while (lineEnd < length && buf.get(lineEnd) != '\n') {
                lineEnd++;
            }
            if (startsWith(buf, lineStart, lineEnd, linePrefix)) {
                for (int i = lineStart + linePrefix.length; i + name.length <= lineEnd; i++) {
                    if ((i == 0 || isSpace(buf.get(i - 1))) && startsWith(buf, i, lineEnd, name)) {
                        return parseDecimal(buf, i + name.length, lineEnd, scale);
                    }
                }
                return MISSING;
            }
            lineStart = lineEnd + 1;
        }
        return MISSING;
    }

    /** The decimal number starting at {@code from}, times {@code scale} (1, 10, 100, ...). */
    public static long parseDecimal(ByteBuffer buf, int from, int length, int scale) {
        long whole = parseUnsigned(buf, from, length);
        if (whole == MISSING) {
            return MISSING;
        }
        int i = from;
        while (i < length && isDigit(buf.get(i))) {
            i++;
        }
        long result = whole * scale;
        if (i < length && buf.get(i) == '.') {
            i++;
            for (int unit = scale / 10; unit > 0 && i < length && isDigit(buf.get(i)); unit /= 10, i++) {
                result += (buf.get(i) - '0') * (long) unit;
            }
        }
        return result;
    }

    static long parseSigned(ByteBuffer buf, int from, int length) {
        if (from < length && buf.get(from) == '-') {
            long v = parseUnsigned(buf, from + 1, length);
            return v == MISSING ? MISSING : -v;
        }
        return parseUnsigned(buf, from, length);
    }

    static long parseUnsigned(ByteBuffer buf, int from, int length) {
        if (from >= length || !isDigit(buf.get(from))) {
            return MISSING;
        }
        long v = 0;
        for (int i = from; i < length && isDigit(buf.get(i)); i++) {
            v = v * 10 + (buf.get(i) - '0');
        }
        return v;
    }

    private static boolean startsWith(ByteBuffer buf, int at, int limit, byte[] prefix) {
        if (at + prefix.length > limit) {
            return false;
        }
        for (int k = 0; k < prefix.length; k++) {
            if (buf.get(at + k) != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\n' || b == '\t' || b == '\r';
    }
}
