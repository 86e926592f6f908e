package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The overhead benchmark's statistics (the mean ratio and its 95 % confidence interval, Student's t) and its command
 * line (a wrong option is named in one line, not a stack trace).
 */
class OverheadCompareTest {

    @Test
    void shouldGiveTheMeanRatioWithAStudentTInterval() {
        // mean 1.0, standard deviation 0.02, n = 3: half width t(2) 4.303 * 0.02 / sqrt(3) = 0.0497
        assertThat(OverheadCompare.summary("share/none", new double[] {0.98, 1.00, 1.02}))
                .isEqualTo("share/none: mean 1.0000 (95 % CI 0.9503..1.0497), min 0.9800, max 1.0200, 3 rounds");
        assertThat(OverheadCompare.summary("same", new double[] {0.99, 0.99}))
                .isEqualTo("same: mean 0.9900 (95 % CI 0.9900..0.9900), min 0.9900, max 0.9900, 2 rounds");
    }

    @Test
    void shouldCountTheJitAsSettledOnlyBelowOnePercentAndNeverWhenUnknown() {
        assertThat(OverheadCompare.settled(0.004)).isTrue();
        assertThat(OverheadCompare.settled(0.01)).isFalse();
        assertThat(OverheadCompare.settled(0.065)).isFalse();
        assertThat(OverheadCompare.settled(Double.NaN)).as("no /proc: the warm-up runs to its maximum").isFalse();
    }

    @Test
    void shouldReadEveryOption() {
        OverheadCompare.Options o = OverheadCompare.Options.parse("--policy", "observe", "--rounds", "12", "--pairs",
                "2", "--warmup-ms", "0", "--warmup-max-ms", "5000", "--settle-ms", "500", "--window-ms", "2000",
                "--light", "10", "--rr", "--fairslice", "kernel-probe.enabled=false", "--jvm", "-Xmx1g",
                "--policy-jvm", "-javaagent:a.jar");
        assertThat(o).isEqualTo(new OverheadCompare.Options("observe", 12, 2, 0, 5000, 500, 2000, 10, true,
                List.of("--fairslice", "kernel-probe.enabled=false"), List.of("-Xmx1g"),
                List.of("-javaagent:a.jar")));
        assertThat(OverheadCompare.Options.parse()).isEqualTo(new OverheadCompare.Options("share", 3, 4, 20_000,
                120_000, 2_000, 10_000, 30, false, List.of(), List.of(), List.of()));
    }

    @Test
    void shouldNameTheWrongOption() {
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--round", "12"))
                .hasMessage("unknown option '--round'");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--policy", "fair"))
                .hasMessage("--policy must be one of [none, observe, sleep, share], got 'fair'");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--policy", "share", "--rounds"))
                .hasMessage("--rounds needs a value");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--rounds", "twelve"))
                .hasMessage("--rounds must be a whole number, got 'twelve'");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--rounds", "1"))
                .hasMessage("--rounds must be 2..30, got 1");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--window-ms", "0"))
                .hasMessage("--window-ms must be at least 1, got 0");
        assertThatThrownBy(() -> OverheadCompare.Options.parse("--warmup-ms", "30000", "--warmup-max-ms", "20000"))
                .hasMessage("--warmup-max-ms must be at least --warmup-ms (30000), got 20000");
    }
}
