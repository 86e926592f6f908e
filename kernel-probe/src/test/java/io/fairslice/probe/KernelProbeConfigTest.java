package io.fairslice.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KernelProbeConfigTest {

    private static final List<String> CLASSES = List.of("light", "heavy");

    @Test
    void shouldDefaultToEnabledOneSecondAndNoActuators() {
        KernelProbeConfig c = KernelProbeConfig.fromSettings(Map.of(), CLASSES);

        assertThat(c).isEqualTo(KernelProbeConfig.ofDefaults());
        assertThat(c.enabled()).isTrue();
        assertThat(c.intervalNanos()).isEqualTo(1_000_000_000L);
        assertThat(c.hasActuators()).isFalse();
        assertThat(c.toString()).contains("interval=1s");
    }

    @Test
    void shouldParseActuatorsPerClassAndDurations() {
        KernelProbeConfig c = KernelProbeConfig.fromSettings(Map.of("nice.heavy", "10", "slice.heavy", "1ms",
                "slice.light", "0.5ms", "interval", "2s"), CLASSES);

        assertThat(c.nice()).containsExactly(Map.entry("heavy", 10));
        assertThat(c.sliceNanos()).containsEntry("heavy", 1_000_000L).containsEntry("light", 500_000L);
        assertThat(c.intervalNanos()).isEqualTo(2_000_000_000L);
        assertThat(KernelProbeConfig.from(c).build()).isEqualTo(c);
    }

    @Test
    void shouldNameKeyRuleAndValueInEveryRejection() {
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("nice.heavy", "ten"), CLASSES))
                .hasMessageContaining("kernel-probe.nice.heavy").hasMessageContaining("integer")
                .hasMessageContaining("'ten'");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("nice.heavy", "-21"), CLASSES))
                .hasMessageContaining("from -20 to 19").hasMessageContaining("-21");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("slice.heavy", "50us"), CLASSES))
                .hasMessageContaining("0.1ms to 100ms").hasMessageContaining("50us");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("interval", "10ms"), CLASSES))
                .hasMessageContaining("100ms to 60s").hasMessageContaining("10ms");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("interval", "1 fortnight"), CLASSES))
                .hasMessageContaining("unit");
        // too large for a duration: it has a unit, so the message must say the range; it said only "with a unit"
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("interval", "100000000h"), CLASSES))
                .hasMessage("kernel-probe.interval must be a duration with a unit (ns, us, ms, s, m, h) from 100ms to"
                        + " 60s, such as 1s, got '100000000h'");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("slice.heavy", "1e9h"), CLASSES))
                .hasMessageContaining("kernel-probe.slice.heavy must be a duration").hasMessageContaining(
                        "from 0.1ms to 100ms, such as 1s, got '1e9h'");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("enabled", "yes"), CLASSES))
                .hasMessageContaining("kernel-probe.enabled must be true or false, got 'yes'");
        assertThatThrownBy(() -> KernelProbeConfig.fromSettings(Map.of("nice.medium", "1"), CLASSES))
                .hasMessageContaining("'medium'").hasMessageContaining("[light, heavy]");
    }
}
