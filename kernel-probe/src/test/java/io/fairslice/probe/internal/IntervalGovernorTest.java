package io.fairslice.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IntervalGovernorTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void shouldKeepTheConfiguredIntervalWhileSamplesAreCheap() {
        IntervalGovernor g = new IntervalGovernor(SECOND, 60 * SECOND, 0.01);

        assertThat(g.onSample(2_000_000L)).isEqualTo(SECOND); // 2 ms per 1 s = 0.2 %
    }

    @Test
    void shouldLengthenTheIntervalToStayUnderOnePercentOfACpu() {
        IntervalGovernor g = new IntervalGovernor(SECOND, 60 * SECOND, 0.01);

        long next = g.onSample(20_000_000L); // 20 ms per sample would be 2 % at 1 s

        assertThat(20_000_000.0 / next).isLessThan(0.01);
        assertThat(next).isEqualTo(2_500_000_000L); // 20 ms / (1 % x 0.8 headroom)
    }

    @Test
    void shouldComeBackSlowlyWhenSamplesGetCheapAgainAndNeverExceedTheMaximum() {
        assertThat(new IntervalGovernor(SECOND, 3 * SECOND, 0.01).onSample(100_000_000L)).isEqualTo(3 * SECOND);

        IntervalGovernor g = new IntervalGovernor(SECOND, 60 * SECOND, 0.01);
        assertThat(g.onSample(100_000_000L)).isEqualTo(12_500_000_000L);
        long a = g.onSample(1_000_000L);
        long b = g.onSample(1_000_000L);
        assertThat(a).isLessThan(12_500_000_000L);
        assertThat(b).isLessThan(a);
        for (int i = 0; i < 50; i++) {
            g.onSample(1_000_000L);
        }
        assertThat(g.intervalNanos()).isEqualTo(SECOND);
    }

    @Test
    void shouldRejectNonsenseParameters() {
        assertThatThrownBy(() -> new IntervalGovernor(0, SECOND, 0.01)).hasMessageContaining("got 0");
        assertThatThrownBy(() -> new IntervalGovernor(SECOND, SECOND, 1.5)).hasMessageContaining("1.5");
    }
}
