package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcCpuTest {

    @Test
    void shouldCountUserAndSystemTimeAfterANameWithSpacesAndParentheses() {
        // proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String stat = "4242 (C2 Compiler) x) S 1 4242 4242 0 -1 4194368 10 0 0 0 1234 56 0 0 20 0 30 0";
        assertThat(ProcCpu.ticks(stat)).isEqualTo(1290);
    }

    @Test
    void shouldReadThisJvmsCompilerThreadsAsPartOfItsCpuTime() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        long pid = ProcessHandle.current().pid();
        // this JVM has started the test framework: its compilers have compiled something
        ProcCpu.CompilerThreads threads = new ProcCpu.CompilerThreads(pid);
        long compiler = threads.ticks();
        assertThat(compiler).isPositive().isLessThanOrEqualTo(ProcCpu.ticks(pid));
        // the second read goes to the compiler threads the first one found (HotSpot keeps one of each kind)
        assertThat(threads.ticks()).isPositive().isLessThanOrEqualTo(ProcCpu.ticks(pid));
        assertThatThrownBy(() -> new ProcCpu.CompilerThreads(Long.MAX_VALUE).ticks()).isInstanceOf(IOException.class);
    }

    @Test
    void shouldKeepTheTimeOfACompilerThreadThatEnded() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        // HotSpot stops idle compiler threads; a thread of this JVM with such a name stands in for one (HotSpot gives
        // a Java thread its name in /proc too, cut to 15 characters)
        Thread compiler = new Thread(() -> {
            long end = System.nanoTime() + 400_000_000L;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }, "C2 CompilerThread99");
        ProcCpu.CompilerThreads threads = new ProcCpu.CompilerThreads(ProcessHandle.current().pid());
        compiler.start();
        Thread.sleep(300);
        long whileItRuns = threads.ticks();
        compiler.join();
        long afterItEnded = threads.ticks();
        // the sum only grows: the ended thread's time stays in it, as last read (20 ticks or more by now)
        assertThat(afterItEnded).isGreaterThanOrEqualTo(whileItRuns);
        assertThat(threads.ticks()).isGreaterThanOrEqualTo(afterItEnded);
    }
}
