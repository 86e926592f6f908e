package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the harness's shutdown hook does on SIGTERM or Ctrl-C, run in this JVM: it stops the processes the run started
 * and puts the SCHED_RR quantum and the realtime throttle back, here two files standing in for /proc's (an rr-*
 * configuration would change the whole machine's quantum); and from then on the study's own thread, which goes on
 * while the hook runs, can neither start a process nor change a setting.
 */
class HostShutdownTest {

    @TempDir
    Path dir;

    @Test
    void shouldStopTheChildrenAndPutTheRealtimeSettingsBackOnShutdown() throws Exception {
        Path quantum = Files.writeString(dir.resolve("sched_rr_timeslice_ms"), "100\n");
        Path throttle = Files.writeString(dir.resolve("sched_rt_runtime_us"), "950000\n");
        try (Host host = new Host(quantum, throttle)) {
            host.setRrTimeslice(8);
            host.liftRealtimeThrottle();
            Process child = host.start(List.of("sleep", "60"), dir.resolve("logs/sleep.log"));
            assertThat(Files.readString(quantum).trim()).as("the quantum while an rr-8ms server runs").isEqualTo("8");
            assertThat(Files.readString(throttle).trim()).as("the throttle while it runs").isEqualTo("-1");

            host.shutdownHook.run(); // what the JVM runs on SIGTERM, here in the test's thread

            assertThat(child.isAlive()).as("the child after the hook").isFalse();
            assertThat(Files.readString(quantum).trim()).isEqualTo("100");
            assertThat(Files.readString(throttle).trim()).isEqualTo("950000");
        }
    }

    @Test
    void shouldStartNothingAndChangeNoSettingOnceStopping() throws Exception {
        Path quantum = Files.writeString(dir.resolve("sched_rr_timeslice_ms"), "100\n");
        Path throttle = Files.writeString(dir.resolve("sched_rt_runtime_us"), "950000\n");
        try (Host host = new Host(quantum, throttle)) {
            host.shutdownHook.run();

            assertThat(host.stopping()).isTrue();
            assertThatThrownBy(() -> host.setRrTimeslice(8)).isInstanceOf(InterruptedIOException.class)
                    .hasMessageContaining("the study is stopping");
            assertThatThrownBy(host::liftRealtimeThrottle).isInstanceOf(InterruptedIOException.class);
            Path marker = dir.resolve("started");
            assertThatThrownBy(() -> host.start(List.of("touch", marker.toString()), dir.resolve("logs/touch.log")))
                    .isInstanceOf(InterruptedIOException.class).hasMessageContaining("did not start touch");
            TimeUnit.MILLISECONDS.sleep(200); // time enough for a touch that did start
            assertThat(marker).as("a process started after the stop").doesNotExist();
            assertThat(Files.readString(quantum).trim()).isEqualTo("100");
            assertThat(Files.readString(throttle).trim()).isEqualTo("950000");
        }
    }
}
