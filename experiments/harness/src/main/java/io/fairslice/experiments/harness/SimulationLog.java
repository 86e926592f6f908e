package io.fairslice.experiments.harness;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Gatling's binary {@code simulation.log} (Gatling 3.12 and later; checked against 3.15.1). There is no
 * stats.json any more, so this is where per-request numbers come from.
 *
 * <p>The format, big-endian: one type byte per record. 0 run (strings version, simulation class; long start epoch
 * ms; string description; int n + n scenario names; int n + n length-prefixed assertion blobs), 1 request (int n +
 * n cached group names; cached name; int start and int end in ms since the run start; boolean ok; cached message),
 * 2 user (int scenario index; boolean start; int time), 3 group (groups; int start, end, cumulated time; boolean
 * ok), 4 error (cached message; int time). A string is an int byte length, then (when not 0) the bytes and a coder
 * byte (0 Latin-1, 1 UTF-16 in the writer's native order). A cached string is an int index: positive, the string
 * follows and takes that index; negative, it repeats the string of that index.
 */
public final class SimulationLog {

    private static final byte RUN = 0;
    private static final byte REQUEST = 1;
    private static final byte USER = 2;
    private static final byte GROUP = 3;
    private static final byte ERROR = 4;

    /** The run record: what ran, and the epoch millisecond every other time is relative to. */
    public record Header(String gatlingVersion, String simulationClass, long startEpochMillis, String description,
                         List<String> scenarios) {
    }

    /** One request as Gatling saw it; times in milliseconds since the run start (Gatling's resolution). */
    public record Request(List<String> groups, String name, int startMillis, int endMillis, boolean ok,
                          String message) {
        public int latencyMillis() {
            return endMillis - startMillis;
        }
    }

    /** Receives the records after the header, in file order. */
    public interface Visitor {
        default void header(Header header) {
        }

        default void request(Request request) {
        }

        default void user(String scenario, boolean start, int timeMillis) {
        }

        default void error(String message, int timeMillis) {
        }
    }

    /** What a read found besides the records. */
    public record Summary(Header header, long records, boolean truncated) {
    }

    private final DataInputStream in;
    private final Path source;
    private final Map<Integer, String> cache = new HashMap<>();
    private long offset;

    private SimulationLog(InputStream in, Path source) {
        this.in = new DataInputStream(new BufferedInputStream(in, 1 << 16));
        this.source = source;
    }

    /**
     * Reads a whole log. A log cut short inside its last record (Gatling killed mid-write) is read up to that
     * record and reported as truncated; anything else malformed is an error naming the file and the byte offset.
     */
    public static Summary read(Path file, Visitor visitor) throws IOException {
        try (InputStream stream = Files.newInputStream(file)) {
            return new SimulationLog(stream, file).readAll(visitor);
        }
    }

    private Summary readAll(Visitor visitor) throws IOException {
        Header header = null;
        long records = 0;
        while (true) {
            long recordStart = offset;
            int type = in.read();
            if (type < 0) {
                return new Summary(requireHeader(header), records, false);
            }
            offset++;
            try {
                if (header == null && type != RUN) {
                    throw malformed(recordStart, "the first record must be the run record (type 0), found type "
                            + type);
                }
                switch (type) {
                    case RUN -> {
                        header = readHeader();
                        visitor.header(header);
                    }
                    case REQUEST -> visitor.request(new Request(readGroups(), readCachedString(), readInt(), readInt(),
                            readBoolean(), readCachedString()));
                    case USER -> {
                        int scenario = readInt();
                        boolean start = readBoolean();
                        int time = readInt();
                        List<String> scenarios = header.scenarios();
                        if (scenario < 0 || scenario >= scenarios.size()) {
                            throw malformed(recordStart, "user record names scenario " + scenario + " of "
                                    + scenarios.size());
                        }
                        visitor.user(scenarios.get(scenario), start, time);
                    }
                    case GROUP -> {
                        readGroups();
                        readInt();
                        readInt();
                        readInt();
                        readBoolean();
                    }
                    case ERROR -> {
                        String message = readCachedString();
                        visitor.error(message, readInt());
                    }
                    default -> throw malformed(recordStart, "unknown record type " + type);
                }
            } catch (EOFException e) {
                return new Summary(requireHeader(header), records, true);
            }
            records++;
        }
    }

    private Header requireHeader(Header header) throws IOException {
        if (header == null) {
            throw new IOException(source + " is empty or has no run record: not a Gatling 3.12+ simulation.log");
        }
        return header;
    }

    private Header readHeader() throws IOException {
        String version = readString();
        String simulation = readString();
        long start = readLong();
        String description = readString();
        int scenarioCount = readCount("scenario count");
        List<String> scenarios = new ArrayList<>(scenarioCount);
        for (int i = 0; i < scenarioCount; i++) {
            scenarios.add(readString());
        }
        int assertions = readCount("assertion count");
        for (int i = 0; i < assertions; i++) {
            skip(readCount("assertion length"));
        }
        return new Header(version, simulation, start, description, List.copyOf(scenarios));
    }

    private List<String> readGroups() throws IOException {
        int count = readCount("group count");
        if (count == 0) {
            return List.of();
        }
        List<String> groups = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            groups.add(readCachedString());
        }
        return List.copyOf(groups);
    }

    private String readCachedString() throws IOException {
        long at = offset;
        int index = readInt();
        if (index > 0) {
            String value = readString();
            cache.put(index, value);
            return value;
        }
        String cached = cache.get(-index);
        if (cached == null) {
            throw malformed(at, "cached string " + (-index) + " was never defined");
        }
        return cached;
    }

    private String readString() throws IOException {
        int length = readCount("string length");
        if (length == 0) {
            return "";
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        offset += length;
        int coder = in.readUnsignedByte();
        offset++;
        Charset charset = switch (coder) {
            case 0 -> StandardCharsets.ISO_8859_1;
            // Gatling copies String's internal UTF-16 bytes, which are in the writing machine's byte order
            case 1 -> ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? StandardCharsets.UTF_16LE
                    : StandardCharsets.UTF_16BE;
            default -> throw malformed(offset - 1, "unknown string coder " + coder);
        };
        return new String(bytes, charset);
    }

    private int readCount(String what) throws IOException {
        long at = offset;
        int value = readInt();
        if (value < 0 || value > 64 * 1024 * 1024) {
            throw malformed(at, what + " " + value + " is out of range");
        }
        return value;
    }

    private int readInt() throws IOException {
        int value = in.readInt();
        offset += 4;
        return value;
    }

    private long readLong() throws IOException {
        long value = in.readLong();
        offset += 8;
        return value;
    }

    private boolean readBoolean() throws IOException {
        int value = in.readUnsignedByte();
        offset++;
        return value != 0;
    }

    private void skip(int bytes) throws IOException {
        in.readFully(new byte[bytes]);
        offset += bytes;
    }

    private IOException malformed(long at, String what) {
        return new IOException(source + ": malformed simulation.log at byte " + at + ": " + what);
    }
}
