package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a core's times from /proc/stat: the hypervisor's steal counts as time the server did not get. */
class ProcFsTest {

    // a 2-core VM's /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice
    private static final String PROC_STAT = """
            cpu  72100 0 2100 14900 3 0 1900 9400 0 0
            cpu0 36000 0 1000 7400 2 0 950 0 0 0
            cpu1 36100 0 1100 7500 1 0 950 9400 0 0
            intr 123456 0 9 0
            ctxt 987654
            """;

    @Test
    void shouldCountStealAsTaskTimeAndGiveItAlone() throws Exception {
        ProcFs.CoreTimes core1 = ProcFs.coreTimes(PROC_STAT, 1);

        assertThat(core1.task()).isEqualTo(36100 + 0 + 1100 + 9400);
        assertThat(core1.steal()).isEqualTo(9400);
        assertThat(core1.irq()).isEqualTo(950);
        assertThat(core1.idle()).isEqualTo(7500 + 1);
        assertThat(ProcFs.coreTimes(PROC_STAT, 0).steal()).isZero();
    }

    @Test
    void shouldNameTheMissingCore() {
        assertThatThrownBy(() -> ProcFs.coreTimes(PROC_STAT, 2)).hasMessageContaining("no line for cpu2");
    }

    /** Tick-based accounting charges an interrupt to the task it interrupted; CONFIG_IRQ_TIME_ACCOUNTING does not. */
    @Test
    void shouldReadHowTheKernelAccountsInterruptsFromItsConfiguration(@TempDir Path dir) throws Exception {
        Path gz = dir.resolve("config.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write("CONFIG_TICK_CPU_ACCOUNTING=y\n# CONFIG_IRQ_TIME_ACCOUNTING is not set\n".getBytes());
        }
        Path boot = Files.writeString(dir.resolve("config-6.8.0"), "CONFIG_TICK_CPU_ACCOUNTING=y\n"
                + "CONFIG_IRQ_TIME_ACCOUNTING=y\n");
        Path missing = dir.resolve("missing.gz");

        assertThat(ProcFs.interruptAccounting(List.of(gz, boot))).isEqualTo(ProcFs.InterruptAccounting.IN_TASK_TIME);
        assertThat(ProcFs.interruptAccounting(List.of(missing, boot))).isEqualTo(ProcFs.InterruptAccounting.APART);
        assertThat(ProcFs.interruptAccounting(List.of(missing))).isEqualTo(ProcFs.InterruptAccounting.UNKNOWN);
    }

    /** Where the harness pins the server and Gatling: the cores taskset or a cpuset left it, not always 0 and 1. */
    @Test
    void shouldListTheAllowedCoresInOrder() throws Exception {
        assertThat(ProcFs.allowedCores("Name:\tjava\nCpus_allowed:\tec\nCpus_allowed_list:\t5-7,2,3\n"))
                .containsExactly(2, 3, 5, 6, 7);
        assertThat(ProcFs.allowedCores("Cpus_allowed_list:\t0\n")).containsExactly(0);
        assertThatThrownBy(() -> ProcFs.allowedCores("Cpus_allowed_list:\t0-x\n"))
                .hasMessageContaining("not a CPU list (like 0-2,5):");
    }
}
