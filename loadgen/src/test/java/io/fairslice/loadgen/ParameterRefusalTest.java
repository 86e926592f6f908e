package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A refused parameter, as a user meets it: the simulation's constructor throws, and Gatling reports "Run crashed" with
 * the exception twice (~50 lines of frames, and under Maven its ERROR block after them). The one line that says what is
 * wrong must be the first the run prints, and the run must still fail. Nothing is listening at the base URL: a refused
 * parameter sends no request.
 */
class ParameterRefusalTest {

    @TempDir
    Path dir;

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(OverloadStudy.class, "lightPath", "/catalog",
                        "lightPath is not a parameter; did you mean lightPaths? (without it, lightPaths keeps its "
                                + "default)"),
                Arguments.of(OverloadStudy.class, "lightPaths", "catalog",
                        "lightPaths must be paths starting with '/', separated by commas, got 'catalog'"),
                Arguments.of(OverloadStudy.class, "duration", "1d",
                        "duration must be a duration such as 500ms, 30s or 2m, got '1d'"),
                Arguments.of(OverloadSpike.class, "heavyRate", "12d",
                        "heavyRate must be a number such as 50 or 12.5, got '12d'"));
    }

    @ParameterizedTest(name = "{0} -D{1}={2}")
    @MethodSource("refusals")
    @Timeout(120)
    void shouldSayARefusedParameterInOneLineBeforeAnythingElseAndFail(Class<?> simulation, String name, String value,
                                                                     String message) throws Exception {
        SimulationRun run = SimulationRun.of(simulation, Map.of("baseUrl", "http://127.0.0.1:9", name, value,
                "warmUp", "0s"), dir);

        assertThat(run.status()).as(run.output()).isNotZero();
        // before Gatling's output; the JVM's own warnings may come first (JDK 24+: netty's native access)
        assertThat(run.output().lines().filter(line -> !line.isBlank() && !line.startsWith("WARNING: ")).findFirst())
                .as(run.output()).hasValue("fairslice loadgen: " + message);
    }
}
