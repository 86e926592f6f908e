package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestCpuTest {

    private static final String TEXT = """
            # HELP fairslice_requests_cpu_seconds_total CPU time of the serving threads
            # TYPE fairslice_requests_cpu_seconds_total counter
            fairslice_requests_cpu_seconds_total{class="heavy",page="/heavy"} 2.5
            fairslice_requests_cpu_seconds_total{class="light",page="/light"} 7.25
            fairslice_requests_cpu_seconds_total{class="light",page="/light2"} 0.75
            fairslice_requests_cpu_seconds_total{class="light",page="/heavy"} 0.5
            fairslice_requests_cpu_seconds_count{class="light",page="/light"} 99.0
            fairslice_requests_seconds_count{class="light",page="/light"} 12.0
            jvm_gc_pause_seconds_sum{action="end of minor GC",cause="Allocation Failure"} 0.1
            """;

    @Test
    void shouldSumTheMeterByClassOverPages() {
        assertThat(RequestCpu.byClass(TEXT)).isEqualTo(Map.of("heavy", 2.5, "light", 8.5));
    }

    @Test
    void shouldSumTheMeterByPageOverClasses() {
        // a page classified light first and heavy later (the adaptive classifier) counts once, as itself
        assertThat(RequestCpu.byPage(TEXT)).isEqualTo(Map.of("/heavy", 3.0, "/light", 7.25, "/light2", 0.75));
    }

    @Test
    void shouldFindTheLabelWhereverItStands() {
        assertThat(RequestCpu.byClass("fairslice_requests_cpu_seconds_total{page=\"/a\",subclass=\"x\","
                + "class=\"c\"} 1e-3\n"))
                .isEqualTo(Map.of("c", 0.001));
    }

    @Test
    void shouldBeEmptyWithoutFairslicesMeter() {
        assertThat(RequestCpu.byClass("")).isEmpty();
        assertThat(RequestCpu.byPage("jvm_threads_live_threads 42.0\n")).isEmpty();
    }

    @Test
    void shouldRefuseASampleItCannotAttribute() {
        assertThatThrownBy(() -> RequestCpu.byClass("fairslice_requests_cpu_seconds_total{page=\"/a\"} 1.0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no class label in the /metrics line: "
                        + "fairslice_requests_cpu_seconds_total{page=\"/a\"} 1.0");
        assertThatThrownBy(() -> RequestCpu.byPage("fairslice_requests_cpu_seconds_total{page=\"/a\"} lots"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a number (lots) in the /metrics line");
    }
}
