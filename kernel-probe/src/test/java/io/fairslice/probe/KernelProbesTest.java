package io.fairslice.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class KernelProbesTest {

    private final List<String> warnings = new ArrayList<>();

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldPickTheLinuxProbeOnLinuxWithoutWarnings() {
        KernelProbe probe = KernelProbes.create("Linux", Path.of("/proc"), warnings::add);

        assertThat(probe.platform()).isEqualTo("linux");
        assertThat(probe.isOperational()).isTrue();
        assertThat(warnings).isEmpty();
    }

    @Test
    void shouldGiveANoOpProbeAndOneWarningOnAnUnsupportedOs() {
        KernelProbe probe = KernelProbes.create("SunOS", Path.of("/proc"), warnings::add);

        assertThat(probe.isOperational()).isFalse();
        assertThat(probe.platform()).isEqualTo("none");
        assertThat(probe.readSystem(new SystemStats())).isFalse();
        assertThat(probe.openCurrentThread()).isNull();
        assertThat(probe.actuator().supportsNice()).isFalse();
        assertThat(warnings).singleElement().asString().contains("SunOS").contains("requests are unaffected");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldGiveANoOpProbeAndOneWarningWhenProcFilesAreMissing(@TempDir Path fakeProc) throws Exception {
        Files.createDirectories(fakeProc.resolve("self"));

        KernelProbe probe = KernelProbes.create("Linux", fakeProc, warnings::add);

        assertThat(probe.isOperational()).isFalse();
        assertThat(warnings).singleElement().asString().contains("self-check failed").contains("schedstat");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldGiveANoOpProbeWhenProcFilesDoNotParse(@TempDir Path fakeProc) throws Exception {
        long pid = ProcessHandle.current().pid();
        // any thread id: the probe reads the calling thread's own id and must find its files under the fake root
        KernelProbe real = KernelProbes.create("Linux", Path.of("/proc"), warnings::add);
        long tid = real.currentThreadId();
        Path task = fakeProc.resolve(pid + "/task/" + tid);
        Files.createDirectories(task);
        Files.writeString(task.resolve("schedstat"), "not numbers\n");
        Files.writeString(task.resolve("sched"), "garbage\n");

        KernelProbe probe = KernelProbes.create("Linux", fakeProc, warnings::add);

        assertThat(probe.isOperational()).isFalse();
        assertThat(warnings).last().asString().contains("cannot parse");
    }
}
