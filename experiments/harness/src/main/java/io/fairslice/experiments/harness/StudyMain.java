package io.fairslice.experiments.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** {@code ./fairslice study}: parses the command line, runs the study, writes the results and the report. */
public final class StudyMain {

    static final String USAGE = """
            usage: ./fairslice study [--quick | --full] [--config FILE] [--out DIR] [--plan]
                   ./fairslice study --report DIR
                   ./fairslice study --resume DIR
              --quick               the default (planned 6m42s; 8-13 minutes): none and share, H = 0 and 40,
                                    under the default scheduler and rr-100ms
              --full                every middleware under every scheduler where it applies (17 configurations),
                                    H = 0,10,20,30,40, 3 repetitions (planned 3h26m; about 4 hours)
              --config FILE         properties overriding the preset's settings; keys:
            %s
              --out DIR             where to write, not a run's folder (default results/<UTC date-time> in the checkout)
              --plan                print what would run and the planned duration (the ETA's start), run nothing
              --report DIR          make summary, JSON, figures and report again from a results folder's
                                    points.csv, outcomes.csv and run.properties (also of an interrupted run:
                                    the data files are written after every configuration)
              --resume DIR          go on with an interrupted run in DIR: the configurations it measured are kept,
                                    the others run, with the run's own settings (refused if they or the machine
                                    differ)
              --server-classpath CP the study server's class path (default: the harness's own)
              --loadgen-classpath CP  Gatling's and the simulations' class path (default: the harness's own)
              --server-jvm-option O an extra option for every server JVM (repeatable)
              --weaving-jvm-option O  an option that weaves yield points (the AspectJ agent), for fairslice's
                                    configurations only (repeatable; the launcher passes them)
              --help                this text
            """.formatted(indented(String.join(", ", new TreeSet<>(StudyConfig.KEYS)), 24, 116));

    private StudyMain() {
    }

    /**
     * {@code words} wrapped at spaces into lines of at most {@code width} characters, each indented by {@code indent}
     * spaces, without a final newline. The usage's list of keys was one line of 250 characters, and the launcher
     * repeats the usage (`./fairslice study --help` answers without a build).
     */
    static String indented(String words, int indent, int width) {
        String margin = " ".repeat(indent);
        StringBuilder text = new StringBuilder();
        StringBuilder line = new StringBuilder(margin);
        for (String word : words.split(" ")) {
            if (line.length() > indent && line.length() + 1 + word.length() > width) {
                text.append(line).append('\n');
                line = new StringBuilder(margin);
            }
            if (line.length() > indent) {
                line.append(' ');
            }
            line.append(word);
        }
        return text.append(line).toString();
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.err));
    }

    /**
     * Runs the study and returns the exit status, the errors written to {@code err}: the usage follows a command
     * line of the wrong form only (an unknown option, a missing value, options that exclude each other); after a bad
     * value in a --config file or a folder that cannot be used, the one line that names it is the whole answer.
     */
    static int execute(String[] args, PrintStream err) {
        try {
            return run(args);
        } catch (UsageException e) {
            err.println("fairslice study: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("fairslice study: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("fairslice study: " + describe(e));
            return 1;
        } catch (InterruptedException e) {
            err.println("fairslice study: interrupted");
            return 130;
        }
    }

    /** A command line of the wrong form, answered with the usage. */
    static final class UsageException extends IllegalArgumentException {
        UsageException(String message) {
            super(message);
        }
    }

    static int run(String[] args) throws IOException, InterruptedException {
        StudyConfig config = StudyConfig.quick();
        Path configFile = null;
        Path out = null;
        Path reportOnly = null;
        Path resume = null;
        String ownClasspath = System.getProperty("java.class.path");
        String serverClasspath = ownClasspath;
        String loadgenClasspath = ownClasspath;
        List<String> serverOptions = new ArrayList<>();
        List<String> weavingOptions = new ArrayList<>();
        boolean presetGiven = false;
        boolean planOnly = false;
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick", "--full" -> {
                    if (presetGiven) {
                        throw new UsageException("give at most one of --quick and --full");
                    }
                    presetGiven = true;
                    config = arg.equals("--full") ? StudyConfig.full() : StudyConfig.quick();
                }
                case "--config" -> configFile = Path.of(once(given, arg, value(args, ++i, arg)));
                case "--out" -> out = Path.of(once(given, arg, value(args, ++i, arg)));
                case "--report" -> reportOnly = Path.of(once(given, arg, value(args, ++i, arg)));
                case "--resume" -> resume = Path.of(once(given, arg, value(args, ++i, arg)));
                case "--plan" -> planOnly = true;
                case "--server-classpath" -> serverClasspath = once(given, arg, value(args, ++i, arg));
                case "--loadgen-classpath" -> loadgenClasspath = once(given, arg, value(args, ++i, arg));
                // a JVM option's value is an option itself (--add-opens=..., -Xmx2g): taken whatever it starts with
                case "--server-jvm-option" -> serverOptions.add(jvmOption(args, ++i, arg));
                case "--weaving-jvm-option" -> weavingOptions.add(jvmOption(args, ++i, arg));
                case "--help", "-h" -> {
                    System.out.println(USAGE);
                    return 0;
                }
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (reportOnly != null) {
            // (the launcher passes its JVM options to every run, which a report does not use)
            if (presetGiven || configFile != null || out != null || planOnly || resume != null) {
                throw new UsageException("--report makes the report again from the run's own data files; "
                        + "give it alone (without --quick, --full, --config, --out, --plan, --resume)");
            }
            if (!Files.isRegularFile(reportOnly.resolve(ResultsFiles.RUN_PROPERTIES))) {
                throw new IllegalArgumentException("--report " + reportOnly + ": no " + ResultsFiles.RUN_PROPERTIES
                        + " there (not a study run's folder, or it ended before its first configuration)");
            }
            StudyResult result = ResultsFiles.read(reportOnly);
            // so that points.json and summary.csv match hand-merged or edited data files
            ResultsFiles.writeDerived(result, reportOnly);
            String headline = Report.write(result, reportOnly);
            System.out.println("report: " + reportOnly.resolve("report.md") + " (and report.html)");
            System.out.println(headline);
            return 0;
        }
        StudyResult previous = null;
        if (resume != null) {
            if (presetGiven || configFile != null || out != null || planOnly) {
                throw new UsageException("--resume takes the settings and the folder of the run it goes on "
                        + "with; give it alone (without --quick, --full, --config, --out, --plan)");
            }
            if (!Files.isRegularFile(resume.resolve(ResultsFiles.RUN_PROPERTIES))) {
                throw new IllegalArgumentException("--resume " + resume + ": no " + ResultsFiles.RUN_PROPERTIES
                        + " there (not a study run's folder, or it ended before its first configuration)");
            }
            previous = ResultsFiles.read(resume);
            config = resumedConfig(previous);
            out = resume;
        }
        if (configFile != null) {
            if (!Files.isRegularFile(configFile)) {
                throw new IllegalArgumentException("--config " + configFile + ": no such file");
            }
            config = config.withFile(configFile);
        }
        if (planOnly) {
            System.out.println(Progress.planLine(config) + ", without re-runs of disturbed windows");
            for (Configuration c : config.configurations()) {
                System.out.println("  " + c.id() + ": " + c.middleware().description() + ", scheduler "
                        + c.scheduler().id());
            }
            config.describe().forEach((k, v) -> System.out.println("  " + k + " = " + v));
            return 0;
        }
        boolean outGiven = out != null;
        if (out == null) {
            out = defaultOut(System.getProperty("fairslice.results", "results"), Instant.now());
        }
        if (resume == null && Files.exists(out.resolve(ResultsFiles.RUN_PROPERTIES))) {
            // a new run there rewrote points.csv and the rest after its first configuration, the old run's gone
            throw new IllegalArgumentException((outGiven ? "--out " : "the results folder ") + out
                    + " holds a study run already (" + ResultsFiles.RUN_PROPERTIES + "), whose data files a new run "
                    + "would overwrite: go on with it (--resume " + out + "), make its report again (--report " + out
                    + "), or give another folder");
        }
        checkJvmOptions(StudyJvm.SERVERS, config.serverJvmOptions(), serverOptions);
        checkJvmOptions(StudyJvm.LOAD_GENERATOR, config.gatlingJvmOptions(), List.of());
        writableFolder(out, resume != null ? "--resume " : outGiven ? "--out " : "the results folder ");
        StudyRunner runner = new StudyRunner(config,
                new StudyRunner.Classpaths(serverClasspath, loadgenClasspath, serverOptions, weavingOptions), out,
                System.out, previous);
        StudyResult result = runner.run();
        ResultsFiles.write(result, out);
        String headline = Report.write(result, out);
        System.out.println();
        System.out.println("report: " + out.resolve("report.md") + " (and report.html)");
        System.out.println(headline);
        List<String> failed = result.failedConfigurations();
        if (!failed.isEmpty()) {
            System.err.println("fairslice study: " + failed.size() + " configuration(s) failed: "
                    + String.join(", ", failed) + " (why: the report's Configurations table)");
        }
        return status(result);
    }

    /**
     * A JVM the study starts, as {@link #checkJvmOptions} tries it: what a refusal calls it, the --config key and the
     * command-line option (null when there is none) that give its options, and the options it starts with besides
     * (tried before them, where Gatling's follow them: --add-opens and properties, whose place does not change whether
     * the JVM starts).
     */
    record StudyJvm(String name, String key, String option, List<String> own) {
        static final StudyJvm SERVERS = new StudyJvm("the servers' JVM", "serverJvmOptions", "--server-jvm-option",
                StudyServerProcess.OWN_JVM_OPTIONS);
        static final StudyJvm LOAD_GENERATOR = new StudyJvm("the load generator's JVM", "gatlingJvmOptions", null,
                LoadGenerator.OWN_JVM_OPTIONS);
    }

    /**
     * Refuses, before anything runs, JVM options {@code jvm}'s java does not start with, naming where they came from
     * and what the JVM said: every configuration's server (or Gatling) failed to start, one after the other, and the
     * run ended with exit 1 (-Xbogus, -Xmx2g with -Xms4g). The {@code extra} ones, given with {@code jvm}'s option,
     * are named when the configured ones start without them.
     */
    static void checkJvmOptions(StudyJvm jvm, List<String> configured, List<String> extra)
            throws IOException, InterruptedException {
        List<String> withConfigured = new ArrayList<>(jvm.own());
        withConfigured.addAll(configured);
        List<String> all = new ArrayList<>(withConfigured);
        all.addAll(extra);
        String refusal = StudyServerProcess.jvmRefusal(all, StudyServerProcess.OPTIONS_CHECK_TIMEOUT);
        if (refusal == null) {
            return;
        }
        String java = jvm.name() + " (" + StudyServerProcess.javaExecutable() + ")";
        String keyed = jvm.key() + " = " + String.join(" ", configured);
        if (!extra.isEmpty()
                && StudyServerProcess.jvmRefusal(withConfigured, StudyServerProcess.OPTIONS_CHECK_TIMEOUT) == null) {
            throw new IllegalArgumentException(jvm.option() + " " + String.join(" " + jvm.option() + " ", extra)
                    + ": " + java + " does not start with " + (extra.size() == 1 ? "it" : "them") + " after "
                    + keyed + ": " + refusal);
        }
        throw new IllegalArgumentException(keyed + ": " + java + " does not start with "
                + (configured.size() == 1 ? "it" : "them") + ": " + refusal);
    }

    /**
     * Creates {@code folder} if need be and checks that a file can be written in it, before anything runs: a folder
     * that could not be made was said as its bare path ("fairslice study: /proc/results", exit 1), and one that could
     * not be written to failed the run only after its first configuration had been measured.
     *
     * @param option how the folder was given ({@code "--out "}), which the refusal names
     */
    static void writableFolder(Path folder, String option) {
        try {
            Files.createDirectories(folder);
            Files.delete(Files.createTempFile(folder, ".fairslice-write-check", ".tmp"));
        } catch (IOException e) {
            throw new IllegalArgumentException(option + folder + ": cannot write the run's files there ("
                    + reason(e) + ")", e);
        }
    }

    /** An I/O error as a line: Java's file errors say only the path when the reason is in their type. */
    static String describe(IOException e) {
        if (e instanceof FileSystemException f && f.getFile() != null) {
            return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + reason(e);
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private static String reason(IOException e) {
        if (e instanceof FileAlreadyExistsException) {
            return "a file, not a folder, is there";
        } else if (e instanceof AccessDeniedException) {
            return "permission denied";
        } else if (e instanceof NoSuchFileException) {
            return "no such file or folder";
        } else if (e instanceof NotDirectoryException) {
            return "not a folder";
        } else if (e instanceof DirectoryNotEmptyException) {
            return "a folder that is not empty is there";
        } else if (e instanceof FileSystemException f) {
            // its message is its file again when it has no reason: "path: path" said nothing
            return f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * A run's exit status: 0 when a configuration was measured and none failed (one not available on the host, say
     * SCHED_RR without root, is skipped as planned). The run goes on past a failed configuration, to measure the
     * others, but is not whole: status 1, as when nothing was measured.
     */
    static int status(StudyResult result) {
        boolean anyMeasured = result.outcomes().stream()
                .anyMatch(o -> o.status() == ConfigurationOutcome.Status.MEASURED);
        return anyMeasured && result.failedConfigurations().isEmpty() ? 0 : 1;
    }

    /**
     * A new run's folder when no --out is given: {@code root/yyyyMMdd-HHmmss} in UTC, the time zone the report gives
     * the run's start and end in, so that the name matches them wherever the machine's clock is set.
     */
    static Path defaultOut(String root, Instant now) {
        return Path.of(root, DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(now));
    }

    /** The config a run was made with, from its recorded settings: its preset with the recorded keys over it. */
    static StudyConfig resumedConfig(StudyResult previous) {
        String preset = previous.settings().getOrDefault("preset", "");
        StudyConfig base = switch (preset) {
            case "quick" -> StudyConfig.quick();
            case "full" -> StudyConfig.full();
            default -> throw new IllegalArgumentException("cannot resume " + previous.runId() + ": unknown preset '"
                    + preset + "' in its " + ResultsFiles.RUN_PROPERTIES);
        };
        Map<String, String> recorded = new LinkedHashMap<>(previous.settings());
        recorded.keySet().retainAll(StudyConfig.KEYS);
        return base.with(recorded);
    }

    private static String jvmOption(String[] args, int i, String option) {
        if (i >= args.length || args[i].isBlank()) {
            throw new UsageException(option + " needs a value (a JVM option, such as -Xmx2g)");
        }
        return args[i];
    }

    /**
     * {@code value}, the first of {@code option}'s: a second one is refused. The last one was taken without a word:
     * {@code --out results/a ... --out results/b} wrote to results/b, {@code --config} read the second file only.
     */
    private static String once(Map<String, String> given, String option, String value) {
        String before = given.putIfAbsent(option, value);
        if (before != null) {
            throw new UsageException(option + " given twice, '" + before + "' and '" + value + "'");
        }
        return value;
    }

    /**
     * The value after {@code option}; a missing one, or one left empty ({@code --out "$DIR"} with the variable unset),
     * is refused. An empty folder was taken as the current one: {@code --out ""} wrote the run's data files, logs and
     * report into whatever folder the study was started from (the checkout's root), and an empty class path failed
     * every configuration's server or Gatling, one after the other.
     */
    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        if (args[i].isBlank()) {
            throw new UsageException(option + " needs a value, got '" + args[i] + "'"); // as the launcher words it
        }
        return args[i];
    }
}
