package io.fairslice.probe.windows;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.probe.Fixtures;
import io.fairslice.probe.ThreadStats;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** SYSTEM_PROCESS/THREAD_INFORMATION: JNA layout, parser offsets and documented x64 sizes agree. */
class NtLayoutTest {

    @Test
    void shouldLayOutThreadInformationAs80BytesOnX64() {
        SystemThreadInformation t = new SystemThreadInformation();

        assertThat(t.size()).isEqualTo(80).isEqualTo(NtLayout.THREAD_SIZE);
        assertThat(t.offsetOf("KernelTime")).isEqualTo(NtLayout.T_KERNEL_TIME);
        assertThat(t.offsetOf("UserTime")).isEqualTo(NtLayout.T_USER_TIME);
        assertThat(t.offsetOf("CreateTime")).isEqualTo(NtLayout.T_CREATE_TIME);
        assertThat(t.offsetOf("WaitTime")).isEqualTo(NtLayout.T_WAIT_TIME);
        assertThat(t.offsetOf("StartAddress")).as("pointer after a ULONG: 8-aligned")
                .isEqualTo(NtLayout.T_START_ADDRESS)
                .isEqualTo(32);
        assertThat(t.offsetOf("UniqueProcess")).isEqualTo(NtLayout.T_UNIQUE_PROCESS);
        assertThat(t.offsetOf("UniqueThread")).isEqualTo(NtLayout.T_UNIQUE_THREAD).isEqualTo(48);
        assertThat(t.offsetOf("Priority")).isEqualTo(NtLayout.T_PRIORITY);
        assertThat(t.offsetOf("BasePriority")).isEqualTo(NtLayout.T_BASE_PRIORITY);
        assertThat(t.offsetOf("ContextSwitches")).isEqualTo(NtLayout.T_CONTEXT_SWITCHES).isEqualTo(64);
        assertThat(t.offsetOf("ThreadState")).isEqualTo(NtLayout.T_THREAD_STATE);
        assertThat(t.offsetOf("WaitReason")).isEqualTo(NtLayout.T_WAIT_REASON).isEqualTo(72);
    }

    @Test
    void shouldLayOutProcessInformationAs256BytesOnX64() {
        SystemProcessInformation p = new SystemProcessInformation();

        assertThat(p.size()).isEqualTo(256).isEqualTo(NtLayout.PROCESS_SIZE);
        assertThat(p.offsetOf("NextEntryOffset")).isEqualTo(NtLayout.P_NEXT_ENTRY_OFFSET);
        assertThat(p.offsetOf("NumberOfThreads")).isEqualTo(NtLayout.P_NUMBER_OF_THREADS);
        assertThat(p.offsetOf("ImageNameLength")).isEqualTo(NtLayout.P_IMAGE_NAME_LENGTH);
        assertThat(p.offsetOf("ImageNameBuffer")).isEqualTo(NtLayout.P_IMAGE_NAME_BUFFER);
        assertThat(p.offsetOf("BasePriority")).isEqualTo(NtLayout.P_BASE_PRIORITY);
        assertThat(p.offsetOf("UniqueProcessId")).isEqualTo(NtLayout.P_UNIQUE_PROCESS_ID).isEqualTo(80);
        assertThat(p.offsetOf("OtherTransferCount")).isEqualTo(248);
    }

    @Test
    void shouldFindTheProcessAndItsThreadsInTheRecordedSnapshot() {
        ByteBuffer b = Fixtures.load("windows-system-process-information-x64.bin");
        int length = b.capacity();

        int proc = NtLayout.findProcess(b, length, 7777);
        assertThat(proc).isEqualTo(256 + 80);
        assertThat(NtLayout.findProcess(b, length, 4)).isZero();
        assertThat(NtLayout.findProcess(b, length, 12345)).isEqualTo(-1);
        assertThat(NtLayout.threadCount(b, proc)).isEqualTo(2);

        int t = NtLayout.findThread(b, length, proc, 7781);
        assertThat(t).isEqualTo(proc + 256 + 80);
        ThreadStats s = new ThreadStats();
        NtLayout.read(b, NtLayout.findThread(b, length, proc, 7780), 31_250_000L, s);
        assertThat(s.cpuTimeNanos()).isEqualTo(350_000_000L); // (1,000,000 + 2,500,000) x 100 ns
        assertThat(s.dispatches()).isEqualTo(1234);
        assertThat(s.sliceNanos()).isEqualTo(31_250_000L);
        assertThat(ThreadStats.isSupported(s.voluntarySwitches())).as("Windows does not split switches").isFalse();
        assertThat(NtLayout.threadState(b, t)).isEqualTo(NtLayout.STATE_WAITING);
        assertThat(NtLayout.waitReason(b, t)).isEqualTo(13);
        assertThat(NtLayout.priority(b, t)).isEqualTo(9);
    }

    @Test
    void shouldDeriveTheQuantumFromPrioritySeparationAndTheClockTick() {
        long tick = 15_625_000L;

        // PsChangeQuantumTable: background threads get entry 0 of PspVariableQuantums {6,12,18 | 12,24,36} or
        // PspFixedQuantums {18,18,18 | 36,36,36}, in thirds of a tick
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x02, tick, false)).isEqualTo(2 * tick); // client default
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x26, tick, false)).isEqualTo(2 * tick); // short, variable
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x18, tick, false)).isEqualTo(12 * tick); // long, fixed
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x02, tick, true)).isEqualTo(12 * tick); // server default
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x2A, tick, true)).as("short, fixed").isEqualTo(6 * tick);
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x28, tick, false)).as("short, fixed").isEqualTo(6 * tick);
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x16, tick, false)).as("long, variable").isEqualTo(4 * tick);
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x10, tick, false)).as("long, client's variable")
                .isEqualTo(4 * tick);
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x06, tick, true)).as("server's long, variable")
                .isEqualTo(4 * tick);
        assertThat(WindowsQuantum.backgroundQuantumNanos(0x20, tick, true)).as("short, server's fixed")
                .isEqualTo(6 * tick);
    }

    @Test
    void shouldLayOutTheVersionInformationAs284BytesWithTheProductTypeAt282() {
        OsVersionInfoEx v = new OsVersionInfoEx();

        assertThat(v.size()).isEqualTo(284).isEqualTo(OsVersionInfoEx.SIZE);
        assertThat(v.dwOSVersionInfoSize).as("told its size, RtlGetVersion fills the EX fields").isEqualTo(284);
        assertThat(v.offsetOf("szCSDVersion")).isEqualTo(20);
        assertThat(v.offsetOf("wServicePackMajor")).as("after WCHAR[128]").isEqualTo(276);
        assertThat(v.offsetOf("wSuiteMask")).isEqualTo(280);
        assertThat(v.offsetOf("wProductType")).isEqualTo(282);
    }

    @Test
    void shouldTakeDomainControllersAndServersForServerEditions() {
        assertThat(WindowsQuantum.serverEdition(1)).as("VER_NT_WORKSTATION").isFalse();
        assertThat(WindowsQuantum.serverEdition(2)).as("VER_NT_DOMAIN_CONTROLLER").isTrue();
        assertThat(WindowsQuantum.serverEdition(3)).as("VER_NT_SERVER").isTrue();
    }

    @Test
    void shouldPassTheSelfCheckOnlyWhenItsProcessAndThreadAreInTheSnapshot() {
        ByteBuffer b = Fixtures.load("windows-system-process-information-x64.bin");
        int length = b.capacity();

        assertThat(NtLayout.selfCheck(b, length, 7777, 7781)).isNull();
        assertThat(NtLayout.selfCheck(b, length, 7778, 7781)).contains("pid 7778").contains("not in");
        assertThat(NtLayout.selfCheck(b, length, 7777, 8)).contains("thread (8)").contains("2 threads");
        assertThat(NtLayout.selfCheck(b, 300, 7777, 7781)).as("truncated buffer").contains("not in");
    }
}
