package io.fairslice.probe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.probe.ForkedJvm;
import io.fairslice.probe.linux.LinuxKernelProbe;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class ProbeTopTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return runOver(Path.of("/proc"), args);
    }

    /** Runs the tool over {@code proc}, a fake /proc tree or the real one. */
    private int runOver(Path proc, String... args) {
        return ProbeTop.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), proc);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldShowABusyAndASleepyThreadOfAnotherJvm() throws Exception {
        Process child = startChild();
        try {

            int code = run("--pid", String.valueOf(child.pid()), "--count", "2", "--interval", "500ms");

            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(text).doesNotContain("\033[").contains("pid " + child.pid());
            assertThat(text.split("\\R")).filteredOn(l -> l.contains("TID") && l.contains("EFF.SLICE")).hasSize(2);
            String[] busy = lastRow(text, "probe-busy");
            String[] sleepy = lastRow(text, "probe-sleepy");
            // TID NAME POLICY NICE SLICE EFF.SLICE CPU% RQWAIT/s RQWAIT/dsp VOL/s INVOL/s
            assertThat(busy[2]).isEqualTo("OTHER");
            assertThat(busy[3]).isEqualTo("0");
            assertThat(busy[4]).endsWith("ms");
            // a shared machine: compare the two threads rather than trust absolute shares
            assertThat(Double.parseDouble(busy[6])).as("busy thread CPU%%: %s", text).isGreaterThan(5.0)
                    .isGreaterThan(2 * Double.parseDouble(sleepy[6]));
            assertThat(Double.parseDouble(sleepy[9])).as("sleepy thread voluntary switches/s: %s", text)
                    .isGreaterThan(50.0);
            assertThat(Double.parseDouble(busy[9])).as("busy thread voluntary switches/s")
                    .isLessThan(Double.parseDouble(sleepy[9]));
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * `./fairslice probe --help` is answered by the launcher, without a build or a JVM (LauncherTest, in
     * experiments/server): with this usage. A copy of the launcher alone, with no ./mvnw beside it to build with.
     */
    @Test
    void shouldBeWhatTheLauncherAnswersToProbeHelp(@TempDir Path checkout) throws Exception {
        Path launcher = Files.copy(Path.of(System.getProperty("user.dir")).resolve("../fairslice").normalize(),
                checkout.resolve("fairslice"));
        Process process = new ProcessBuilder(launcher.toString(), "probe", "--help").directory(checkout.toFile())
                .start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.exitValue()).as(stderr).isZero();
        assertThat(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .as("the launcher's probe_usage in ./fairslice").isEqualTo(ProbeTop.USAGE);
    }

    /** --help is answered with the usage, which lists it as the other commands' usages list theirs. */
    @Test
    void shouldAnswerHelpWithAUsageThatListsIt() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(ProbeTop.USAGE).contains("\n  --help ");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /**
     * The last one was taken without a word: --pid 1234 --pid 5678 showed 5678 (--once with --count:
     * {@link #shouldRefuseOnceWithCount}).
     */
    @Test
    void shouldRefuseAnOptionGivenTwice() {
        assertThat(run("--pid", "1", "--once", "--pid", "2")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("fairslice probe: --pid given twice, '1' and '2'" + System.lineSeparator() + ProbeTop.USAGE);
        for (List<String> given : List.of(List.of("--interval", "2s", "3s"), List.of("--count", "2", "3"),
                List.of("--top", "2", "3"))) {
            err.reset();
            String option = given.get(0);
            assertThat(run("--pid", "1", option, given.get(1), option, given.get(2))).as(option).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains(option + " given twice, '" + given.get(1) + "' and '" + given.get(2) + "'");
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).as("no table").isEmpty();
    }

    @Test
    void shouldTakeIntervalsAtBothEndsOfTheirRange() {
        assertThat(ProbeTop.Options.parse(new String[] {"--pid", "1", "--interval", "100ms"}).intervalNanos)
                .isEqualTo(ProbeTop.MIN_INTERVAL_NANOS);
        assertThat(ProbeTop.Options.parse(new String[] {"--pid", "1", "--interval", "1h"}).intervalNanos)
                .isEqualTo(ProbeTop.MAX_INTERVAL_NANOS).isEqualTo(Duration.ofHours(1).toNanos());
    }

    /** Errors begin `fairslice probe: `, as the other commands' do (`fairslice serve: ...`); they began `probe: `. */
    @Test
    void shouldExplainBadArgumentsWithExitCode2() {
        assertThat(run("--count", "1")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("fairslice probe: --pid is required" + System.lineSeparator() + ProbeTop.USAGE);
        err.reset();
        assertThat(run("--pid", "1", "--interval", "10ms")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interval must be from 100ms to 1h, got 10ms");
        err.reset();
        assertThat(run("--pid", "1", "--interval", "61m")).as("a table a day would look like a hang").isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interval must be from 100ms to 1h, got 61m");
        err.reset();
        assertThat(run("--pid", "1", "--interval", "100000000000h")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--interval must be a duration with a unit (ns, us,"
                + " ms, s, m, h) from 100ms to 1h, such as 1s, got '100000000000h'");
        err.reset();
        assertThat(run("--pid", "x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--pid must be a positive integer, got 'x'");
        err.reset();
        assertThat(run("--pid", "1", "--colour")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option '--colour'");
        err.reset();
        assertThat(run("--pid", "1", "--count", "4294967296")).as("2^32 tables would wrap to 0").isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--count must be a positive integer up to 2147483647, got '4294967296'");
        err.reset();
        assertThat(run("--pid", "1", "--top", "2147483648")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--top must be a positive integer up to 2147483647, got '2147483648'");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldSayWhenThereIsNoSuchProcess() {
        assertThat(run("--pid", "2147483646", "--once")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no process with pid 2147483646");
    }

    /**
     * {@code --once} and {@code --count K} are alternatives: given both, the last one won without a word
     * ({@code --once --count 50} printed 50 tables). A pid that is no process's: refused before it is looked up.
     */
    @Test
    void shouldRefuseOnceWithCount() {
        assertThat(run("--pid", "2147483646", "--once", "--count", "50")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("fairslice probe: --once and --count are"
                + " alternatives (one table, or K): give one, got --once and --count 50" + System.lineSeparator()
                + ProbeTop.USAGE);
        err.reset();
        assertThat(run("--pid", "2147483646", "--count", "3", "--once")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("got --once and --count 3");
    }

    /**
     * A thread's id has a /proc folder too, whose task folder lists its process's threads: given as --pid (a TID from
     * a table), it showed the whole process under a header that named the thread as the process
     * ({@code pid 4242 (http-nio-8080-)}).
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldNameTheProcessOfAThreadIdGivenAsPid() throws Exception {
        long pid = ProcessHandle.current().pid();
        long tid;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            tid = tasks.mapToLong(t -> Long.parseLong(t.getFileName().toString())).filter(t -> t != pid).findFirst()
                    .orElseThrow();
        }
        assertThat(run("--pid", String.valueOf(tid), "--once")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("fairslice probe: " + tid + " is a thread of"
                + " process " + pid + ", not a process: give --pid " + pid + " (the TID column of its table names"
                + " threads)" + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /**
     * A thread whose name the kernel cut inside a character of several bytes (Java's names are UTF-8, comm keeps 15
     * bytes: a thread named {@code http-nio-8080-a-umlaut...} keeps the first byte of the umlaut) has a status that is
     * not valid UTF-8: read as UTF-8 it failed, and the thread's id was shown as the process.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldNameTheProcessOfAThreadWhoseNameWasCutInsideACharacter(@TempDir Path proc) throws Exception {
        Path thread = Files.createDirectories(proc.resolve("2147483001/task/2147483001")).getParent().getParent();
        Files.write(thread.resolve("status"), "Name:\thttp-nio-8080-\u00c3\nUmask:\t0022\nTgid:\t2147483000\n"
                .getBytes(StandardCharsets.ISO_8859_1)); // 0xc3: the first byte of the UTF-8 a-umlaut

        assertThat(runOver(proc, "--pid", "2147483001", "--once")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("fairslice probe: 2147483001 is a thread of process"
                + " 2147483000, not a process: give --pid 2147483000");
    }

    /**
     * A process hidden by /proc's hidepid (another user's) reads as one that is not there (hidepid=2), or as a folder
     * whose contents are refused (hidepid=1): the message names the mount option and what to do; on a /proc that hides
     * nothing it says only that there is no such process.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldNameHidepidWhenTheProcessMayBeHidden(@TempDir Path proc) throws Exception {
        Files.writeString(proc.resolve("mounts"), "sysfs /sys sysfs rw 0 0\nproc " + proc
                + " proc rw,nosuid,nodev,noexec,relatime,hidepid=invisible 0 0\n");
        assertThat(runOver(proc, "--pid", "2147483000", "--once")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("fairslice probe: no process with pid 2147483000"
                + " (nothing at " + proc.resolve("2147483000") + "), or one hidden from this user: " + proc
                + " is mounted with hidepid=invisible, which hides other users' processes; run it as root, as the"
                + " process's user or in the mount's gid= group");

        err.reset();
        Files.writeString(proc.resolve("mounts"), "proc " + proc + " proc rw,hidepid=1,gid=42 0 0\n");
        Files.createDirectories(proc.resolve("2147483000"));
        assertThat(runOver(proc, "--pid", "2147483000", "--once")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("fairslice probe: cannot read process 2147483000 ("
                + proc.resolve("2147483000/task") + " refuses this user): " + proc + " is mounted with hidepid=1,");
        Files.delete(proc.resolve("2147483000"));

        err.reset();
        Files.writeString(proc.resolve("mounts"), "proc " + proc + " proc rw,nosuid,hidepid=0 0 0\n"
                + "proc /elsewhere proc rw,hidepid=2 0 0\n");
        assertThat(runOver(proc, "--pid", "2147483000", "--once")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no process with pid 2147483000")
                .doesNotContain("hidepid");
    }

    /**
     * A process whose threads all refuse to be opened (another user's, on a /proc mounted with hidepid) fails rather
     * than print empty tables: a /proc tree holding this JVM (the probe's self-check reads it) and a process whose
     * one thread has no scheduler statistics.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldFailWhenNoThreadOfTheProcessCanBeRead(@TempDir Path proc) throws Exception {
        long self = ProcessHandle.current().pid();
        Files.createSymbolicLink(proc.resolve(String.valueOf(self)), Path.of("/proc", String.valueOf(self)));
        Path hidden = Files.createDirectories(proc.resolve("2147483000/task/2147483001"));
        Files.writeString(hidden.resolve("comm"), "hidden\n");

        int code = runOver(proc, "--pid", "2147483000", "--once", "--interval", "100ms");

        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("fairslice probe: cannot read the scheduler statistics of any thread of process 2147483000 (")
                .contains("2147483001/schedstat");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /**
     * A process some of whose threads cannot be opened while others can (another user's threads among its own): they
     * were left out without a word, and the header counted the rows as the process's threads. The header counts every
     * thread and those left out, and one warning says why. The process is a /proc tree of this test's thread and a
     * thread without scheduler statistics.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldCountAndSayTheThreadsItCannotRead(@TempDir Path proc) throws Exception {
        LinuxKernelProbe probe = processOfThisThread(proc);
        String tid = String.valueOf(probe.currentThreadId());
        probe.close();
        Files.writeString(Files.createDirectories(proc.resolve("2147483000/task/2147483001")).resolve("comm"),
                "hidden\n");

        int code = runOver(proc, "--pid", "2147483000", "--count", "2", "--interval", "100ms");

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(text.split("\\R")).filteredOn(l -> l.startsWith("fairslice probe  pid 2147483000")).hasSize(2)
                .allMatch(l -> l.contains("  2 threads, 1 unreadable (left out)  interval 100ms"), text);
        assertThat(text).containsPattern("(?m)^\\s*" + tid + " ");
        assertThat(err.toString(StandardCharsets.UTF_8)).containsOnlyOnce("fairslice probe: 1 of the 2 threads of"
                + " process 2147483000 cannot be read (").contains("2147483001/schedstat");
    }

    /**
     * A thread that ends between the listing of task/ and the opening of its files (a pool's churn) is gone, not
     * unreadable: it was counted as "1 unreadable" and named on stderr as if permissions hid it. A task/ entry that
     * is a link to nothing stands for it: listed, and gone when its files are opened.
     */
    @Test
    void shouldCountAThreadThatEndedSinceTheListingAsGoneNotUnreadable(@TempDir Path proc) throws Exception {
        LinuxKernelProbe probe = processOfThisThread(proc);
        probe.close();
        Files.createSymbolicLink(Files.createDirectories(proc.resolve("2147483000/task")).resolve("2147483001"),
                proc.resolve("ended-thread"));

        int code = runOver(proc, "--pid", "2147483000", "--count", "2", "--interval", "100ms");

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(text.split("\\R")).filteredOn(l -> l.startsWith("fairslice probe  pid 2147483000")).hasSize(2)
                .allMatch(l -> l.contains("  1 threads  interval 100ms"), text);
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("cannot be read");
    }

    /**
     * On JDK 22 to 24 System.console() is not null when the output is redirected, and the live view wrote its
     * screen-clearing codes into the file: Console.isTerminal() (JDK 22+) decides where it exists. Neither JDK here
     * (17, 25) has a console with the output redirected, so stand-ins for Console show it: one of JDK 22+ with
     * isTerminal(), and one of JDK 17 to 21 without.
     */
    @Test
    void shouldRedrawOnlyOnAConsoleThatIsATerminal() {
        assertThat(ProbeTop.isTerminal(null, Console.class)).as("no console").isFalse();
        assertThat(ProbeTop.isTerminal(new NewConsole(false), NewConsole.class)).as("JDK 22-24, redirected").isFalse();
        assertThat(ProbeTop.isTerminal(new NewConsole(true), NewConsole.class)).as("JDK 22+, a terminal").isTrue();
        assertThat(ProbeTop.isTerminal(new Object(), Object.class)).as("JDK 17-21: only a terminal has one").isTrue();
    }

    /** A stand-in for JDK 22's java.io.Console. */
    public static final class NewConsole {
        private final boolean terminal;

        NewConsole(boolean terminal) {
            this.terminal = terminal;
        }

        public boolean isTerminal() {
            return terminal;
        }
    }

    /**
     * A thread of the watched process ends: the table forgets it, its name too (a server's threads come and go for
     * days under a live view). The process is a /proc tree whose one thread is this test's.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldForgetAThreadThatEndedNameAndAll(@TempDir Path proc) throws Exception {
        LinuxKernelProbe probe = processOfThisThread(proc);
        String tid = String.valueOf(probe.currentThreadId());
        Path task = proc.resolve("2147483000/task/" + tid);
        ProbeTop.Top top = new ProbeTop.Top(probe, 2147483000L, proc.resolve("2147483000"));
        try {
            top.sample();
            assertThat(top.names).containsOnlyKeys(Long.parseLong(tid));
            Files.delete(task); // the thread ended

            top.sample();

            assertThat(top.handles).isEmpty();
            assertThat(top.names).isEmpty();
        } finally {
            top.close();
            probe.close();
        }
    }

    /**
     * A thread of the watched process ends and a new one takes its id within one interval: the files kept open are
     * the ended thread's and read nothing from then on (ESRCH), so the table opens the id's files again rather than
     * lose its row for good. The process is a /proc tree whose one thread is first a thread of this test that then
     * ends, then this test's own thread under the same id.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldReopenAThreadIdThatANewThreadTookWithinAnInterval(@TempDir Path proc) throws Exception {
        String self = String.valueOf(ProcessHandle.current().pid());
        Files.createSymbolicLink(proc.resolve(self), Path.of("/proc", self));
        LinuxKernelProbe probe = LinuxKernelProbe.create(proc);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        long[] endedTid = new long[1];
        Thread ending = new Thread(() -> {
            endedTid[0] = probe.currentThreadId();
            started.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "probe-ending");
        ending.start();
        started.await();
        Path task = Files.createSymbolicLink(Files.createDirectories(proc.resolve("2147483000/task"))
                .resolve("2147483001"), Path.of("/proc", self, "task", String.valueOf(endedTid[0])));
        ProbeTop.Top top = new ProbeTop.Top(probe, 2147483000L, proc.resolve("2147483000"));
        try {
            top.sample();
            assertThat(top.handles).containsOnlyKeys(2147483001L);
            end.countDown();
            ending.join();
            Path gone = Path.of("/proc", self, "task", String.valueOf(endedTid[0]));
            // the OS thread ends just after the Java one, which on a loaded machine may be a while
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Files.exists(gone) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(gone).as("the ended thread's task directory").doesNotExist();
            Files.delete(task);
            Files.createSymbolicLink(task, Path.of("/proc", self, "task", String.valueOf(probe.currentThreadId())));

            top.sample(); // the kept files answer ESRCH
            top.sample(); // the id's files opened again: a first reading
            List<ProbeTop.Row> rows = top.sample();

            assertThat(rows).extracting(r -> r.tid).as("rows").containsExactly(2147483001L);
        } finally {
            end.countDown();
            top.close();
            probe.close();
        }
    }

    /**
     * A process that has exited but that its parent has not reaped yet (a zombie) keeps its /proc folder, and was shown
     * as alive, a row of 0 % CPU in every table: a live view of it never ended, and --count succeeded. A shell that
     * starts a child and then becomes a {@code sleep}, which never waits for it, makes one.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldSayThatAProcessItsParentHasNotReapedHasExited() throws Exception {
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.3 & echo $!; exec sleep 30").start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(parent.getInputStream(),
                    StandardCharsets.UTF_8));
            String zombie = lines.readLine().trim();
            Path status = Path.of("/proc", zombie, "status");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(status).contains("State:\tZ") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(Files.readString(status)).as("the child, exited and not reaped").contains("State:\tZ");

            assertThat(run("--pid", zombie, "--count", "2", "--interval", "100ms")).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("fairslice probe: process " + zombie
                    + " has exited (a zombie its parent has not reaped yet)" + System.lineSeparator());
            assertThat(out.toString(StandardCharsets.UTF_8)).as("no table").isEmpty();
        } finally {
            parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A script that asked for --count tables and got fewer (the process ended) must not read success. */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldFailWhenTheProcessEndsBeforeTheTablesAskedFor() throws Exception {
        Process child = startChild();
        try {
            Thread ender = new Thread(() -> {
                try {
                    Thread.sleep(700);
                    child.getOutputStream().close(); // the child exits
                } catch (Exception e) {
                    child.destroy();
                }
            });
            ender.start();

            int code = run("--pid", String.valueOf(child.pid()), "--count", "50", "--interval", "200ms");

            ender.join();
            assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("fairslice probe: process "
                    + child.pid() + " has exited after ").contains(" of 50 tables");
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * An output that takes no more tables (a pipe whose reader ended, {@code | head -20}; a full disk) ends the tool:
     * the JVM ignores SIGPIPE and a PrintStream keeps its write errors to itself, so it printed every table asked for
     * into nothing, and a live view ran on as long as its process, the pipeline waiting for it. This JVM is watched.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldStopAtTheFirstTableItsOutputRefuses() {
        OutputStream closedPipe = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        };

        int code = ProbeTop.run(new String[] {"--pid", String.valueOf(ProcessHandle.current().pid()), "--count", "30",
                "--interval", "100ms"}, new PrintStream(closedPipe, false, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Path.of("/proc"));

        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("fairslice probe: the output was closed or a write"
                + " failed at table 1, so no more are printed" + System.lineSeparator());
    }

    /** The JVM to inspect ({@link ProbeChildMain}), once it said it is ready. */
    private static Process startChild() throws IOException {
        Process child = new ProcessBuilder(ForkedJvm.command(List.of(), ProbeChildMain.class))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("ready");
        } catch (IOException | AssertionError e) {
            child.destroyForcibly(); // the caller's finally is not reached
            throw e;
        }
        return child;
    }

    /**
     * A /proc tree under {@code proc} holding this JVM (the probe's self-check reads it) and a process 2147483000 whose
     * one thread is the calling thread (a link to its task folder); returns the probe over that tree.
     */
    private static LinuxKernelProbe processOfThisThread(Path proc) throws Exception {
        String self = String.valueOf(ProcessHandle.current().pid());
        Files.createSymbolicLink(proc.resolve(self), Path.of("/proc", self));
        LinuxKernelProbe probe = LinuxKernelProbe.create(proc);
        String tid = String.valueOf(probe.currentThreadId());
        Files.createSymbolicLink(Files.createDirectories(proc.resolve("2147483000/task")).resolve(tid),
                Path.of("/proc", self, "task", tid));
        return probe;
    }

    private static String[] lastRow(String text, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*\\d+ " + Pattern.quote(name) + " .*$").matcher(text);
        String row = null;
        while (m.find()) {
            row = m.group();
        }
        assertThat(row).as("a row for " + name + " in:\n" + text).isNotNull();
        return row.trim().split("\\s+");
    }
}
