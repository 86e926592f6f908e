package io.fairslice.experiments.harness;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes simulation.log records in Gatling 3.12+'s binary layout, for tests that need exact timings (the recorded
 * fixture checks the reader against Gatling itself). Latin-1 strings only.
 */
final class SimulationLogWriter {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);
    private final Map<String, Integer> cache = new HashMap<>();
    private final List<String> scenarios;

    SimulationLogWriter(long startEpochMillis, List<String> scenarios) throws IOException {
        this.scenarios = scenarios;
        out.writeByte(0);
        string("3.15.1");
        string("io.fairslice.loadgen.OverloadStudy");
        out.writeLong(startEpochMillis);
        string("");
        out.writeInt(scenarios.size());
        for (String s : scenarios) {
            string(s);
        }
        out.writeInt(0);
    }

    SimulationLogWriter request(String name, int start, int end, boolean ok, String message) throws IOException {
        out.writeByte(1);
        out.writeInt(0);
        cached(name);
        out.writeInt(start);
        out.writeInt(end);
        out.writeBoolean(ok);
        cached(message);
        return this;
    }

    SimulationLogWriter user(String scenario, boolean start, int time) throws IOException {
        out.writeByte(2);
        out.writeInt(scenarios.indexOf(scenario));
        out.writeBoolean(start);
        out.writeInt(time);
        return this;
    }

    SimulationLogWriter error(String message, int time) throws IOException {
        out.writeByte(4);
        cached(message);
        out.writeInt(time);
        return this;
    }

    byte[] bytes() throws IOException {
        out.flush();
        return bytes.toByteArray();
    }

    Path writeTo(Path file) throws IOException {
        Files.write(file, bytes());
        return file;
    }

    private void cached(String s) throws IOException {
        Integer index = cache.get(s);
        if (index != null) {
            out.writeInt(-index);
            return;
        }
        index = cache.size() + 1;
        cache.put(s, index);
        out.writeInt(index);
        string(s);
    }

    private void string(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        out.writeInt(b.length);
        if (b.length > 0) {
            out.write(b);
            out.writeByte(0);
        }
    }
}
