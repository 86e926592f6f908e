package io.fairslice.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SystemStatsTest {

    /**
     * A reading that lacks a cumulative value keeps the one read before (its counter fell to 0 and rose again with
     * the next reading); a value never read stays unsupported, and a gauge's value follows each reading.
     */
    @Test
    void shouldKeepACumulativeValueAReadingLacks() {
        long lacks = ThreadStats.UNSUPPORTED;
        SystemStats s = new SystemStats().setPressure(0.5, 1_000).setCgroup(10, 2, 300);
        s.setPressure(0.4, lacks).setCgroup(lacks, 3, lacks);

        assertThat(s.cpuPressureSomeTotalMicros()).isEqualTo(1_000);
        assertThat(s.cpuPressureSomeAvg10()).isEqualTo(0.4);
        assertThat(s.cgroupPeriods()).isEqualTo(10);
        assertThat(s.cgroupThrottledPeriods()).isEqualTo(3);
        assertThat(s.cgroupThrottledMicros()).isEqualTo(300);
        assertThat(new SystemStats().setCgroup(lacks, 1, 2).cgroupPeriods()).as("never read").isEqualTo(lacks);
        assertThat(s.copy().cgroupPeriods()).isEqualTo(10);
    }
}
