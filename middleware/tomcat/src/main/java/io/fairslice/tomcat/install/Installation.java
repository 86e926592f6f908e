package io.fairslice.tomcat.install;

import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.tomcat.TomcatLayout;
import io.fairslice.tomcat.TomcatSettings;
import io.fairslice.tomcat.install.InstallRecord.Entry;
import io.fairslice.tomcat.install.InstallRecord.Kind;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Installs fairslice into a Tomcat instance, updates an earlier installation, or removes it, keeping an
 * {@link InstallRecord} of everything it adds.
 *
 * <p>Rules: a file fairslice owns (listed in the record with its hash) is replaced or removed only while it is
 * unchanged; a file fairslice does not own is copied to {@code NAME.before-fairslice} before it is first changed; in
 * the operator's {@code setenv.sh}/{@code setenv.bat} only the {@link MarkedBlock marked block} is touched. Running
 * install twice changes nothing the second time. Uninstall removes the blocks, the files that are still as
 * fairslice wrote them, and the directories it created if they are empty; it says what it kept and why.
 */
public final class Installation {

    static final String SETENV_SH = "bin/setenv.sh";
    static final String SETENV_BAT = "bin/setenv.bat";
    /** Tomcat reads it: new files and folders get its permissions and group. */
    static final String SERVER_XML = "conf/server.xml";
    /**
     * How setenv files are read and written: byte for byte, whatever their encoding (a setenv.bat is often in the
     * system's code page, not UTF-8); the marked block itself is ASCII.
     */
    static final Charset SETENV_CHARSET = StandardCharsets.ISO_8859_1;
    /** A fairslice file the operator had changed, kept beside it when the installer writes it again. */
    static final String CHANGED_SUFFIX = ".changed";
    /** {@code jna-5.17.0.jar}: the artifact ({@code jna}) and its version. */
    private static final Pattern VERSIONED_JAR = Pattern.compile("(.+?)-(\\d.*)\\.jar");

    private final TomcatBase base;
    private final Consumer<String> report;
    private final String version;

    /** {@code report} receives one line per action, for the operator. */
    public Installation(TomcatBase base, String version, Consumer<String> report) {
        this.base = base;
        this.version = version;
        this.report = report;
    }

    // ---- install -------------------------------------------------------------------------------------------------

    /**
     * The applications of the settings file an earlier install wrote, read as Tomcat reads them
     * ({@link TomcatSettings#load}); null without one, or when it is not readable as such (it is written anew anyway),
     * which a note says: a hand-edited {@code apps=/shop,/ROOT} was replaced by the default {@code *} without a word.
     */
    private List<String> lastApps() {
        if (!Files.isRegularFile(base.resolve(TomcatLayout.TOMCAT_SETTINGS))) {
            return null;
        }
        try {
            return TomcatSettings.load(base.dir()).apps();
        } catch (IllegalArgumentException e) {
            report.accept("note: the last install's settings are refused (" + e.getMessage() + "), so --apps is not"
                    + " compared with them; the file is written anew");
            return null;
        }
    }

    /** The text of {@code file}, written by an earlier install, or null when there is none. */
    private static String lastText(Path file) throws IOException {
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
    }

    /**
     * Says so when a setenv script sets up AspectJ load-time weaving of the operator's own outside fairslice's block:
     * with {@code --weave} the JVM would get two weaver agents, and fairslice's configuration property, set later,
     * replaces the operator's list of aop.xml files.
     */
    private void noteOwnWeaver(String rel, MarkedBlock marked) throws IOException {
        Path file = base.resolve(rel);
        if (!Files.isRegularFile(file)) {
            return;
        }
        String text = Files.readString(file, SETENV_CHARSET);
        String yours = marked.isIn(text, rel) ? marked.remove(text, rel) : text;
        if (yours.contains("aspectjweaver") || yours.contains("loadtime.configuration")) {
            report.accept("note: " + rel + " sets up AspectJ load-time weaving of its own outside fairslice's block:"
                    + " with --weave the JVM gets two weaver agents, and fairslice's"
                    + " -Dorg.aspectj.weaver.loadtime.configuration replaces yours; keep one -javaagent and declare"
                    + " your aspects in your applications' META-INF/aop.xml, which fairslice's list reads"
                    + " (docs/tomcat.md)");
        }
    }

    /** Says that {@code option}, which the last install had, is left out now and so switched off. */
    private void noteDropped(boolean dropped, String option) {
        if (dropped) {
            report.accept("note: no " + option + ", which the last install had, so it is off now (give " + option
                    + " to keep it)");
        }
    }

    /**
     * The jars of the last install that this one would delete (an older version's, the weaving agent without
     * {@code --weave}), as they are now: a Tomcat running from the base still reads them. Without a record, none.
     */
    public List<String> jarsRemovedBy(InstallOptions options, Bundle bundle) throws IOException {
        Set<String> kept = new HashSet<>();
        for (Path jar : bundle.libJars()) {
            kept.add(libJarPath(jar));
        }
        if (!options.weave().isEmpty()) {
            kept.add(weaverPath(bundle));
        }
        List<String> removed = new ArrayList<>();
        for (Entry file : InstallRecord.read(base).map(r -> r.all(Kind.FILE)).orElse(List.of())) {
            if (file.path().endsWith(".jar") && !kept.contains(file.path())
                    && Files.isRegularFile(base.resolve(file.path()))) {
                removed.add(file.path());
            }
        }
        return removed;
    }

    /** Where the bundle's jar goes in the base. */
    private static String libJarPath(Path jar) {
        return "lib/" + jar.getFileName();
    }

    /** The metrics application's context descriptor, in the default host's descriptor folder. */
    Path metricsDescriptor() {
        return base.contextDescriptorDir().resolve(TomcatLayout.METRICS_DESCRIPTOR);
    }

    /**
     * Whether a recorded file is a metrics descriptor an install wrote: in this host's descriptor folder, or in the one
     * an earlier install took for it (a host name in capitals, an xmlBase it did not read until 2026-12-04).
     */
    private static boolean isMetricsDescriptor(Entry entry) {
        return entry.kind() == Kind.FILE && entry.path().startsWith("conf/")
                && entry.path().endsWith("/" + TomcatLayout.METRICS_DESCRIPTOR);
    }

    /** The metrics descriptor the last install wrote, wherever it put it; else where this one puts it. */
    private Path lastMetricsDescriptor(InstallRecord previous) {
        return previous.all(Kind.FILE).stream().filter(Installation::isMetricsDescriptor).findFirst()
                .map(e -> base.resolve(e.path())).orElse(metricsDescriptor());
    }

    /** Where the weaving agent goes in the base. */
    private static String weaverPath(Bundle bundle) {
        return TomcatLayout.HOME + "/" + bundle.weaverName();
    }

    /** Installs (or updates) according to {@code options}; returns the new record. */
    public InstallRecord install(InstallOptions options, Bundle bundle) throws IOException {
        InstallRecord previous = InstallRecord.read(base).orElse(new InstallRecord(version, List.of()));
        checkBlocks();
        checkLinksToNothing(options, bundle);
        if (options.metrics()) {
            checkMetricsContextFree(previous);
        }
        Writer w = new Writer(previous);
        try {
            return install(options, bundle, w, previous);
        } catch (IOException | RuntimeException e) {
            w.recordPartial(e); // a rerun and an uninstall must know what this attempt wrote
            throw e;
        }
    }

    private InstallRecord install(InstallOptions options, Bundle bundle, Writer w, InstallRecord previous)
            throws IOException {
        List<String> appsBefore = lastApps();
        // the scope file (--weave and its aspects) and the metrics descriptor (--metrics-ports) the last install wrote
        String aspectsBefore = Objects.requireNonNullElse(lastText(base.resolve(TomcatLayout.AOP_XML)), "");
        List<String> scopeBefore = Fragments.aopXmlScope(aspectsBefore);
        String metricsBefore = lastText(lastMetricsDescriptor(previous));
        String portsBefore = metricsBefore == null ? null : Fragments.metricsPorts(metricsBefore);
        w.createParents(base.resolve(InstallRecord.FILE)); // its folder is fairslice's too
        for (Path jar : bundle.libJars()) {
            w.file(libJarPath(jar), Files.readAllBytes(jar), false);
        }
        boolean weaving = !options.weave().isEmpty();
        if (weaving) {
            w.file(weaverPath(bundle), Files.readAllBytes(bundle.weaverJar()), false);
            w.file(TomcatLayout.AOP_XML, Fragments.aopXml(options.weave(), options.weaveCalls(),
                    options.weaveJdbc()), false);
        }
        w.file(TomcatLayout.CONFIG, Fragments.configTemplate(), true);
        w.file(TomcatLayout.TOMCAT_SETTINGS, Fragments.tomcatSettings(options.apps()), false);
        if (options.metrics()) {
            w.file(TomcatLayout.METRICS_WEBAPP + "/WEB-INF/web.xml", Fragments.metricsWebXml(), false);
            w.file(base.relative(metricsDescriptor()), Fragments.metricsDescriptor(options.metricsPorts()), false);
            base.outsideXmlBase().ifPresent(xmlBase -> report.accept("note: the host's xmlBase " + xmlBase
                    + " is outside " + base.dir() + ", where the installer writes nothing, and Tomcat deploys"
                    + " descriptors from there only: copy " + base.relative(metricsDescriptor()) + " there (again"
                    + " after each install) for " + TomcatLayout.METRICS_PATH));
        }
        String weaver = weaving ? bundle.weaverName() : null;
        if (weaving) {
            noteOwnWeaver(SETENV_SH, MarkedBlock.SHELL);
            noteOwnWeaver(SETENV_BAT, MarkedBlock.BATCH);
        }
        String mark = Fragments.mark(base.dir());
        List<String> aspects = Fragments.aspectConfigurations(options.weaveCalls(), options.weaveJdbc());
        w.block(SETENV_SH, MarkedBlock.SHELL, created -> Fragments.setenvSh(mark, weaver, aspects, created));
        w.block(SETENV_BAT, MarkedBlock.BATCH, created -> Fragments.setenvBat(mark, weaver, aspects, created));
        w.removeStale();
        for (Path jar : bundle.libJars()) {
            noteOtherVersions(jar.getFileName().toString());
        }

        InstallRecord record = w.record();
        record.write(base);
        if (Files.isRegularFile(base.resolve("bin/catalina.sh"))
                && Files.isRegularFile(base.resolve("lib/catalina.jar"))) {
            // only what the operator may need to act on: the reasons are in docs/tomcat.md
            // printed for every unpacked distribution (its own CATALINA_BASE and CATALINA_HOME): the installer
            // cannot see whether other instances use it, so it says when the note applies
            report.accept("note: " + base.dir() + " is also a CATALINA_HOME: nothing to do if only this Tomcat"
                    + " runs from it; if other Tomcat instances use it as their CATALINA_HOME, they start as before,"
                    + " but fairslice starts in their applications too, with its defaults (its jars are in this"
                    + " lib/); to keep them free of it, install into an instance directory of its own instead"
                    + " (docs/tomcat.md)");
        }
        if (!weaving) {
            report.accept("note: no --weave given, so no weaving agent: yield points only where application code"
                    + " calls Fairslice.yieldPoint()");
        }
        // as sets, as the ports below: Tomcat selects an application by its path alone, so their order means nothing
        if (appsBefore != null && !Set.copyOf(appsBefore).equals(Set.copyOf(options.apps()))) {
            report.accept("note: --apps is now " + String.join(",", options.apps()) + "; give --apps "
                    + String.join(",", appsBefore) + " to keep the last install's");
        }
        // as sets too: the weaver reads the scope's include and exclude patterns in no order
        if (!scopeBefore.isEmpty() && !Set.copyOf(scopeBefore).equals(Set.copyOf(options.weave()))) {
            String was = String.join(",", scopeBefore);
            report.accept(options.weave().isEmpty()
                    ? "note: no --weave, so the weaving agent of the last install is removed (give --weave " + was
                            + " to keep it)"
                    : "note: the weaving scope is now " + String.join(",", options.weave()) + "; give --weave " + was
                            + " to keep the last install's");
        }
        // an option left out goes back to its default: say so for each that an earlier install had otherwise
        if (!scopeBefore.isEmpty() && !options.weave().isEmpty()) { // (no --weave at all has its note above)
            noteDropped(aspectsBefore.contains(Fragments.CALL_SITE_ASPECT) && !options.weaveCalls(), "--weave-calls");
            noteDropped(aspectsBefore.contains(Fragments.BLOCKING_CALL_ASPECT) && !options.weaveJdbc(),
                    "--weave-jdbc");
        }
        if (portsBefore != null && !options.metrics()) {
            report.accept("note: --no-metrics, so the metrics application of the last install ("
                    + TomcatLayout.METRICS_PATH + ") is removed");
        }
        if (appsBefore != null && metricsBefore == null && options.metrics()) { // the last install had --no-metrics
            report.accept("note: no --no-metrics, which the last install had, so the metrics application ("
                    + TomcatLayout.METRICS_PATH + ") is installed again (give --no-metrics to keep it off)");
        }
        String ports = options.metricsPorts().stream().map(String::valueOf).collect(Collectors.joining(","));
        if (portsBefore != null && options.metrics()
                && !Set.copyOf(List.of(portsBefore.split(","))).equals(Set.copyOf(List.of(ports.split(","))))) {
            report.accept("note: --metrics-ports is now " + (ports.isEmpty() ? "none (this host only)" : ports)
                    + (portsBefore.isEmpty() ? "; the last install's was none"
                            : "; give --metrics-ports " + portsBefore + " to keep the last install's"));
        }
        List<String> connectorPorts = base.connectorPorts();
        if (options.metrics() && connectorPorts.stream().noneMatch(p -> p.contains("${"))) {
            for (int port : options.metricsPorts()) {
                if (!connectorPorts.contains(String.valueOf(port))) {
                    report.accept("note: --metrics-ports lists " + port + ", but no <Connector> of the engine's service"
                            + " in conf/server.xml has that port (" + (connectorPorts.isEmpty() ? "it has none"
                            : "theirs: " + String.join(", ", connectorPorts)) + "), so no client reaches the metrics"
                            + " there; a typo?");
                }
            }
        }
        // checks, not the install: a folder it cannot list is said once, and the install (recorded above) stands
        List<Path> applications;
        try {
            applications = ApplicationClasses.applications(base.appBase(), options.apps());
        } catch (IOException e) {
            report.accept("note: cannot list " + base.relative(base.appBase()) + "/ (" + e + "), so --apps and"
                    + " --weave were not checked against the applications in it");
            return record;
        }
        // an application not deployed yet is no error (its WAR may be copied in after the install), so a note, as for
        // the other checks; it says too that the --weave check below did not look into it: with no application left
        // to look into, that check was skipped without a word
        String appBase = base.relative(base.appBase()) + "/";
        String weaveUnchecked = options.weave().isEmpty() ? "" : "; --weave was not checked against it (once it"
                + " runs, the weaving line of its log names a pattern that matches none of its classes)";
        Set<String> deployed = base.applications();
        Set<String> inAppBase = applications.stream().map(ApplicationClasses::contextPath).collect(Collectors.toSet());
        for (String app : options.apps()) {
            if (app.equals("*")) {
                if (!options.weave().isEmpty() && applications.isEmpty()) {
                    report.accept("note: no application in " + appBase + " now, so --weave was not checked against"
                            + " any (once they run, the weaving line of each one's log names a pattern that"
                            + " matches none of its classes)");
                }
            } else if (!deployed.contains(app)) {
                List<String> there = deployed.stream().filter(a -> !a.equals(TomcatLayout.METRICS_CONTEXT)).toList();
                report.accept("note: --apps " + app + ": no such application in " + appBase + " or "
                        + base.relative(base.contextDescriptorDir()) + "/ now (" + (there.isEmpty() ? "they hold none"
                        : "they hold " + String.join(", ", there)) + "); fairslice starts in it once it is deployed"
                        + " at that context path (a typo?)" + weaveUnchecked);
            } else if (!options.weave().isEmpty() && !inAppBase.contains(app)) {
                report.accept("note: --apps " + app + ": deployed by a context descriptor in "
                        + base.relative(base.contextDescriptorDir()) + "/, not from " + appBase
                        + ", where the installer looks for classes" + weaveUnchecked);
            }
        }
        for (String pattern : applications.isEmpty() ? List.<String>of() : options.weave()) {
            if (WeavingScope.compiledAtRunTime(pattern) || ApplicationClasses.anyHolds(applications, pattern)) {
                continue;
            }
            List<String> names = applications.stream().map(a -> a.getFileName().toString()).toList();
            if (!pattern.endsWith("*") && ApplicationClasses.anyHolds(applications, pattern + "..*")) {
                // a package named without a wildcard is a class name to AspectJ: nothing would be woven
                report.accept("note: --weave " + pattern + ": no class of that name, but a package in " + names
                        + ": did you mean " + pattern + "..* (it and its subpackages) or " + pattern + ".* (its"
                        + " classes only)?");
            } else if (pattern.endsWith(".*") && !pattern.endsWith("..*")
                    && ApplicationClasses.anyHolds(applications, tree(pattern))) {
                // com.acme.* is that package's own classes: one holding only subpackages wove nothing
                report.accept("note: --weave " + pattern + ": no class directly in that package in " + names
                        + ", only in its subpackages: did you mean " + tree(pattern) + " (it and its subpackages)?");
            } else {
                report.accept("note: --weave " + pattern + ": no class of it in " + names + " in "
                        + base.relative(base.appBase()) + "/ now, so nothing is woven for it there (a typo?)");
            }
        }
        return record;
    }

    /**
     * Notes another version of a jar fairslice put into lib/ ({@code jna-5.13.0.jar} beside its
     * {@code jna-5.17.0.jar}): Tomcat's common class loader would hold both, and which one a class comes from is not
     * defined. Called after the last install's own jars were removed, so what is left is not fairslice's.
     */
    private void noteOtherVersions(String ours) throws IOException {
        Matcher artifact = VERSIONED_JAR.matcher(ours);
        if (!artifact.matches()) {
            return;
        }
        List<String> others;
        try (var jars = Files.list(base.resolve("lib"))) {
            others = jars.map(p -> p.getFileName().toString()).filter(name -> !name.equals(ours))
                    .filter(name -> {
                        Matcher other = VERSIONED_JAR.matcher(name);
                        return other.matches() && other.group(1).equals(artifact.group(1));
                    }).sorted().toList();
        }
        for (String other : others) {
            report.accept("note: lib/" + other + " is there too, not fairslice's: two versions of " + artifact.group(1)
                    + " on Tomcat's class path, and which one a class is loaded from is not defined; fairslice needs"
                    + " lib/" + ours + ": keep only the newer one");
        }
    }

    /** {@code com.acme..*} for {@code com.acme.*}: the package and its subpackages. */
    private static String tree(String onePackage) {
        return onePackage.substring(0, onePackage.length() - 1) + ".*";
    }

    /** Builds the new record while it writes, carrying over what the previous record still covers. */
    private final class Writer {
        final InstallRecord previous;
        final List<Entry> entries = new ArrayList<>();
        final Set<String> written = new HashSet<>();

        Writer(InstallRecord previous) {
            this.previous = previous;
            for (Entry dir : previous.all(Kind.DIR)) {
                if (Files.isDirectory(base.resolve(dir.path()))) {
                    entries.add(dir);
                }
            }
        }

        /** What has been written: directories first, in creation order, so that the record is stable across runs. */
        InstallRecord record() {
            List<Entry> ordered = new ArrayList<>(entries.stream().filter(e -> e.kind() == Kind.DIR).toList());
            ordered.addAll(entries.stream().filter(e -> e.kind() != Kind.DIR).toList());
            return new InstallRecord(version, ordered);
        }

        /**
         * After a failure part way: records what this attempt wrote, with what the previous record lists that it had
         * not come to yet, so that the rerun the error asks for takes its own files for fairslice's, and an uninstall
         * removes them.
         */
        void recordPartial(Exception failure) {
            try {
                soFar(true).write(base);
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }

        /**
         * Writes the record as it stands before a new file is written, listing that file already: a kill during the
         * write leaves either no file under its name or the complete one ({@link #replace} renames it into place), so
         * the rerun and an uninstall know it either way.
         */
        void checkpoint() throws IOException {
            soFar(false).write(base);
        }

        /**
         * What this attempt wrote, with what the previous record lists that it had not come to yet; after a failure
         * ({@code failed}) without the files the attempt listed but did not get to write.
         */
        private InstallRecord soFar(boolean failed) {
            InstallRecord attempt = record();
            List<Entry> merged = new ArrayList<>();
            for (Entry e : attempt.entries()) {
                if (!failed || e.kind() == Kind.BACKUP || Files.exists(base.resolve(e.path()))) {
                    merged.add(e);
                }
            }
            for (Entry old : previous.entries()) {
                if (attempt.find(old.kind(), old.path()).isEmpty() && Files.exists(base.resolve(old.path()))) {
                    merged.add(old);
                }
            }
            return new InstallRecord(version, merged);
        }

        /**
         * Makes {@code rel} hold {@code content}. {@code operatorOwned}: a configuration file the operator edits; it
         * is written only when absent and never replaced.
         */
        void file(String rel, byte[] content, boolean operatorOwned) throws IOException {
            written.add(rel);
            Path file = base.resolve(rel);
            String hash = sha256(content);
            Optional<Entry> ours = previous.find(Kind.FILE, rel);
            if (Files.exists(file)) {
                String current = sha256(Files.readAllBytes(file));
                if (current.equals(hash)) {
                    if (ours.isPresent()) {
                        entries.add(new Entry(Kind.FILE, rel, hash));
                        carryBackup(rel);
                        report.accept("unchanged  " + rel);
                    } else {
                        report.accept("present    " + rel + " (already there, identical; not fairslice's)");
                    }
                    return;
                }
                boolean unchangedOurs = ours.isPresent() && ours.get().value().equals(current);
                if (operatorOwned && !unchangedOurs) {
                    ours.ifPresent(entries::add);
                    carryBackup(rel);
                    report.accept("kept       " + rel + " (" + (ours.isPresent() ? "you changed it" : "yours")
                            + "; fairslice does not overwrite configuration)");
                    return;
                }
                if (!unchangedOurs) {
                    Optional<Entry> backup = previous.find(Kind.BACKUP, rel);
                    if (ours.isPresent()) {
                        // the operator changed fairslice's file: their version stays beside it, theirs to compare;
                        // not a backup (uninstall restores a backup, and this is not what was there before)
                        Path copy = freeName(file, CHANGED_SUFFIX);
                        Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                        backup.ifPresent(entries::add);
                        report.accept("saved      " + rel + " -> " + base.relative(copy) + " (you changed it; the"
                                + " installer writes this file)");
                    } else if (backup.isEmpty()) {
                        Path copy = backupOf(file);
                        Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                        entries.add(new Entry(Kind.BACKUP, rel, base.relative(copy)));
                        report.accept("backed up  " + rel + " -> " + base.relative(copy));
                    } else {
                        entries.add(backup.get());
                    }
                } else {
                    carryBackup(rel);
                }
                replace(file, content);
                entries.add(new Entry(Kind.FILE, rel, hash));
                report.accept("updated    " + rel);
                return;
            }
            createParents(file);
            entries.add(new Entry(Kind.FILE, rel, hash));
            carryBackup(rel);
            checkpoint();
            replace(file, content, base.resolve(SERVER_XML));
            report.accept("added      " + rel);
        }

        /** {@code body}: the block's lines, given whether fairslice created the file. */
        void block(String rel, MarkedBlock marked, Function<Boolean, List<String>> body)
                throws IOException {
            Path file = base.resolve(rel);
            Optional<Entry> ours = previous.find(Kind.BLOCK, rel);
            if (!Files.exists(file)) {
                createParents(file);
                entries.add(new Entry(Kind.BLOCK, rel, "created"));
                checkpoint();
                replace(file, marked.write("", body.apply(true), rel).getBytes(SETENV_CHARSET),
                        base.resolve(SERVER_XML));
                report.accept("added      " + rel + " (new file with fairslice's block)");
                return;
            }
            String text = Files.readString(file, SETENV_CHARSET);
            if (Files.isSymbolicLink(file)) {
                report.accept("note: " + rel + " links to " + file.toRealPath() + ": fairslice's block goes there;"
                        + " of the Tomcats that run that file it applies to those with fairslice installed");
            }
            String flags;
            if (marked.isIn(text, rel)) {
                // a file created by an install killed before its record said so is still known by its block
                boolean created = text.contains(Fragments.CREATED_MARK)
                        && !marked.remove(text, rel).contains(Fragments.CREATED_MARK);
                flags = ours.map(Entry::value).orElse(created ? "created" : "-");
                carryBackup(rel);
            } else {
                flags = !text.isEmpty() && !MarkedBlock.endsWithNewline(text) ? "no-final-newline" : "-";
                Optional<Entry> backup = previous.find(Kind.BACKUP, rel);
                if (backup.isPresent()) {
                    entries.add(backup.get());
                } else {
                    Path copy = backupOf(file);
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                    entries.add(new Entry(Kind.BACKUP, rel, base.relative(copy)));
                    report.accept("backed up  " + rel + " -> " + base.relative(copy));
                }
            }
            String updated = marked.write(text, body.apply(flags.contains("created")), rel);
            entries.add(new Entry(Kind.BLOCK, rel, flags));
            if (updated.equals(text)) {
                report.accept("unchanged  " + rel + " (fairslice's block)");
            } else {
                // recorded first: a kill during the replace leaves the operator's file (or the one with the block)
                // and a record that lists its backup either way; a rerun or an uninstall finds a missing block fine
                checkpoint();
                replace(file, updated.getBytes(SETENV_CHARSET));
                report.accept("updated    " + rel + " (fairslice's block)");
            }
        }

        /** Files of the previous installation that this one no longer writes (an older jar, metrics turned off). */
        void removeStale() throws IOException {
            for (Entry old : previous.all(Kind.FILE)) {
                if (!written.contains(old.path())) {
                    removeOurFile(old, previous);
                }
            }
        }

        private void carryBackup(String rel) {
            previous.find(Kind.BACKUP, rel).ifPresent(entries::add);
        }

        void createParents(Path file) throws IOException {
            List<Path> missing = new ArrayList<>();
            for (Path p = file.getParent(); p != null && !Files.exists(p); p = p.getParent()) {
                missing.add(0, p);
            }
            for (Path dir : missing) {
                Files.createDirectory(dir);
                permitLike(dir, base.resolve(SERVER_XML), true);
                entries.add(new Entry(Kind.DIR, base.relative(dir), "-"));
            }
        }
    }

    /** Refuses damaged blocks before anything is written, so that a refusal leaves the Tomcat as it was. */
    private void checkBlocks() throws IOException {
        for (String rel : List.of(SETENV_SH, SETENV_BAT)) {
            Path file = base.resolve(rel);
            if (Files.isRegularFile(file)) {
                markerOf(rel).isIn(Files.readString(file, SETENV_CHARSET), rel);
            }
        }
    }

    /**
     * Refuses a file the install writes that is a symbolic link to a file that does not exist, before anything is
     * written: the install created the file it names, outside the base (a shared folder not mounted yet, a link left
     * from a move), and the uninstall deleted the link and kept that file. Which of the two the operator means is
     * theirs to say.
     */
    private void checkLinksToNothing(InstallOptions options, Bundle bundle) throws IOException {
        for (String rel : writes(options, bundle)) {
            Path file = base.resolve(rel);
            if (Files.isSymbolicLink(file) && !Files.exists(file)) {
                Path target = file.getParent().resolve(Files.readSymbolicLink(file)).normalize();
                throw new InstallException(file + " is a symbolic link to " + target + ", which does not exist:"
                        + " create that file (an empty one will do) or remove the link, then run the installer again;"
                        + " nothing was changed");
            }
        }
    }

    /** Every file an install with {@code options} writes, relative to the base, as {@link #install} writes them. */
    private List<String> writes(InstallOptions options, Bundle bundle) {
        List<String> rels = new ArrayList<>();
        for (Path jar : bundle.libJars()) {
            rels.add(libJarPath(jar));
        }
        if (!options.weave().isEmpty()) {
            rels.addAll(List.of(weaverPath(bundle), TomcatLayout.AOP_XML));
        }
        rels.addAll(List.of(TomcatLayout.CONFIG, TomcatLayout.TOMCAT_SETTINGS));
        if (options.metrics()) {
            rels.addAll(List.of(TomcatLayout.METRICS_WEBAPP + "/WEB-INF/web.xml", base.relative(metricsDescriptor())));
        }
        rels.addAll(List.of(SETENV_SH, SETENV_BAT, InstallRecord.FILE));
        return rels;
    }

    /**
     * Refuses, before anything is written, to deploy the metrics application at {@value TomcatLayout#METRICS_CONTEXT}
     * over an application there that is not fairslice's: Tomcat deploys a context descriptor before a folder or WAR
     * of that name, so the operator's {@code webapps/fairslice} was out of reach until the uninstall (and their own
     * descriptor replaced by fairslice's). A descriptor is fairslice's when the record lists it or it says so.
     */
    private void checkMetricsContextFree(InstallRecord previous) throws IOException {
        for (Path deployed : base.deploying(TomcatLayout.METRICS_CONTEXT)) {
            boolean descriptor = deployed.getParent().equals(base.contextDescriptorDir());
            if (descriptor && (previous.find(Kind.FILE, base.relative(deployed)).isPresent()
                    || Files.readString(deployed, StandardCharsets.ISO_8859_1) // any encoding; the mark is ASCII
                            .contains(Fragments.METRICS_DESCRIPTOR_MARK))) {
                continue;
            }
            throw new InstallException(deployed + " deploys an application at " + TomcatLayout.METRICS_CONTEXT
                    + " that is not fairslice's: fairslice's metrics application (" + TomcatLayout.METRICS_PATH
                    + ") would take its place until an uninstall. Move that application to another context path, or"
                    + " install with --no-metrics; nothing was changed");
        }
    }

    private static MarkedBlock markerOf(String rel) {
        return rel.endsWith(".bat") ? MarkedBlock.BATCH : MarkedBlock.SHELL;
    }

    private Path backupOf(Path file) {
        return freeName(file, TomcatLayout.BACKUP_SUFFIX);
    }

    /** {@code NAME<suffix>}, or {@code NAME<suffix>.<n>} with the first n not taken. */
    private static Path freeName(Path file, String suffix) {
        Path copy = file.resolveSibling(file.getFileName() + suffix);
        for (int i = 1; Files.exists(copy); i++) {
            copy = file.resolveSibling(file.getFileName() + suffix + "." + i);
        }
        return copy;
    }

    // ---- uninstall -----------------------------------------------------------------------------------------------

    /** Removes what the record lists; returns false when there was no record (nothing to do). */
    public boolean uninstall() throws IOException {
        Optional<InstallRecord> found = InstallRecord.read(base);
        if (found.isEmpty()) {
            report.accept("nothing to uninstall: " + base.dir() + " has no " + InstallRecord.FILE);
            return false;
        }
        InstallRecord record = found.get();
        checkBlocks();
        for (Entry block : record.all(Kind.BLOCK)) {
            removeBlock(block, record);
        }
        for (Entry file : record.all(Kind.FILE)) {
            removeOurFile(file, record);
        }
        if (record.all(Kind.FILE).stream().anyMatch(Installation::isMetricsDescriptor)) {
            removeMetricsWorkDir();
        }
        Files.deleteIfExists(base.resolve(InstallRecord.FILE));
        List<Entry> dirs = new ArrayList<>(record.all(Kind.DIR));
        Collections.reverse(dirs);
        for (Entry dir : dirs) {
            Path d = base.resolve(dir.path());
            if (Files.isDirectory(d)) {
                try (var children = Files.list(d)) {
                    if (children.findAny().isPresent()) {
                        report.accept("kept       " + dir.path() + "/ (not empty: it holds files fairslice did not"
                                + " add, or kept)");
                        continue;
                    }
                }
                Files.delete(d);
                report.accept("removed    " + dir.path() + "/");
            }
        }
        return true;
    }

    /**
     * Tomcat's work folder of the metrics application: Tomcat makes one for every application it deploys and keeps it
     * when the application is removed while Tomcat is stopped, so the uninstall left an empty
     * {@code work/Catalina/localhost/fairslice/} behind. Removed while empty; one with something in it is said and
     * kept.
     */
    private void removeMetricsWorkDir() throws IOException {
        Path work = base.metricsWorkDir();
        if (!work.startsWith(base.dir()) || !Files.isDirectory(work, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var children = Files.list(work)) {
            if (children.findAny().isPresent()) {
                report.accept("kept       " + base.relative(work) + "/ (Tomcat's work folder of the metrics"
                        + " application; not empty)");
                return;
            }
        }
        Files.delete(work);
        report.accept("removed    " + base.relative(work) + "/ (Tomcat's work folder of the metrics application)");
    }

    private void removeBlock(Entry block, InstallRecord record) throws IOException {
        Path file = base.resolve(block.path());
        MarkedBlock marked = markerOf(block.path());
        Optional<Entry> backup = record.find(Kind.BACKUP, block.path());
        if (!Files.exists(file)) {
            report.accept("gone       " + block.path() + " (already removed)");
            if (backup.isPresent() && Files.exists(base.resolve(backup.get().value()))) {
                report.accept("kept       " + backup.get().value() + " (what " + block.path()
                        + " was before the install; it has been deleted since)");
            }
            return;
        }
        String text = Files.readString(file, SETENV_CHARSET);
        String updated = marked.remove(text, block.path(), block.value().contains("no-final-newline"));
        if (block.value().contains("created") && updated.isBlank()) {
            Files.delete(file);
            report.accept("removed    " + block.path());
        } else if (block.value().contains("created") && !updated.equals(text)) {
            String eol = MarkedBlock.lineEnding(text, marked.defaultEol());
            List<String> kept = Fragments.keptHomeSetenv(marked == MarkedBlock.BATCH);
            replace(file, (String.join(eol, kept) + eol + updated).getBytes(SETENV_CHARSET));
            report.accept("updated    " + block.path() + " (removed fairslice's block; kept the lines that run"
                    + " $CATALINA_HOME/" + block.path() + ", as catalina.sh does for an instance without a "
                    + block.path().substring(block.path().indexOf('/') + 1) + ", above yours)");
        } else if (!updated.equals(text)) {
            replace(file, updated.getBytes(SETENV_CHARSET));
            report.accept("updated    " + block.path() + " (removed fairslice's block)");
        }
        if (backup.isPresent()) {
            Path copy = base.resolve(backup.get().value());
            if (Files.exists(copy) && Files.exists(file) && Files.mismatch(copy, file) == -1) {
                Files.delete(copy);
                report.accept("removed    " + backup.get().value() + " (" + block.path() + " is as it was)");
            } else if (Files.exists(copy)) {
                report.accept("kept       " + backup.get().value() + " (" + block.path()
                        + " changed since the install; compare them)");
            }
        }
    }

    private void removeOurFile(Entry entry, InstallRecord record) throws IOException {
        Path file = base.resolve(entry.path());
        sayChangedCopies(file, entry.path());
        // the file the install replaced, if its copy is still there
        Optional<String> original = record.find(Kind.BACKUP, entry.path()).map(Entry::value)
                .filter(copy -> Files.exists(base.resolve(copy)));
        if (!Files.exists(file)) {
            report.accept("gone       " + entry.path() + " (already removed)");
        } else if (sha256(Files.readAllBytes(file)).equals(entry.value())) {
            Files.delete(file);
            report.accept("removed    " + entry.path());
        } else if (isMetricsDescriptor(entry)) {
            // kept where it is, Tomcat would deploy it at every start from the metrics folder removed with it (SEVERE)
            Path kept = file.resolveSibling(file.getFileName() + ".kept");
            Files.move(file, kept, StandardCopyOption.REPLACE_EXISTING);
            report.accept("kept       " + base.relative(kept) + " (" + entry.path() + " changed since fairslice wrote"
                    + " it; renamed, so that Tomcat no longer deploys the metrics application removed with it)");
            // its place is free: the operator's own descriptor that the install replaced, if any, goes back there
        } else {
            report.accept("kept       " + entry.path() + " (changed since fairslice wrote it; delete it yourself"
                    + " if you no longer need it" + original.map(copy -> "; the file it replaced is " + copy).orElse("")
                    + ")");
            return;
        }
        if (original.isPresent()) {
            Files.move(base.resolve(original.get()), file);
            report.accept("restored   " + entry.path() + " from " + original.get());
        }
    }

    /**
     * Says which copies of the operator's changes to a fairslice file an install saved beside it
     * ({@value #CHANGED_SUFFIX}, {@code .changed.<n>}): theirs, so kept, but named, or the uninstall's "removes what it
     * added" left files nobody was told of.
     */
    private void sayChangedCopies(Path file, String rel) throws IOException {
        Path dir = file.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        String saved = file.getFileName() + CHANGED_SUFFIX;
        try (var siblings = Files.list(dir)) {
            for (Path copy : siblings.sorted().toList()) {
                String name = copy.getFileName().toString();
                if (name.equals(saved) || name.startsWith(saved + ".") && name.substring(saved.length() + 1)
                        .chars().allMatch(Character::isDigit)) {
                    report.accept("kept       " + base.relative(copy) + " (your changed " + rel + ", saved by an"
                            + " install; delete it yourself if you no longer need it)");
                }
            }
        }
    }

    /**
     * Writes {@code content} to {@code file} by renaming a complete copy into place, so that a failure part way (a
     * full disk, a kill) leaves the old file or none, never a truncated one under its name: Tomcat would start without
     * its settings, or not at all, and the installer would take a truncated jar for the operator's. A symbolic link
     * stays a link (its target is replaced; one to nothing is refused); the old file's permissions and, for a root
     * installer, its owner are kept. Where nothing can be created beside an existing file (a folder the installing
     * user may not write into) it is written in place.
     */
    static void replace(Path file, byte[] content) throws IOException {
        replace(file, content, null);
    }

    /** {@link #replace(Path, byte[])}; a new file gets the permissions of {@code like} ({@link #permitLike}). */
    static void replace(Path file, byte[] content, Path like) throws IOException {
        if (!Files.exists(file) && Files.isSymbolicLink(file)) { // refused before anything is written (install)
            throw new IOException(file + " is a symbolic link to a file that does not exist; not written");
        }
        if (!Files.exists(file)) {
            // created as Files.write creates a file (the umask's mode), not createTempFile's owner-only one
            Path temp = file.resolveSibling("." + file.getFileName() + "." + Long.toUnsignedString(
                    ThreadLocalRandom.current().nextLong(), 36) + ".fairslice-new");
            try {
                Files.write(temp, content, StandardOpenOption.CREATE_NEW);
                if (like != null) {
                    permitLike(temp, like, false);
                }
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
            return;
        }
        Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file;
        Path temp;
        try {
            temp = Files.createTempFile(target.toAbsolutePath().getParent(), "." + target.getFileName() + ".",
                    ".fairslice-new");
        } catch (AccessDeniedException e) {
            Files.write(target, content);
            return;
        }
        try {
            Files.write(temp, content);
            PosixFileAttributeView from = Files.getFileAttributeView(target, PosixFileAttributeView.class);
            PosixFileAttributeView to = Files.getFileAttributeView(temp, PosixFileAttributeView.class);
            if (from != null && to != null) {
                PosixFileAttributes old = from.readAttributes();
                to.setPermissions(old.permissions());
                try {
                    to.setOwner(old.owner());
                    to.setGroup(old.group());
                } catch (IOException notRoot) {
                    // an unprivileged installer's file stays its own, as it was when written in place
                }
            }
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Makes {@code created} (a new file, or a folder: {@code dir}) readable to whoever reads {@code like}
     * (conf/server.xml, which Tomcat reads), whatever the installing user's umask: installed as root with umask 077,
     * the weaver jar was unreadable to a Tomcat running as tomcat. It takes {@code like}'s group and, when the
     * installer may (as root), the owner of the folder it is created in; it keeps the reads it was created with, drops
     * any write but the owner's and adds reads ({@link #permissionsLike}): setenv.sh may be sourced as root.
     * Without POSIX attributes, or where a change is not permitted (a mount that refuses chmod), it stays as created.
     */
    static void permitLike(Path created, Path like, boolean dir) throws IOException {
        PosixFileAttributeView to = Files.getFileAttributeView(created, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributeView from = Files.getFileAttributeView(like, PosixFileAttributeView.class);
        if (to == null || from == null || !Files.exists(like)) {
            return;
        }
        PosixFileAttributes model = from.readAttributes();
        UserPrincipal owner = to.getOwner();
        try {
            UserPrincipal parentOwner = Files.getOwner(created.toAbsolutePath().getParent());
            if (!parentOwner.equals(owner)) {
                to.setOwner(parentOwner);
                owner = parentOwner;
            }
        } catch (IOException notRoot) {
            // an unprivileged installer's file stays its own
        }
        try {
            to.setGroup(model.group());
        } catch (IOException notAMember) {
            // a group the installing user is not in: the file keeps the user's
        }
        try {
            to.setPermissions(permissionsLike(to.readAttributes().permissions(), model.permissions(),
                    !owner.equals(model.owner()), dir));
        } catch (IOException notPermitted) {
            // it stays as created
        }
    }

    /**
     * {@code created}'s permissions with the reads {@code model} gives: read and write for the owner; read for the
     * group where the model's group or, when the file's owner is not the model's ({@code otherOwner}), the model's
     * owner may read (the file has the model's group); read for others where the model's others may; for a folder,
     * search wherever read. No read is taken away, and no write is left beyond the owner's: under umask 002 (a user's
     * own group, Ubuntu's and RHEL's default) a file came group-writable, then had Tomcat's group, and its group could
     * rewrite setenv.sh, which daemon.sh sources as root.
     */
    static Set<PosixFilePermission> permissionsLike(Set<PosixFilePermission> created, Set<PosixFilePermission> model,
                                                    boolean otherOwner, boolean dir) {
        Set<PosixFilePermission> p = EnumSet.noneOf(PosixFilePermission.class);
        p.addAll(created);
        p.remove(PosixFilePermission.GROUP_WRITE);
        p.remove(PosixFilePermission.OTHERS_WRITE);
        p.add(PosixFilePermission.OWNER_READ);
        p.add(PosixFilePermission.OWNER_WRITE);
        if (model.contains(PosixFilePermission.GROUP_READ)
                || otherOwner && model.contains(PosixFilePermission.OWNER_READ)) {
            p.add(PosixFilePermission.GROUP_READ);
        }
        if (model.contains(PosixFilePermission.OTHERS_READ)) {
            p.add(PosixFilePermission.OTHERS_READ);
        }
        if (dir) {
            p.add(PosixFilePermission.OWNER_EXECUTE);
            if (p.contains(PosixFilePermission.GROUP_READ)) {
                p.add(PosixFilePermission.GROUP_EXECUTE);
            }
            if (p.contains(PosixFilePermission.OTHERS_READ)) {
                p.add(PosixFilePermission.OTHERS_EXECUTE);
            }
        }
        return p;
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
