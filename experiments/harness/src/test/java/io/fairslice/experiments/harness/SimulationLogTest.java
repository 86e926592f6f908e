package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulationLogTest {

    /**
     * Recorded with Gatling 3.15.1: OverloadStudy, 5 light users alternating /light and /light2, 2 heavy users,
     * 1 s warm-up + 3 s, against the study server. Gatling's console summary of that run said: light:/light 793,
     * light:/light2 790, heavy:/heavy 22, all OK.
     */
    static Path fixture() throws URISyntaxException {
        return Path.of(SimulationLogTest.class.getResource("simulation-gatling-3.15.1.log").toURI());
    }

    @TempDir
    Path dir;

    @Test
    void shouldReadTheHeaderOfARecordedLog() throws Exception {
        SimulationLog.Summary summary = SimulationLog.read(fixture(), new SimulationLog.Visitor() {
        });

        assertThat(summary.header().gatlingVersion()).isEqualTo("3.15.1");
        assertThat(summary.header().simulationClass()).isEqualTo("io.fairslice.loadgen.OverloadStudy");
        assertThat(summary.header().scenarios()).containsExactly("light", "heavy");
        assertThat(summary.header().startEpochMillis()).isGreaterThan(1_700_000_000_000L);
        assertThat(summary.truncated()).isFalse();
    }

    @Test
    void shouldCountTheRequestsGatlingReportedForTheRecordedRun() throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        List<SimulationLog.Request> requests = new ArrayList<>();
        SimulationLog.read(fixture(), new SimulationLog.Visitor() {
            @Override
            public void request(SimulationLog.Request request) {
                counts.merge(request.name(), 1, Integer::sum);
                requests.add(request);
            }
        });

        assertThat(counts).containsExactlyInAnyOrderEntriesOf(
                Map.of("light:/light", 793, "light:/light2", 790, "heavy:/heavy", 22));
        assertThat(requests).allSatisfy(r -> {
            assertThat(r.ok()).isTrue();
            assertThat(r.groups()).isEmpty();
            assertThat(r.latencyMillis()).isBetween(0, 5_000);
            assertThat(r.endMillis()).isBetween(0, 10_000);
        });
    }

    @Test
    void shouldReportUserStartsAndEndsByScenario() throws Exception {
        Map<String, Integer> starts = new TreeMap<>();
        Map<String, Integer> ends = new TreeMap<>();
        SimulationLog.read(fixture(), new SimulationLog.Visitor() {
            @Override
            public void user(String scenario, boolean start, int timeMillis) {
                (start ? starts : ends).merge(scenario, 1, Integer::sum);
            }
        });

        assertThat(starts).isEqualTo(Map.of("light", 5, "heavy", 2));
        assertThat(ends).isEqualTo(starts);
    }

    @Test
    void shouldResolveCachedStringsAndErrorRecords() throws Exception {
        Path log = new SimulationLogWriter(1_000L, List.of("light"))
                .user("light", true, 0)
                .request("light:/light", 10, 20, true, "")
                .request("light:/light", 30, 45, false, "status.find.in([200, 209], 304), found 503")
                .error("status.find.in([200, 209], 304), found 503", 45)
                .writeTo(dir.resolve("simulation.log"));
        List<SimulationLog.Request> requests = new ArrayList<>();
        List<String> errors = new ArrayList<>();

        SimulationLog.read(log, new SimulationLog.Visitor() {
            @Override
            public void request(SimulationLog.Request request) {
                requests.add(request);
            }

            @Override
            public void error(String message, int timeMillis) {
                errors.add(message + "@" + timeMillis);
            }
        });

        assertThat(requests).extracting(SimulationLog.Request::name).containsExactly("light:/light", "light:/light");
        assertThat(requests.get(1).ok()).isFalse();
        assertThat(requests.get(1).message()).endsWith("found 503");
        assertThat(errors).containsExactly("status.find.in([200, 209], 304), found 503@45");
    }

    @Test
    void shouldReadATruncatedLogUpToItsLastWholeRecord() throws Exception {
        byte[] whole = new SimulationLogWriter(1_000L, List.of("light"))
                .request("light:/light", 10, 20, true, "")
                .request("light:/light", 30, 45, true, "")
                .bytes();
        Path log = Files.write(dir.resolve("cut.log"), Arrays.copyOf(whole, whole.length - 3));
        List<SimulationLog.Request> requests = new ArrayList<>();

        SimulationLog.Summary summary = SimulationLog.read(log, new SimulationLog.Visitor() {
            @Override
            public void request(SimulationLog.Request request) {
                requests.add(request);
            }
        });

        assertThat(summary.truncated()).isTrue();
        assertThat(requests).hasSize(1);
    }

    @Test
    void shouldRejectAFileThatIsNotABinarySimulationLog() throws IOException {
        Path text = Files.writeString(dir.resolve("old.log"), "RUN\tio.Foo\tfoo\t1500000000000\t \t2.0\n");

        assertThatThrownBy(() -> SimulationLog.read(text, new SimulationLog.Visitor() {
        })).isInstanceOf(IOException.class).hasMessageContaining("malformed simulation.log at byte 0");
    }

    @Test
    void shouldRejectAnEmptyFile() throws IOException {
        Path empty = Files.write(dir.resolve("empty.log"), new byte[0]);

        assertThatThrownBy(() -> SimulationLog.read(empty, new SimulationLog.Visitor() {
        })).isInstanceOf(IOException.class).hasMessageContaining("no run record");
    }
}
