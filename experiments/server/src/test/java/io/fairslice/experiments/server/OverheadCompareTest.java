package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The overhead benchmark's statistics: the mean ratio and its 95 % confidence interval (Student's t). */
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
}
