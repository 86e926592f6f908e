package io.fairslice.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    /**
     * JNA starts its cleaner thread as the first native memory is allocated, and the thread keeps the context class
     * loader of the thread that allocated: the probe is made on a web application's startup thread, so that was the
     * application's, held after its undeploy (Tomcat: "appears to have started a thread named [JNA Cleaner]"). In a
     * JVM of its own, where no cleaner thread ran before.
     */
    @Test
    void shouldNotLendTheApplicationsClassLoaderToJnasCleanerThread() throws Exception {
        assumeTrue(OS.LINUX.isCurrentOs(), "only the Linux probe runs here, and makes JNA allocate; elsewhere the "
                + "probe this test can make is the no-op one, which never starts JNA's cleaner");

        Map<String, String> r = ForkedJvm.keyValues(ForkedJvm.run(ForkedJvm.command(List.of(), JnaCleanerMain.class),
                60));

        assertThat(r).containsEntry("cleanerBefore", "false").containsEntry("platform", "linux")
                .containsEntry("restored", "true");
        assertThat(r.get("cleanerLoader")).as("the cleaner thread's context class loader").isNotEqualTo("no-thread")
                .isNotEqualTo("application");
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
