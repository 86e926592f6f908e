package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {

    private final StudyConfig config = StudyConfig.quick();
    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final Progress progress = new Progress(config, new PrintStream(console, true, StandardCharsets.UTF_8));
    private final double planned = Progress.plannedSeconds(config);
    private final double perConfiguration = planned / config.configurations().size();

    @Test
    void shouldTakeOffWhatIsLeftOfAConfigurationThatFailsPartWay() {
        String failing = config.configurations().get(0).id();
        progress.warmedUp(failing);
        progress.pointDone(failing);

        progress.skipConfiguration(failing);

        // what it ran was taken off as it ran; the skip takes off the rest, not its whole plan a second time
        assertThat(progress.plannedRemaining()).isCloseTo(planned - perConfiguration, within(1e-9));
    }

    @Test
    void shouldTakeOffTheWholePlanOfAConfigurationThatNeverRan() {
        progress.skipConfiguration(config.configurations().get(1).id());

        assertThat(progress.plannedRemaining()).isCloseTo(planned - perConfiguration, within(1e-9));
    }

    @Test
    void shouldNotGiveBackTimeWhenAConfigurationRanLongerThanPlanned() {
        String rerun = config.configurations().get(0).id();
        progress.warmedUp(rerun);
        for (int point = 0; point < 100; point++) { // re-runs of disturbed windows add points
            progress.pointDone(rerun);
        }
        double before = progress.plannedRemaining();

        progress.skipConfiguration(rerun);

        assertThat(progress.plannedRemaining()).isEqualTo(before);
    }
}
