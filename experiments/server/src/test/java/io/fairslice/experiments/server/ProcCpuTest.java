package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        CountDownLatch burnt = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread compiler = new Thread(() -> {
            // 0.4 s of the thread's own CPU, not of wall time: beside other work a wall-time spin of 0.4 s got 8 ticks
            // of CPU (a 30 s bound keeps a machine that gives it none from hanging the test)
            var mx = ManagementFactory.getThreadMXBean();
            long until = mx.getCurrentThreadCpuTime() + 400_000_000L;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (mx.getCurrentThreadCpuTime() < until && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            burnt.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "C2 CompilerThread99");
        ProcCpu.CompilerThreads threads = new ProcCpu.CompilerThreads(ProcessHandle.current().pid());
        long before = threads.ticks();
        compiler.start();
        burnt.await();
        long whileItRuns = threads.ticks();
        assertThat(whileItRuns - before).as("its 0.4 s of CPU, read while it runs").isGreaterThanOrEqualTo(30);
        end.countDown();
        compiler.join();
        // the sum only grows: the ended thread's time stays in it, as last read
        assertThat(threads.ticks()).isGreaterThanOrEqualTo(whileItRuns);
    }

    /** The bookkeeping against a /proc tree of our own: threads end, ids pass to new threads, a read fails. */
    @Test
    void shouldCountEachCompilerThreadsTimeOnceWhateverHappensToItsId(@TempDir Path proc) throws Exception {
        ProcCpu.CompilerThreads threads = new ProcCpu.CompilerThreads(proc, 42);
        thread(proc, 1, "C1 CompilerThre", 100);
        thread(proc, 2, "C2 CompilerThre", 50);
        thread(proc, 3, "main", 1000);
        assertThat(threads.ticks()).isEqualTo(150);

        deleteThread(proc, 2); // stopped by HotSpot
        thread(proc, 1, "C1 CompilerThre", 120);
        assertThat(threads.ticks()).as("the ended one as last read").isEqualTo(170);

        thread(proc, 4, "C2 CompilerThre", 10); // a new one
        assertThat(threads.ticks()).isEqualTo(180);
        thread(proc, 4, "http-nio-exec-1", 5); // its id passed to a thread of another name
        assertThat(threads.ticks()).isEqualTo(180);
        deleteThread(proc, 1);
        thread(proc, 1, "C1 CompilerThre", 7); // its id passed to a new compiler thread: its count starts again
        assertThat(threads.ticks()).isEqualTo(100 + 20 + 50 + 10 + 7);

        Path task = proc.resolve("42/task");
        Files.move(task, proc.resolve("gone"));
        assertThatThrownBy(threads::ticks).isInstanceOf(IOException.class);
        Files.move(proc.resolve("gone"), task);
        assertThat(threads.ticks()).as("a failed read counted nothing").isEqualTo(187);
        Files.delete(task.resolve("1/stat")); // listed, but its stat file unread
        assertThat(threads.ticks()).as("counted as last read").isEqualTo(187);
    }

    private static void thread(Path proc, int tid, String name, long ticks) throws IOException {
        Path dir = Files.createDirectories(proc.resolve("42/task/" + tid));
        // proc(5): tid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        Files.writeString(dir.resolve("stat"), tid + " (" + name + ") S 1 42 42 0 -1 4194368 10 0 0 0 " + (ticks - 1)
                + " 1 0 0 20 0 30 0");
    }

    private static void deleteThread(Path proc, int tid) throws IOException {
        Path dir = proc.resolve("42/task/" + tid);
        Files.delete(dir.resolve("stat"));
        Files.delete(dir);
    }
}
