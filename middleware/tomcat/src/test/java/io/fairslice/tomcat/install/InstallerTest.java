package io.fairslice.tomcat.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.tomcat.IpLiterals;
import io.fairslice.tomcat.TomcatSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstallerTest {

    @TempDir
    Path tmp;

    private Path base;
    private Path dist;
    private String out;
    private String err;

    @BeforeEach
    void tomcat() throws Exception {
        base = TestTomcat.base(tmp.resolve("tomcat"), "11.0.25");
        dist = TestTomcat.bundle(tmp.resolve("dist"), "1.0");
    }

    private int run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = Installer.run(List.of(args), new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return status;
    }

    private int install(String... extra) {
        List<String> args = new ArrayList<>(List.of("--catalina-base", base.toString(), "--dist", dist.toString()));
        args.addAll(List.of(extra));
        return run(args.toArray(String[]::new));
    }

    private int uninstall() {
        return run("--catalina-base", base.toString(), "--uninstall");
    }

    /**
     * A stand-in for catalina.sh's JVM: a process whose command line names this base in its -Dcatalina.base (a shell
     * carrying the option as its $0; "; :" keeps the shell, which a bash /bin/sh would replace by sleep, with it).
     */
    private Process standInTomcat() throws IOException {
        return new ProcessBuilder("sh", "-c", "sleep 60; :", "-Dcatalina.base=" + base + "/").start();
    }

    /** Installs with {@code extra}, which must be refused with {@code message} alone, leaving the base as it was. */
    private void assertRefusedWithNothingWritten(String message, String... extra) throws IOException {
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(install(extra)).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: " + message + "\n");
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    private String read(String rel) throws Exception {
        return Files.readString(base.resolve(rel));
    }

    @Test
    void shouldInstallJarsAgentConfigurationMetricsAndSetenvBlocks() throws Exception {
        assertThat(install("--weave", "com.acme..*", "--apps", "/shop,/")).as(err).isZero();

        assertThat(read("lib/fairslice-tomcat-1.0.jar")).isEqualTo("fairslice 1.0");
        assertThat(base.resolve("lib/jna-5.17.0.jar")).exists();
        assertThat(base.resolve("fairslice/aspectjweaver-1.9.24.jar")).exists();
        assertThat(read("conf/fairslice-aop.xml")).contains("<include within=\"com.acme..*\"/>")
                .as("woven classes keep their serialVersionUID").contains("<weaver options=\"-XaddSerialVersionUID\">");
        assertThat(read("conf/fairslice-tomcat.properties")).contains("apps=/shop,/");
        assertThat(read("conf/fairslice.properties")).contains("docs/configuration.md")
                .containsOnlyOnce("\nkernel-probe.enabled=false\n"); // its one active line: the probe's cost is opt-in
        assertThat(read("conf/Catalina/localhost/fairslice.xml"))
                .contains("docBase=\"${catalina.base}/fairslice/metrics-webapp\"");
        assertThat(read("fairslice/metrics-webapp/WEB-INF/web.xml"))
                .contains("io.fairslice.tomcat.metrics.MetricsServlet");
        assertThat(read("bin/setenv.sh")).startsWith("# >>> fairslice >>>\n").endsWith("# <<< fairslice <<<\n")
                .contains("\\\"-javaagent:$CATALINA_BASE/fairslice/aspectjweaver-1.9.24.jar\\\"")
                .contains("\\\"-Dorg.aspectj.weaver.loadtime.configuration=META-INF/aop.xml;META-INF/aop-ajc.xml;"
                        + "org/aspectj/aop.xml;file:$CATALINA_BASE/"
                        + "conf/fairslice-aop.xml\\\"")
                .contains("-Dfairslice.config=$CATALINA_BASE/conf/fairslice.properties");
        assertThat(read("bin/setenv.bat")).contains("\r\n").contains("-javaagent:%CATALINA_BASE%\\fairslice\\");
        assertThat(out).contains("Tomcat 11.0.25.0")
                .contains("metrics: http://127.0.0.1:8080/fairslice/metrics from this host");
    }

    @Test
    void shouldSetUpNoAgentWithoutAWeavingScope() throws Exception {
        assertThat(install()).as(err).isZero();
        assertThat(read("bin/setenv.sh")).doesNotContain("javaagent").contains("-Dfairslice.config=");
        assertThat(base.resolve("fairslice/aspectjweaver-1.9.24.jar")).doesNotExist();
        assertThat(out).contains("no --weave given");
    }

    @Test
    void shouldChangeNothingWhenRunTwice() throws Exception {
        install("--weave", "com.acme..*");
        Map<String, String> first = TestTomcat.snapshot(base);
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(TestTomcat.snapshot(base)).isEqualTo(first);
        assertThat(out).doesNotContain("added ", "updated ", "backed up");
    }

    @Test
    void shouldRemoveExactlyWhatItAddedOnUninstall() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "#!/bin/sh\nexport UMASK=0027\n");
        Files.writeString(base.resolve("lib/postgresql.jar"), "driver");
        Map<String, String> before = TestTomcat.snapshot(base);

        install("--weave", "com.acme..*");
        assertThat(read("bin/setenv.sh")).startsWith("#!/bin/sh\nexport UMASK=0027\n# >>> fairslice >>>\n");
        assertThat(read("bin/setenv.sh.before-fairslice")).isEqualTo("#!/bin/sh\nexport UMASK=0027\n");

        assertThat(uninstall()).as(err).isZero();
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);
    }

    /**
     * Tomcat makes a work folder for every application it deploys, the metrics application's too, and keeps it when
     * the application is removed while Tomcat is stopped: the uninstall left work/Catalina/localhost/fairslice/
     * behind, empty. It is removed while empty (in the host's own workDir too), kept and said with something in it.
     */
    @Test
    void shouldRemoveTheWorkFolderTomcatMadeForTheMetricsApplication() throws Exception {
        Path work = base.resolve("work/Catalina/localhost");
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(install()).as(err).isZero();
        Files.createDirectories(work.resolve("fairslice")); // as Tomcat's start made them
        Files.createDirectories(work.resolve("shop"));
        assertThat(uninstall()).as(err).isZero();
        assertThat(out).contains("removed    work/Catalina/localhost/fairslice/ (Tomcat's work folder of the metrics"
                + " application)");
        assertThat(work.resolve("fairslice")).doesNotExist();
        assertThat(work.resolve("shop")).as("another application's").isDirectory();
        Files.delete(work.resolve("shop"));
        Files.delete(work);
        Files.delete(work.getParent());
        Files.delete(base.resolve("work"));
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);

        assertThat(install()).as(err).isZero();
        Files.createDirectories(work.resolve("fairslice"));
        Files.writeString(work.resolve("fairslice/SESSIONS.ser"), "sessions");
        assertThat(uninstall()).as(err).isZero();
        assertThat(out).contains("kept       work/Catalina/localhost/fairslice/ (Tomcat's work folder of the metrics"
                + " application; not empty)");
        assertThat(work.resolve("fairslice/SESSIONS.ser")).exists();

        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML.replace("appBase=\"webapps\"",
                "appBase=\"webapps\" workDir=\"scratch\""));
        assertThat(install()).as(err).isZero();
        Files.createDirectories(base.resolve("scratch/fairslice"));
        assertThat(uninstall()).as(err).isZero();
        assertThat(base.resolve("scratch/fairslice")).as("the host's workDir").doesNotExist();
    }

    @Test
    void shouldRestoreAFileWithoutFinalNewlineExactly() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "export UMASK=0027");
        Map<String, String> before = TestTomcat.snapshot(base);
        install();
        uninstall();
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);
    }

    /**
     * A setenv.sh without a final newline gets one before the block, which the uninstall takes away again; it took the
     * final newline of the lines the operator had added below the block instead.
     */
    @Test
    void shouldKeepTheLinesAddedBelowTheBlockOfAFileWithoutFinalNewlineExactly() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "export UMASK=0027");
        assertThat(install()).as(err).isZero();
        Files.writeString(base.resolve("bin/setenv.sh"), read("bin/setenv.sh") + "export B=2\n");

        assertThat(uninstall()).as(err).isZero();
        assertThat(read("bin/setenv.sh")).isEqualTo("export UMASK=0027\nexport B=2\n");
    }

    @Test
    void shouldKeepTheOperatorsChangesOnUninstall() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "A=1\n");
        install();
        Files.writeString(base.resolve("conf/fairslice.properties"), "policy=observe\n");
        Files.writeString(base.resolve("bin/setenv.sh"), read("bin/setenv.sh") + "B=2\n");

        assertThat(uninstall()).as(err).isZero();

        assertThat(read("conf/fairslice.properties")).isEqualTo("policy=observe\n");
        assertThat(read("bin/setenv.sh")).isEqualTo("A=1\nB=2\n");
        assertThat(base.resolve("bin/setenv.sh.before-fairslice")).as("backup kept: the file changed").exists();
        assertThat(base.resolve("lib/fairslice-tomcat-1.0.jar")).doesNotExist();
        assertThat(out).contains("kept       conf/fairslice.properties");
    }

    @Test
    void shouldNeverOverwriteTheOperatorsConfiguration() throws Exception {
        install();
        Files.writeString(base.resolve("conf/fairslice.properties"), "policy=observe\n");
        assertThat(install()).isZero();
        assertThat(read("conf/fairslice.properties")).isEqualTo("policy=observe\n");
    }

    @Test
    void shouldReplaceTheOldJarWhenUpgrading() throws Exception {
        install();
        dist = TestTomcat.bundle(tmp.resolve("dist2"), "2.0");
        assertThat(install()).as(err).isZero();
        assertThat(base.resolve("lib/fairslice-tomcat-2.0.jar")).exists();
        assertThat(base.resolve("lib/fairslice-tomcat-1.0.jar")).doesNotExist();
        assertThat(out).as("its own earlier jar is no other version").doesNotContain("is there too");
        uninstall();
        assertThat(base.resolve("lib/fairslice-tomcat-2.0.jar")).doesNotExist();
    }

    /** A JNA the operator put into lib/ stayed there beside fairslice's, two versions on one class path, unsaid. */
    @Test
    void shouldNoteAnotherVersionOfAJarItPutsIntoLib() throws Exception {
        Files.writeString(base.resolve("lib/jna-5.13.0.jar"), "the operator's");
        Files.writeString(base.resolve("lib/jna-platform-5.13.0.jar"), "another artifact");

        assertThat(install()).as(err).isZero();

        assertThat(out).contains("note: lib/jna-5.13.0.jar is there too, not fairslice's: two versions of jna on"
                + " Tomcat's class path, and which one a class is loaded from is not defined; fairslice needs"
                + " lib/jna-5.17.0.jar: keep only the newer one").doesNotContain("jna-platform-5.13.0.jar is");
        assertThat(read("lib/jna-5.13.0.jar")).as("not fairslice's to remove").isEqualTo("the operator's");
    }

    @Test
    void shouldDropTheAgentAndMetricsWhenReinstalledWithoutThem() throws Exception {
        install("--weave", "com.acme..*");
        assertThat(install("--no-metrics")).as(err).isZero();
        assertThat(base.resolve("fairslice/aspectjweaver-1.9.24.jar")).doesNotExist();
        assertThat(base.resolve("conf/fairslice-aop.xml")).doesNotExist();
        assertThat(base.resolve("conf/Catalina/localhost/fairslice.xml")).doesNotExist();
        assertThat(read("bin/setenv.sh")).doesNotContain("javaagent");
    }

    /**
     * A metrics descriptor the operator changed was kept where it was on uninstall, while the metrics folder it points
     * at went: Tomcat then logged SEVERE at every start, deploying it. It is kept renamed, out of Tomcat's way.
     */
    @Test
    void shouldMoveAChangedMetricsDescriptorOutOfTomcatsWayOnUninstall() throws Exception {
        assertThat(install()).as(err).isZero();
        Path descriptor = base.resolve("conf/Catalina/localhost/fairslice.xml");
        String changed = Files.readString(descriptor).replace("</Context>", "  <!-- mine -->\n</Context>");
        Files.writeString(descriptor, changed);

        assertThat(uninstall()).as(err).isZero();

        assertThat(descriptor).doesNotExist();
        assertThat(read("conf/Catalina/localhost/fairslice.xml.kept")).isEqualTo(changed);
        assertThat(out).contains("kept       conf/Catalina/localhost/fairslice.xml.kept"
                + " (conf/Catalina/localhost/fairslice.xml changed since fairslice wrote it; renamed");
        assertThat(base.resolve("fairslice/metrics-webapp")).doesNotExist();
    }

    /**
     * The operator's own /fairslice descriptor, which an install before 2026-12-07 backed up and replaced (one now
     * refuses: shouldRefuseToDeployTheMetricsApplicationOverAnApplicationNotItsOwn): when the installed one was
     * changed too, uninstall kept that one renamed and left the original in its backup, unnamed (its application gone).
     */
    @Test
    void shouldPutTheOperatorsOwnDescriptorBackWhenTheInstalledOneWasChanged() throws Exception {
        Path descriptor = base.resolve("conf/Catalina/localhost/fairslice.xml");
        assertThat(install()).as(err).isZero();
        String own = "<Context docBase=\"/srv/my-fairslice\"/>\n";
        Files.writeString(descriptor.resolveSibling("fairslice.xml.before-fairslice"), own);
        Files.writeString(base.resolve(InstallRecord.FILE), "backup\tconf/Catalina/localhost/fairslice.xml\t"
                + "conf/Catalina/localhost/fairslice.xml.before-fairslice\n", StandardOpenOption.APPEND);
        Files.writeString(descriptor, Files.readString(descriptor).replace("</Context>", "<!-- x --></Context>"));

        assertThat(uninstall()).as(err).isZero();

        assertThat(Files.readString(descriptor)).isEqualTo(own);
        assertThat(base.resolve("conf/Catalina/localhost/fairslice.xml.kept")).content().contains("<!-- x -->");
        assertThat(out).contains("restored   conf/Catalina/localhost/fairslice.xml from");
    }

    /**
     * Tomcat deploys a context descriptor before a folder or WAR of its name: the operator's own application at
     * /fairslice was out of reach behind the metrics application until the uninstall (their own descriptor replaced).
     * Refused, naming it, before anything is written; with --no-metrics, or once it is fairslice's, the install goes
     * on.
     */
    @Test
    void shouldRefuseToDeployTheMetricsApplicationOverAnApplicationNotItsOwn() throws Exception {
        Path descriptor = base.resolve("conf/Catalina/localhost/fairslice.xml");
        Files.createDirectories(descriptor.getParent());
        for (String own : List.of("webapps/fairslice", "webapps/fairslice##2.war", "conf/Catalina/localhost/"
                + "fairslice.xml")) {
            Path app = base.resolve(own);
            if (own.endsWith("fairslice")) {
                Files.createDirectories(app);
            } else {
                Files.createDirectories(app.getParent());
                Files.writeString(app, "<Context docBase=\"/srv/my-fairslice\"/>\n");
            }
            assertRefusedWithNothingWritten(app + " deploys an application at /fairslice that is not fairslice's:"
                    + " fairslice's metrics application (/fairslice/metrics) would take its place until an uninstall."
                    + " Move that application to another context path, or install with --no-metrics; nothing was"
                    + " changed");
            Files.delete(app);
        }
        Files.createDirectories(base.resolve("webapps/fairslice"));
        assertThat(install("--no-metrics")).as(err).isZero();
        Files.delete(base.resolve("webapps/fairslice"));
        assertThat(install()).as(err).isZero();
        assertThat(install()).as("its own descriptor, listed in the record").isZero();
        Files.delete(base.resolve(InstallRecord.FILE));
        assertThat(install()).as("its own descriptor, by its words (the record deleted by hand): " + err).isZero();
    }

    /** A failure part way (here: setenv.bat is a folder), then the rerun the error asks for, then an uninstall. */
    @Test
    void shouldKnowWhatAFailedInstallWroteWhenRunAgainAndOnUninstall() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Map<String, String> before = TestTomcat.snapshot(base);
        Files.createDirectory(base.resolve("bin/setenv.bat"));
        assertThat(install("--weave", "com.acme..*")).as("the failed attempt").isNotZero();
        assertThat(base.resolve("lib/fairslice-tomcat-1.0.jar")).as("written before the failure").exists();
        Files.delete(base.resolve("bin/setenv.bat"));

        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).contains("unchanged  lib/fairslice-tomcat-1.0.jar").doesNotContain("not fairslice's");
        assertThat(uninstall()).as(err).isZero();
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);
        assertThat(base.resolve("fairslice")).as("its folder, recorded too").doesNotExist();
    }

    /**
     * catalina.sh runs $CATALINA_BASE/bin/setenv.sh if there is one, else $CATALINA_HOME's: a setenv.sh the installer
     * creates in an instance must run the installation's itself, or its settings (JAVA_HOME, heap) are lost.
     */
    @Test
    void shouldKeepTheInstallationsSetenvRunningWhenItCreatesTheInstancesOwn() throws Exception {
        Path home = tmp.resolve("home");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/setenv.sh"), "CATALINA_OPTS=\"-Xmx3g\"\n");
        assertThat(install()).as(err).isZero();

        // as catalina.sh does it: source the instance's setenv.sh, then use CATALINA_OPTS
        ProcessBuilder pb = new ProcessBuilder("sh", "-c",
                ". \"$CATALINA_BASE/bin/setenv.sh\"; printf %s \"$CATALINA_OPTS\"").redirectErrorStream(true);
        pb.environment().put("CATALINA_BASE", base.toString());
        pb.environment().put("CATALINA_HOME", home.toString());
        pb.environment().remove("CATALINA_OPTS");
        Process p = pb.start();
        String opts = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(opts).isZero();
        assertThat(opts).startsWith("-Xmx3g ").contains("-Dfairslice.config=" + base + "/conf/fairslice.properties");

        pb.environment().put("CATALINA_HOME", base.toString()); // one directory for both: no loop, nothing twice
        p = pb.start();
        opts = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(opts).isZero();
        assertThat(opts).doesNotContain("-Xmx3g").containsOnlyOnce("-Dfairslice.config=");
        assertThat(read("bin/setenv.bat")).contains("call \"%CATALINA_HOME%\\bin\\setenv.bat\"");

        // the same directory written otherwise (a trailing slash, a link to it): the file sourced itself forever
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), base);
        for (String same : List.of(base + "/", alias.toString())) {
            assertThat(catalinaOpts(same, base)).as(same).containsOnlyOnce(
                    "-Dfairslice.config=" + base + "/conf/fairslice.properties");
        }
    }

    /**
     * A kill after the installer created setenv.sh, before it recorded that: the rerun took the file for the
     * operator's, and its block lost the lines that run the installation's setenv.sh (and uninstall left the file).
     */
    @Test
    void shouldRecogniseTheSetenvItCreatedWhenTheRecordLacksIt() throws Exception {
        assertThat(install()).as(err).isZero();
        String created = read("bin/setenv.sh");
        assertThat(created).contains(". \"$CATALINA_HOME/bin/setenv.sh\"");
        Files.delete(base.resolve("fairslice/install-record.txt"));

        assertThat(install()).as(err).isZero();
        assertThat(read("bin/setenv.sh")).isEqualTo(created);
        assertThat(read("bin/setenv.bat")).contains("call \"%CATALINA_HOME%\\bin\\setenv.bat\"");
        assertThat(uninstall()).as(err).isZero();
        assertThat(base.resolve("bin/setenv.sh")).as("removed: fairslice created it").doesNotExist();
        assertThat(base.resolve("bin/setenv.sh.before-fairslice")).as("no backup of fairslice's own").doesNotExist();
    }

    /**
     * Installed into a directory that is also the CATALINA_HOME of other instances (the user guide's /opt/tomcat):
     * catalina.sh runs its bin/setenv.sh for every instance without one of its own, and the block named files below
     * their $CATALINA_BASE, where nothing was installed: the JVM refused to start on the missing -javaagent.
     */
    @Test
    void shouldApplyTheBlockOnlyToTheInstanceItWasInstalledInto() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/catalina.sh"), "#!/bin/sh\n");
        Path other = Files.createDirectories(tmp.resolve("other"));
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        String printed = out;

        assertThat(catalinaOpts(base.toString(), other)).as("another instance sharing it as its home").isEmpty();
        assertThat(catalinaOpts(base.toString(), base)).contains(
                "-javaagent:" + base + "/fairslice/aspectjweaver-1.9.24.jar",
                "-Dfairslice.config=" + base + "/conf/fairslice.properties");
        assertThat(printed).contains("note: " + base + " is also a CATALINA_HOME");
        // an unpacked distribution, the user guide's single /opt/tomcat, gets it too: say when it applies
        assertThat(printed).as("the note of a lone Tomcat").contains("nothing to do if only this Tomcat runs from it",
                "if other Tomcat instances use it as their CATALINA_HOME");
        assertThat(read("bin/setenv.bat")).contains("if exist \"%CATALINA_BASE%\\fairslice\\install-record.txt\" set");
    }

    /**
     * The user guide's layout done in two steps, as the installer's note suggests: fairslice installed into the
     * installation (/opt/tomcat, which had no setenv.sh), then into an instance that uses it as its CATALINA_HOME. The
     * installation's setenv.sh, run from the instance's, sourced itself until the shell crashed (catalina.sh exited
     * 139), and its block added the installation's options to the instance (a -javaagent the instance does not have,
     * or every option twice). Each block now acts only in the instance whose setenv file holds it, and once.
     */
    @Test
    void shouldApplyEachInstallsBlockOnceWhenTheInstallationAndAnInstanceBothHaveIt() throws Exception {
        Path home = TestTomcat.base(tmp.resolve("home"), "11.0.25");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/catalina.sh"), "#!/bin/sh\n");
        assertThat(run("--catalina-base", home.toString(), "--dist", dist.toString(), "--weave", "com.acme..*"))
                .as(err).isZero();
        Files.writeString(home.resolve("bin/setenv.sh"), "CATALINA_OPTS=\"$CATALINA_OPTS -Xmx3g\"\n"
                + Files.readString(home.resolve("bin/setenv.sh"))); // the operator's own line, above the block
        String config = "-Dfairslice.config=" + base + "/conf/fairslice.properties";

        assertThat(install("--catalina-home", home.toString())).as(err).isZero(); // the instance, not woven
        assertThat(catalinaOpts(home.toString(), base)).as("the instance, without weaving").containsOnlyOnce("-Xmx3g")
                .containsOnlyOnce(config).noneMatch(o -> o.startsWith("-javaagent:"));

        assertThat(install("--catalina-home", home.toString(), "--weave", "com.acme.shop..*")).as(err).isZero();
        List<String> opts = catalinaOpts(home.toString(), base);
        assertThat(opts).as("the instance, woven").containsOnlyOnce("-Xmx3g").containsOnlyOnce(config)
                .containsOnlyOnce("-javaagent:" + base + "/fairslice/aspectjweaver-1.9.24.jar")
                .filteredOn(o -> o.startsWith("-javaagent:")).hasSize(1);

        assertThat(catalinaOpts(home.toString(), home)).as("the installation itself").containsOnlyOnce("-Xmx3g")
                .containsOnlyOnce("-Dfairslice.config=" + home + "/conf/fairslice.properties")
                .containsOnlyOnce("-javaagent:" + home + "/fairslice/aspectjweaver-1.9.24.jar");

        // an instance whose own setenv.sh (not the installer's) runs the installation's, as operators write them
        Path own = TestTomcat.base(tmp.resolve("own"), null);
        Files.createDirectories(own.resolve("bin"));
        Files.writeString(own.resolve("bin/setenv.sh"), ". \"$CATALINA_HOME/bin/setenv.sh\"\n");
        assertThat(catalinaOpts(home.toString(), own)).as("an instance without fairslice").containsExactly("-Xmx3g");
    }

    /**
     * A setenv.sh the installer created, to which the operator added a line (as docs/tomcat.md suggests for JDK 24's
     * flag): the uninstall kept the file for that line but dropped, with the block, the lines that ran the
     * installation's setenv.sh, so the instance started without its heap and JAVA_HOME, without a word.
     */
    @Test
    void shouldKeepRunningTheInstallationsSetenvWhenItKeepsACreatedFileWithTheOperatorsLines() throws Exception {
        Path home = TestTomcat.base(tmp.resolve("home"), "11.0.25");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/setenv.sh"), "CATALINA_OPTS=\"-Xmx256m\"\n");
        assertThat(install("--catalina-home", home.toString())).as(err).isZero();
        Files.writeString(base.resolve("bin/setenv.sh"), "CATALINA_OPTS=\"$CATALINA_OPTS -Dmine=1\"\n",
                StandardOpenOption.APPEND);
        Files.writeString(base.resolve("bin/setenv.bat"), "set \"CATALINA_OPTS=%CATALINA_OPTS% -Dmine=1\"\r\n",
                StandardOpenOption.APPEND);

        assertThat(uninstall()).as(err).isZero();
        assertThat(catalinaOpts(home.toString(), base)).containsExactly("-Xmx256m", "-Dmine=1");
        assertThat(out).contains("updated    bin/setenv.sh (removed fairslice's block; kept the lines that run"
                + " $CATALINA_HOME/bin/setenv.sh, as catalina.sh does for an instance without a setenv.sh");
        assertThat(read("bin/setenv.bat")).contains("call \"%CATALINA_HOME%\\bin\\setenv.bat\"")
                .doesNotContain("fairslice >>>");
        assertThat(read("bin/setenv.sh")).doesNotContain("fairslice >>>", "fairslice.config");
    }

    /**
     * A first install while Tomcat runs goes ahead ("install, then restart"), but a running Tomcat deploys the new
     * metrics descriptor at once and fails to start its servlet, in a jar it has not read: the installer says so,
     * once, for the run that wrote the descriptor.
     */
    @Test
    void shouldSayThatARunningTomcatFailsToDeployTheNewMetricsApplicationUntilItsRestart() throws Exception {
        Process tomcat = standInTomcat();
        try {
            assertThat(install()).as(err).isZero();
            assertThat(out).contains("note: Tomcat is running from " + base, "fails (SEVERE in its log");
            assertThat(install()).as(err).isZero();
            assertThat(out).as("the descriptor was there").doesNotContain("note: Tomcat is running");
        } finally {
            tomcat.destroy();
            tomcat.waitFor();
        }
    }

    /**
     * A re-run under a running Tomcat that drops --weave, or an upgrade, deleted the agent or the jar its JVM still
     * reads, as an uninstall did (below): held back the same way. A re-run that deletes nothing goes ahead (a first
     * install, the same options, a new scope), as the usual "install, then restart" needs.
     */
    @Test
    void shouldRefuseAReinstallThatDeletesAJarWhileATomcatRunsFromTheBase() throws Exception {
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        Process tomcat = standInTomcat();
        try {
            assertThat(install("--weave", "com.shop..*")).as(err).isZero();
            Map<String, String> installed = TestTomcat.snapshot(base);

            assertThat(install()).as(out).isEqualTo(2);
            assertThat(err).contains("Tomcat is running from " + base + " (process " + tomcat.pid()
                    + "): stop it first").contains("deletes fairslice/aspectjweaver-1.9.24.jar of the last one");
            dist = TestTomcat.bundle(tmp.resolve("dist2"), "2.0");
            assertThat(install("--weave", "com.shop..*")).as(out).isEqualTo(2);
            assertThat(err).contains("deletes lib/fairslice-tomcat-1.0.jar of the last one");
            assertThat(TestTomcat.snapshot(base)).as("nothing changed").isEqualTo(installed);
        } finally {
            tomcat.destroy();
            tomcat.waitFor();
        }
        assertThat(install()).as(err).isZero();
        assertThat(base.resolve("fairslice/aspectjweaver-1.9.24.jar")).doesNotExist();
    }

    /**
     * An uninstall under a running Tomcat deleted the weaving agent its JVM still reads: at its shutdown AspectJ logged
     * SEVERE errors and left ajcore dumps behind. A process that names this base in its -Dcatalina.base (a stand-in
     * for catalina.sh's JVM: a shell carrying the option as its $0) holds the uninstall back until it has ended.
     */
    @Test
    void shouldRefuseToUninstallWhileATomcatRunsFromTheBase() throws Exception {
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        Map<String, String> installed = TestTomcat.snapshot(base);
        Process tomcat = standInTomcat();
        try {
            assertThat(uninstall()).as(out).isEqualTo(2);
            assertThat(err).contains("Tomcat is running from " + base + " (process " + tomcat.pid()
                    + "): stop it first");
            assertThat(TestTomcat.snapshot(base)).as("nothing changed").isEqualTo(installed);
        } finally {
            tomcat.destroy();
            tomcat.waitFor();
        }
        assertThat(uninstall()).as(err).isZero();
        assertThat(base.resolve("fairslice")).doesNotExist();
    }

    /** CATALINA_OPTS as the JVM gets them from catalina.sh: the setenv.sh it runs sourced, the options eval'd. */
    private static List<String> catalinaOpts(String home, Path instance) throws Exception {
        String setenv = Files.exists(instance.resolve("bin/setenv.sh")) ? instance.toString() : home;
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", ". \"" + setenv + "/bin/setenv.sh\";"
                + " eval \"set -- $CATALINA_OPTS\"; for o in \"$@\"; do printf '%s\\n' \"$o\"; done")
                .redirectErrorStream(true);
        pb.environment().put("CATALINA_HOME", home);
        pb.environment().put("CATALINA_BASE", instance.toString());
        pb.environment().remove("CATALINA_OPTS");
        Process p = pb.start();
        p.getOutputStream().close();
        boolean finished = p.waitFor(20, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        assertThat(finished).as("setenv.sh finished").isTrue();
        String opts = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(opts).isZero();
        return opts.lines().toList();
    }

    @Test
    void shouldLeaveASetenvFileThatIsNotUtf8ByteForByte() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        byte[] cp1252 = "rem Gr\u00f6\u00dfe\r\nset JAVA_OPTS=-Xmx1g\r\n"
                .getBytes(Charset.forName("windows-1252"));
        Files.write(base.resolve("bin/setenv.bat"), cp1252);
        assertThat(install()).as(err).isZero();
        assertThat(uninstall()).as(err).isZero();
        assertThat(Files.readAllBytes(base.resolve("bin/setenv.bat"))).isEqualTo(cp1252);
    }

    @Test
    void shouldSaveTheOperatorsChangesToAFileItWritesEveryTimeAndNotRestoreThem() throws Exception {
        install();
        String ours = read("conf/fairslice-tomcat.properties");
        Files.writeString(base.resolve("conf/fairslice-tomcat.properties"), "apps=/a\n");
        assertThat(install()).as(err).isZero();
        Files.writeString(base.resolve("conf/fairslice-tomcat.properties"), "apps=/b\n");
        assertThat(install()).as(err).isZero();
        assertThat(read("conf/fairslice-tomcat.properties")).isEqualTo(ours);
        assertThat(read("conf/fairslice-tomcat.properties.changed")).isEqualTo("apps=/a\n");
        assertThat(read("conf/fairslice-tomcat.properties.changed.1")).isEqualTo("apps=/b\n");

        assertThat(uninstall()).as(err).isZero();
        assertThat(base.resolve("conf/fairslice-tomcat.properties")).as("fairslice's, removed").doesNotExist();
        assertThat(base.resolve("conf/fairslice-tomcat.properties.changed")).as("the operator's, kept").exists();
        assertThat(out).as("and said so").contains("kept       conf/fairslice-tomcat.properties.changed (your changed"
                + " conf/fairslice-tomcat.properties, saved by an install;")
                .contains("kept       conf/fairslice-tomcat.properties.changed.1 (");
    }

    @Test
    void shouldReplaceAConfigurationTemplateNobodyChangedWithTheNewOne() throws Exception {
        install();
        String template = read("conf/fairslice.properties");
        String older = "# an older fairslice's template\n";
        Files.writeString(base.resolve("conf/fairslice.properties"), older);
        Path record = base.resolve("fairslice/install-record.txt");
        Files.writeString(record, Files.readString(record).replace(Installation.sha256(Installation.utf8(template)),
                Installation.sha256(Installation.utf8(older))));

        assertThat(install()).as(err).isZero();
        assertThat(read("conf/fairslice.properties")).isEqualTo(template);
        assertThat(out).contains("updated    conf/fairslice.properties");
    }

    @Test
    void shouldRefuseAnEmptyListOfApplications() {
        assertThat(install("--apps", "")).isNotZero();
        assertThat(err).contains("--apps needs at least one context path, or * for every application; got ''");
    }

    /**
     * Tomcat's manager names the ROOT application /ROOT, but its context path is /: --apps /ROOT was taken, with a
     * note that fairslice would start in it once something was deployed there, and selected no application at all.
     */
    @Test
    void shouldRefuseTheRootApplicationWrittenAsTomcatsManagerNamesIt() throws Exception {
        Files.createDirectories(base.resolve("webapps/ROOT"));
        assertRefusedWithNothingWritten("--apps /ROOT: the ROOT application's context path is /; write --apps /",
                "--apps", "/shop,/ROOT");
        assertThat(install("--apps", "/shop,/")).as(err).isZero();
        assertThat(read("conf/fairslice-tomcat.properties")).contains("\napps=/shop,/\n");
    }

    /**
     * A webapps folder my+app is deployed at /my+app: the check took only letters, digits and ._~- and refused it.
     * What the settings file cannot carry is still refused, with nothing written.
     */
    @Test
    void shouldTakeAContextPathTomcatDeploysAFolderWithAPlusAt() throws Exception {
        Files.createDirectories(base.resolve("webapps/my+app"));
        assertRefusedWithNothingWritten("--apps /my\\app is not a context path: use /shop, / for the ROOT"
                + " application, or * for every application (a path cannot hold a comma, a backslash, a *, a # or a"
                + " control character; webapps/shop#admin serves /shop/admin, and shop##2 serves /shop)", "--apps",
                "/my\\app");
        Files.createDirectories(base.resolve("webapps/shop#admin"));
        assertRefusedWithNothingWritten("--apps /shop#admin is not a context path: use /shop, / for the ROOT"
                + " application, or * for every application (" + TomcatSettings.PATH_RULE + ")", "--apps",
                "/shop#admin");

        assertThat(install("--apps", "/my+app")).as(err).isZero();
        assertThat(read("conf/fairslice-tomcat.properties")).contains("\napps=/my+app\n");
        assertThat(out).doesNotContain("no such application");
        assertThat(TomcatSettings.load(base).selects("/my+app")).isTrue();
    }

    /**
     * An empty shell variable (`--catalina-base "$CATALINA_BASE"`) was the current directory: the installer installed
     * into whatever Tomcat that was. Each folder option refuses a blank value, and nothing is written.
     */
    @Test
    void shouldRefuseABlankFolder() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(run("--catalina-base", "", "--dist", dist.toString())).isEqualTo(2);
        assertThat(err).contains("--catalina-base needs a folder; got ''");
        assertThat(install("--catalina-home", " ")).isEqualTo(2);
        assertThat(err).contains("--catalina-home needs a folder; got ' '");
        assertThat(run("--catalina-base", base.toString(), "--dist", "")).isEqualTo(2);
        assertThat(err).contains("--dist needs a folder; got ''");
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    /** A --dist that is no bundle is refused naming --dist: "DIR is not a fairslice bundle" did not say which. */
    @Test
    void shouldNameDistWhenItIsNoBundle() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        Path missing = tmp.resolve("no-such-dist");
        assertThat(run("--catalina-base", base.toString(), "--dist", missing.toString())).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: --dist " + missing + ": no such folder\n");
        Path file = Files.writeString(tmp.resolve("a-file"), "");
        assertThat(run("--catalina-base", base.toString(), "--dist", file.toString())).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: --dist " + file + ": not a folder\n");
        assertThat(run("--catalina-base", base.toString(), "--dist", base.toString())).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: --dist " + base + " is not a fairslice bundle:"
                + " lib/fairslice-tomcat-*.jar is missing (build it with ./mvnw package -pl middleware/tomcat -am)\n");
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    /**
     * A folder option given twice: the last one was taken without a word (a script's --catalina-base, then the
     * operator's, installed into the operator's alone). Refused naming both, and nothing is written in either.
     */
    @Test
    void shouldRefuseAFolderOptionGivenTwice() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        Path other = base.resolveSibling("other-base");
        assertThat(install("--catalina-base", other.toString())).isEqualTo(2);
        assertThat(err).contains("--catalina-base given twice, '" + base + "' and '" + other + "'");
        assertThat(install("--dist", dist.toString())).isEqualTo(2);
        assertThat(err).contains("--dist given twice, '" + dist + "' and '" + dist + "'");
        assertThat(install("--catalina-home", "/opt/a", "--catalina-home", "/opt/b")).isEqualTo(2);
        assertThat(err).contains("--catalina-home given twice, '/opt/a' and '/opt/b'");
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
        assertThat(other).doesNotExist();
    }

    /** An empty --metrics-ports (an unset shell variable) read as "this host only", as --apps and --weave refuse. */
    @Test
    void shouldRefuseAnEmptyMetricsPorts() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(install("--metrics-ports", "")).isEqualTo(2);
        assertThat(err).contains("--metrics-ports needs at least one port such as 9404; got '' (leave --metrics-ports"
                + " out for this host only)");
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    /**
     * A port the metrics application would refuse at Tomcat's start: Integer.parseInt took a sign and other scripts'
     * digits, and the install wrote them down as 9404.
     */
    @Test
    void shouldRefuseAMetricsPortNotInDigitsZeroToNine() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        for (String port : List.of("+9404", "\u0669\u0664\u0660\u0664", "9404x")) {
            assertThat(install("--metrics-ports", "8080," + port)).as(port).isEqualTo(2);
            assertThat(err).contains("--metrics-ports " + port + " is not a port number (digits 0-9)");
        }
        for (String port : List.of("0", "65536")) { // digits, but no TCP port
            assertThat(install("--metrics-ports", port)).as(port).isEqualTo(2);
            assertThat(err).contains("--metrics-ports " + port + " is not a TCP port (1..65535)");
        }
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    /**
     * --metrics-ports beside --no-metrics was dropped in silence: no endpoint was installed to open. Options that
     * exclude each other are a command line of the wrong form, refused with the usage, as serve, study and probe refuse
     * theirs; install's were refused without it.
     */
    @Test
    void shouldRefuseMetricsPortsWithoutMetrics() {
        assertThat(install("--no-metrics", "--metrics-ports", "9404")).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: --metrics-ports opens the metrics endpoint on connectors,"
                + " --no-metrics installs none: give one of them\n" + InstallOptions.USAGE);
    }

    /** --uninstall beside an install's option: refused with the usage, as --metrics-ports with --no-metrics is. */
    @Test
    void shouldRefuseUninstallWithAnInstallsOptionWithTheUsage() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(run("--catalina-base", base.toString(), "--uninstall", "--weave", "com.acme..*")).isEqualTo(2);
        assertThat(err).isEqualTo("fairslice install: --uninstall takes only --catalina-base (and --catalina-home): it"
                + " removes what the install record lists\n" + InstallOptions.USAGE);
        assertThat(TestTomcat.snapshot(base)).as("nothing written").isEqualTo(before);
    }

    /** An empty shell variable (`--weave "$SCOPE"`): it installed without the agent and said no --weave was given. */
    @Test
    void shouldRefuseAnEmptyWeavingScope() {
        assertThat(install("--weave", "")).isEqualTo(2);
        assertThat(err).contains("--weave needs a package pattern such as com.acme..*; got ''");
    }

    /** A misspelt --apps path was taken in silence, and fairslice then started in no application at all. */
    @Test
    void shouldNoteAnApplicationThatIsNotDeployedUnderItsContextPath() throws Exception {
        Files.createDirectories(base.resolve("webapps/shop"));
        Files.writeString(base.resolve("webapps/reports.war"), "a WAR");
        Files.createDirectories(base.resolve("conf/Catalina/localhost"));
        Files.writeString(base.resolve("conf/Catalina/localhost/a#b.xml"), "<Context docBase=\"/srv/ab\"/>");

        assertThat(install("--apps", "/shop,/reports,/a/b,/shp")).as(err).isZero();

        assertThat(out).contains("note: --apps /shp: no such application in webapps/ or conf/Catalina/localhost/ now"
                        + " (they hold /a/b, /reports, /shop); fairslice starts in it once it is deployed at that"
                        + " context path (a typo?)\n")
                .doesNotContain("--apps /shop:", "--apps /reports:", "--apps /a/b:");
        assertThat(install("--apps", "*")).as(err).isZero();
        assertThat(out).doesNotContain("no such application");
    }

    /**
     * An application named in --apps that the --weave check could not look into is said, with the applications that
     * are there: --apps /shopp (not deployed) skipped the check without a word, and the only note, about the typo,
     * named no application that was there. Not a refusal: an application may be deployed after the install.
     */
    @Test
    void shouldSayForWhichNamedApplicationTheWeavingScopeWasNotChecked() throws Exception {
        shopWithCart();
        Files.createDirectories(base.resolve("webapps/ROOT"));
        Files.createDirectories(base.resolve("conf/Catalina/localhost"));
        Files.writeString(base.resolve("conf/Catalina/localhost/a#b.xml"), "<Context docBase=\"/srv/ab\"/>");
        String unchecked = "; --weave was not checked against it (once it runs, the weaving line of its log"
                + " names a pattern that matches none of its classes)";

        assertThat(install("--apps", "/shopp", "--weave", "com.acme..*")).as(err).isZero();

        assertThat(out).contains("note: --apps /shopp: no such application in webapps/ or conf/Catalina/localhost/"
                + " now (they hold /, /a/b, /shop); fairslice starts in it once it is deployed at that context path"
                + " (a typo?)" + unchecked + "\n");
        assertThat(out.lines().filter(l -> l.contains("note: "))).as(out).hasSize(1);

        // deployed, but from a descriptor whose docBase the installer does not look into; /shop is checked
        assertThat(install("--apps", "/shop,/a/b,/shopp", "--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).contains("note: --apps /a/b: deployed by a context descriptor in conf/Catalina/localhost/,"
                + " not from webapps/, where the installer looks for classes" + unchecked + "\n",
                "note: --apps /shopp: no such application").doesNotContain("--apps /shop:", "note: --weave");

        // without --weave there is nothing to check
        assertThat(install("--apps", "/a/b,/shopp")).as(err).isZero();
        assertThat(out).doesNotContain("--weave was not checked", "note: --apps /a/b");
    }

    /** Every application (the default --apps *) with none in appBase: the --weave check was skipped without a word. */
    @Test
    void shouldSayTheWeavingScopeWasNotCheckedWhenAppBaseHoldsNoApplication() throws Exception {
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();

        assertThat(out).contains("note: no application in webapps/ now, so --weave was not checked against any (once"
                + " they run, the weaving line of each one's log names a pattern that matches none of its"
                + " classes)\n");
        Files.createDirectories(base.resolve("webapps/shop"));
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).doesNotContain("--weave was not checked").contains("note: --weave com.acme..*: no class of it"
                + " in [shop]");
    }

    /**
     * An application, a pattern or a port given twice (in one list, or with the option repeated) counts once: the
     * note of an application listed twice named it twice, and the settings and the scope file had it twice.
     */
    @Test
    void shouldTakeAValueGivenTwiceOnce() throws Exception {
        shopWithCart();

        assertThat(install("--apps", "/shop,/shp,/shp", "--apps", "/shp", "--weave", "com.acmee..*,com.acmee..*",
                "--weave", "com.acmee..*", "--metrics-ports", "8080,8080")).as(err).isZero();

        assertThat(out.lines().filter(l -> l.contains("note: --apps /shp:"))).as(out).hasSize(1);
        assertThat(out.lines().filter(l -> l.contains("note: --weave com.acmee..*:"))).as(out).hasSize(1);
        assertThat(read("conf/fairslice-tomcat.properties")).contains("\napps=/shop,/shp\n");
        assertThat(read("conf/fairslice-aop.xml").lines().filter(l -> l.contains("<include"))).as("scope file")
                .containsExactly("    <include within=\"com.acmee..*\"/>");
        assertThat(install("--apps", "/shop,/shp", "--weave", "com.acmee..*", "--metrics-ports", "8080")).as(err)
                .isZero();
        assertThat(out).as("each given once: the same options").doesNotContain("note: --apps is",
                "note: the weaving scope", "note: --metrics-ports is");
    }

    /**
     * A parallel deployment's version ({@code shop##2}) is no part of its context path: Tomcat serves it at /shop,
     * and the installer said there was no /shop and that its classes were in no application.
     */
    @Test
    void shouldTakeAVersionedApplicationForItsContextPath() throws Exception {
        Files.createDirectories(base.resolve("webapps"));
        Files.write(base.resolve("webapps/shop##2.war"),
                zip("WEB-INF/classes/com/acme/shop/Cart.class", new byte[] {1}));
        Files.createDirectories(base.resolve("webapps/ROOT##7/WEB-INF/classes/com/acme/home"));
        Files.write(base.resolve("webapps/ROOT##7/WEB-INF/classes/com/acme/home/Index.class"), new byte[] {1});
        Files.createDirectories(base.resolve("conf/Catalina/localhost"));
        Files.writeString(base.resolve("conf/Catalina/localhost/a#b##001.xml"), "<Context docBase=\"/srv/ab\"/>");

        assertThat(install("--apps", "/shop,/,/a/b", "--weave", "com.acme.shop..*,com.acme.home..*")).as(err).isZero();

        assertThat(out).doesNotContain("no such application", "note: --weave", "note: --apps /shop", "note: --apps /:")
                .contains("note: --apps /a/b: deployed by a context descriptor");
        assertThat(install("--apps", "/shop", "--weave", "com.acme.home..*")).as(err).isZero();
        assertThat(out).contains("note: --weave com.acme.home..*: no class of it in [shop##2.war] in webapps/ now");
    }

    /**
     * A misspelt --weave package wove nothing, and said so only at runtime, where the installer's default --apps *
     * also made a warning of it in each of Tomcat's own applications; the installer looks in the applications on disk.
     */
    @Test
    void shouldNoteAWeavingPatternThatNoApplicationOnDiskHoldsAClassOf() throws Exception {
        shopWithCart();
        Files.createDirectories(base.resolve("webapps/api/WEB-INF/lib"));
        Files.write(base.resolve("webapps/api/WEB-INF/lib/api.jar"),
                zip("com/example/api/Search.class", new byte[] {1}));
        Files.write(base.resolve("webapps/legacy.war"), zip("WEB-INF/classes/com/war/Page.class", new byte[] {1},
                "WEB-INF/lib/old.jar", zip("com/legacy/Old.class", new byte[] {1})));
        Files.createDirectories(base.resolve("webapps/ROOT"));

        assertThat(install("--weave",
                "com.acme..*,com.example.api..*,com.legacy.*,com.war.Page,com.acmee..*,org.apache.jsp..*"))
                .as(err).isZero();

        assertThat(out).contains("note: --weave com.acmee..*: no class of it in [ROOT, api, legacy.war, shop] in"
                + " webapps/ now, so nothing is woven for it there (a typo?)");
        assertThat(out.lines().filter(l -> l.contains("note: --weave"))).as(out).hasSize(1);
        install("--weave", "com.acme..*,com.example.api..*", "--apps", "/shop");
        assertThat(out).contains("note: --weave com.example.api..*: no class of it in [shop] in webapps/ now")
                .doesNotContain("--weave com.acme..*:");

        // a package written as the user thinks of it, without a wildcard, is a class name to AspectJ: it wove nothing
        // and the note only asked about a typo
        install("--weave", "com.acme.shop,com.legacy");
        assertThat(out).contains("note: --weave com.acme.shop: no class of that name, but a package in [ROOT, api,"
                + " legacy.war, shop]: did you mean com.acme.shop..* (it and its subpackages) or com.acme.shop.* (its"
                + " classes only)?", "note: --weave com.legacy: no class of that name, but a package");

        // com.acme.* is com.acme's own classes, as the middleware weaves them: the shop's are in com.acme.shop
        install("--weave", "com.acme.*,com.acme.shop.*,com.example.*,com.example.api.*,com.war.*,com.legacy.*");
        assertThat(out).contains("note: --weave com.acme.*: no class directly in that package in [ROOT, api,"
                + " legacy.war, shop], only in its subpackages: did you mean com.acme..* (it and its subpackages)?",
                "note: --weave com.example.*: no class directly in that package");
        assertThat(out.lines().filter(l -> l.contains("note: --weave"))).as(out).hasSize(2);
    }

    /** An application folder, webapps/shop, with one class: com.acme.shop.Cart. */
    private void shopWithCart() throws IOException {
        Path classes = base.resolve("webapps/shop/WEB-INF/classes/com/acme/shop");
        Files.createDirectories(classes);
        Files.write(classes.resolve("Cart.class"), new byte[] {1});
    }

    /** A zip of name and content pairs. */
    private static byte[] zip(Object... entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (int i = 0; i < entries.length; i += 2) {
                zip.putNextEntry(new ZipEntry((String) entries[i]));
                zip.write((byte[]) entries[i + 1]);
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    /**
     * Running install again to upgrade, without the options of the first run, reset them without a word. Each note
     * names the last install's value once, in the option that keeps it: they named it twice ("the last install's was
     * /shop (give --apps /shop to keep it)").
     */
    @Test
    void shouldSayWhatARerunWithoutTheLastOptionsChanges() throws Exception {
        Files.createDirectories(base.resolve("webapps/shop"));
        assertThat(install("--weave", "com.acme..*", "--apps", "/shop")).as(err).isZero();
        assertThat(out).doesNotContain("the last install's");

        assertThat(install()).as(err).isZero();

        assertThat(out.lines().filter(l -> l.contains("the last install")))
                .containsExactly("  note: --apps is now *; give --apps /shop to keep the last install's",
                        "  note: no --weave, so the weaving agent of the last install is removed (give --weave"
                                + " com.acme..* to keep it)");
        install("--weave", "com.acme..*,com.shop..*", "--apps", "/shop");
        assertThat(out).contains("note: --apps is now /shop; give --apps * to keep the last install's\n")
                .doesNotContain("weaving scope");
        install("--weave", "com.shop..*,com.acme..*", "--apps", "/shop");
        assertThat(out).as("the same patterns in another order").doesNotContain("weaving scope");
        install("--weave", "com.acme..*", "--apps", "/shop");
        assertThat(out).contains("note: the weaving scope is now com.acme..*; give --weave com.shop..*,com.acme..* to"
                + " keep the last install's\n");
    }

    /**
     * Settings the last install wrote and an operator then edited into ones Tomcat refuses (apps=/shop,/ROOT) were
     * taken for none, and the rerun wrote apps=* over them without a word: fairslice went on every application.
     */
    @Test
    void shouldSayThatTheLastInstallsSettingsAreRefusedWhenItWritesThemAnew() throws Exception {
        Files.createDirectories(base.resolve("webapps/shop"));
        assertThat(install("--apps", "/shop")).as(err).isZero();
        Path settings = base.resolve("conf/fairslice-tomcat.properties");
        Files.writeString(settings, Files.readString(settings).replace("apps=/shop", "apps=/shop,/ROOT"));

        assertThat(install()).as(err).isZero();

        assertThat(out).contains("note: the last install's settings are refused (" + settings + ": apps lists /ROOT,"
                + " but the ROOT application's context path is /; write / (apps=/shop,/ROOT)), so --apps is not"
                + " compared with them; the file is written anew\n");
        assertThat(read("conf/fairslice-tomcat.properties")).contains("\napps=*\n");
    }

    /**
     * The same applications in another order are the same --apps, as the same ports in another order are the same
     * --metrics-ports: Tomcat selects an application by its path, in whatever order apps= lists them. A rerun with
     * --apps /admin,/shop after /shop,/admin said "note: --apps is now /admin,/shop; give --apps /shop,/admin to keep
     * the last install's".
     */
    @Test
    void shouldNotNoteTheSameApplicationsInAnotherOrder() throws Exception {
        Files.createDirectories(base.resolve("webapps/shop"));
        Files.createDirectories(base.resolve("webapps/admin"));
        assertThat(install("--apps", "/shop,/admin")).as(err).isZero();

        assertThat(install("--apps", "/admin,/shop")).as(err).isZero();

        assertThat(out).doesNotContain("note: --apps");
        assertThat(read("conf/fairslice-tomcat.properties")).contains("\napps=/admin,/shop\n");
        assertThat(install("--apps", "/admin")).as(err).isZero();
        assertThat(out).as("one fewer is a change").contains("note: --apps is now /admin; give --apps /admin,/shop to"
                + " keep the last install's\n");
    }

    /**
     * The other options a rerun resets: call-site and JDBC weaving, the metrics application and its ports (an upgrade
     * run as operations.md says, with no option, emptied metrics.ports without a word: the remote Prometheus got 404).
     */
    @Test
    void shouldSayWhichOtherOptionsARerunWithoutThemSwitchesOff() throws Exception {
        // an application the scope is checked against (with none, each install notes the check was not done)
        shopWithCart();
        assertThat(install("--weave", "com.acme..*", "--weave-calls", "--weave-jdbc", "--metrics-ports", "8080,9090"))
                .as(err).isZero();

        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).contains("note: no --weave-calls, which the last install had, so it is off now (give"
                        + " --weave-calls to keep it)")
                .contains("note: no --weave-jdbc, which the last install had, so it is off now")
                .contains("note: --metrics-ports is now none (this host only); give --metrics-ports 8080,9090 to"
                        + " keep the last install's\n");

        assertThat(install("--weave", "com.acme..*", "--no-metrics")).as(err).isZero();
        assertThat(out).contains("note: --no-metrics, so the metrics application of the last install")
                .doesNotContain("--weave-calls").doesNotContain("--metrics-ports is now");
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).contains("note: no --no-metrics, which the last install had, so the metrics application"
                + " (/fairslice/metrics) is installed again (give --no-metrics to keep it off)")
                .doesNotContain("note: --");
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).as("the same options again: nothing to note").doesNotContain("note:");

        // a new scope without the call-site option it had, the same ports in another order
        assertThat(install("--weave", "com.acme..*", "--weave-calls", "--metrics-ports", "8080,9090")).as(err)
                .isZero();
        assertThat(install("--weave", "com.shop..*", "--metrics-ports", "9090,8080")).as(err).isZero();
        assertThat(out).contains("note: no --weave-calls, which the last install had")
                .doesNotContain("note: --metrics-ports is now");
    }

    @Test
    void shouldLookForApplicationsInTheAppBaseOfServerXml() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("appBase=\"webapps\"", "appBase=\"apps\""));
        Files.createDirectories(base.resolve("webapps/shop"));
        Files.createDirectories(base.resolve("apps/ROOT"));

        assertThat(install("--apps", "/shop,/")).as(err).isZero();

        assertThat(out).contains("note: --apps /shop: no such application in apps/ or conf/Catalina/localhost/ now")
                .doesNotContain("--apps /:");
    }

    /** A base at /srv/tomcat#2 split the weaving agent's file: list, and every application refused to start. */
    @Test
    void shouldRefuseABasePathTheWeavingConfigurationCannotCarryOnlyWhenWeaving() throws Exception {
        Path hashed = TestTomcat.base(tmp.resolve("tomcat#2"), "11.0.25");
        assertThat(run("--catalina-base", hashed.toString(), "--dist", dist.toString(), "--weave", "com.acme..*"))
                .isEqualTo(2);
        assertThat(err).contains("contains the character '#', which the weaving agent's configuration");
        assertThat(hashed.resolve("fairslice")).as("nothing written").doesNotExist();
        assertThat(run("--catalina-base", hashed.toString(), "--dist", dist.toString())).as(err).isZero();
    }

    /**
     * A base at /srv/tomcat=shop: the JVM reads -javaagent:JAR=OPTIONS up to the first '=' as the agent's jar, so
     * the block's -javaagent named /srv/tomcat, and Tomcat's JVM did not start ("Error opening zip file or JAR
     * manifest missing"). Without --weave there is no agent, and the path is fine.
     */
    @Test
    void shouldRefuseABasePathTheAgentOptionCannotCarryOnlyWhenWeaving() throws Exception {
        Path named = TestTomcat.base(tmp.resolve("tomcat=shop"), "11.0.25");
        assertThat(run("--catalina-base", named.toString(), "--dist", dist.toString(), "--weave", "com.acme..*"))
                .isEqualTo(2);
        assertThat(err).contains(named + " contains the character '=', which the JVM's -javaagent option cannot"
                + " carry");
        assertThat(named.resolve("fairslice")).as("nothing written").doesNotExist();
        assertThat(run("--catalina-base", named.toString(), "--dist", dist.toString())).as(err).isZero();
        assertThat(Files.readString(named.resolve("bin/setenv.sh"))).doesNotContain("-javaagent")
                .contains("-Dfairslice.config=$CATALINA_BASE/conf/fairslice.properties");
    }

    /** A mistyped --catalina-home was ignored, with a note telling the operator to pass the option they had passed. */
    @Test
    void shouldRefuseACatalinaHomeThatIsNotATomcat() {
        assertThat(install("--catalina-home", tmp.resolve("tomact").toString())).isEqualTo(2);
        assertThat(err).contains("--catalina-home " + tmp.resolve("tomact") + " is not a Tomcat CATALINA_HOME: it has"
                + " no lib/catalina.jar");
    }

    @Test
    void shouldRefuseCmdsSpecialCharactersInAWindowsPath() {
        assertThatThrownBy(
                () -> TomcatBase.checkPathCharacters(Path.of("R&D", "tomcat"), true))
                .hasMessageContaining("contains the character '&'");
        TomcatBase.checkPathCharacters(Path.of("R&D", "tomcat"), false); // fine for sh, inside the quotes
    }

    /** A line break in the path was named as the character itself, which printed as a broken message. */
    @Test
    void shouldNameALineBreakInTheBasePathInWords() {
        for (boolean windows : new boolean[] {false, true}) {
            assertThatThrownBy(
                    () -> TomcatBase.checkPathCharacters(Path.of("/srv/tom\ncat"), windows))
                    .hasMessageStartingWith("/srv/tom\\ncat contains a line break, which Tomcat's start scripts");
        }
        assertThatThrownBy(
                () -> TomcatBase.checkPathCharacters(Path.of("/srv/a\r$b"), false))
                .hasMessageStartingWith("/srv/a\\r$b contains the character '$'");
    }

    @Test
    void shouldBackUpAFileItReplacesAndRestoreItOnUninstall() throws Exception {
        Files.writeString(base.resolve("conf/fairslice-aop.xml"), "<aspectj/>");
        install("--weave", "com.acme..*");
        assertThat(read("conf/fairslice-aop.xml.before-fairslice")).isEqualTo("<aspectj/>");
        uninstall();
        assertThat(read("conf/fairslice-aop.xml")).isEqualTo("<aspectj/>");
        assertThat(base.resolve("conf/fairslice-aop.xml.before-fairslice")).doesNotExist();
    }

    /**
     * Files are replaced by a rename, not rewritten in place: a linked setenv.sh must stay a link (several instances
     * may share it), and the file keeps its mode; no temporary file is left behind.
     */
    @Test
    void shouldKeepASetenvLinkAndItsModeWhenItReplacesTheFile() throws Exception {
        Path shared = Files.createDirectories(tmp.resolve("shared")).resolve("setenv.sh");
        Files.writeString(shared, "CATALINA_OPTS=\"-Xmx3g\"\n");
        var mode = PosixFilePermissions.fromString("rwxr-x---");
        Files.setPosixFilePermissions(shared, mode);
        Files.createDirectories(base.resolve("bin"));
        Files.createSymbolicLink(base.resolve("bin/setenv.sh"), shared);

        assertThat(install()).as(err).isZero();
        assertThat(out).contains("note: bin/setenv.sh links to " + shared.toRealPath());
        assertThat(base.resolve("bin/setenv.sh")).isSymbolicLink();
        assertThat(Files.readString(shared)).startsWith("CATALINA_OPTS=\"-Xmx3g\"\n").contains("-Dfairslice.config=");
        assertThat(Files.getPosixFilePermissions(shared)).isEqualTo(mode);

        assertThat(uninstall()).as(err).isZero();
        assertThat(base.resolve("bin/setenv.sh")).isSymbolicLink();
        assertThat(Files.readString(shared)).isEqualTo("CATALINA_OPTS=\"-Xmx3g\"\n");
        assertThat(Files.getPosixFilePermissions(shared)).isEqualTo(mode);
        try (var left = Files.walk(tmp)) {
            assertThat(left.filter(f -> f.getFileName().toString().endsWith(".fairslice-new"))).isEmpty();
        }
    }

    /**
     * A setenv.sh linking to a file that does not exist: the install created that file, outside the base, and the
     * uninstall deleted the link and kept the file. Refused, naming the link and its target, before anything is
     * written; with the target there, the install goes on.
     */
    @Test
    void shouldRefuseASetenvLinkToAFileThatDoesNotExist() throws Exception {
        Path shared = Files.createDirectories(tmp.resolve("shared")).resolve("setenv.sh");
        Files.createDirectories(base.resolve("bin"));
        Files.createSymbolicLink(base.resolve("bin/setenv.sh"), Path.of("../../shared/setenv.sh"));

        assertRefusedWithNothingWritten(base.resolve("bin/setenv.sh") + " is a symbolic link to " + shared + ", which"
                + " does not exist: create that file (an empty one will do) or remove the link, then run the installer"
                + " again; nothing was changed");
        assertThat(shared).doesNotExist();

        Files.writeString(shared, "");
        assertThat(install()).as(err).isZero();
        assertThat(Files.readString(shared)).contains("-Dfairslice.config=");
    }

    /**
     * Any other file the install writes that links to a file that does not exist: its target was created, outside
     * the base, and the uninstall left it. Refused as a setenv link is, before anything is written.
     */
    @Test
    void shouldRefuseAnyFileItWritesThatLinksToAFileThatDoesNotExist() throws Exception {
        Path missing = Files.createDirectories(tmp.resolve("shared")).resolve("missing");
        for (String rel : List.of("lib/fairslice-tomcat-1.0.jar", "fairslice/aspectjweaver-1.9.24.jar",
                "conf/fairslice-aop.xml", "conf/fairslice.properties", "conf/fairslice-tomcat.properties",
                "fairslice/metrics-webapp/WEB-INF/web.xml", "conf/Catalina/localhost/fairslice.xml",
                "fairslice/install-record.txt")) {
            Path link = base.resolve(rel);
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, missing);

            assertRefusedWithNothingWritten(link + " is a symbolic link to " + missing + ", which does not exist:"
                    + " create that file (an empty one will do) or remove the link, then run the installer again;"
                    + " nothing was changed", "--weave", "com.acme..*");
            assertThat(missing).as(rel).doesNotExist();
            Files.delete(link);
        }
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
    }

    /**
     * New files got the installing user's umask and owner: installed as root with umask 077, the weaver jar was
     * unreadable to a Tomcat running as tomcat. They are now readable as conf/server.xml is.
     */
    @Test
    void shouldMakeNewFilesReadableAsServerXmlIs() throws Exception {
        Files.setPosixFilePermissions(base.resolve("conf/server.xml"), posix("r--r-----"));
        Files.setPosixFilePermissions(base.resolve("lib"), posix("rwxr-x---"));
        var nobody = base.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        boolean root = System.getProperty("user.name").equals("root");
        if (root) {
            Files.setOwner(base.resolve("lib"), nobody);
        }

        assertThat(install("--weave", "com.acme..*")).as(err).isZero();

        for (String file : List.of("lib/fairslice-tomcat-1.0.jar", "fairslice/aspectjweaver-1.9.24.jar",
                "bin/setenv.sh", "conf/fairslice.properties", "fairslice/install-record.txt")) {
            assertThat(Files.getPosixFilePermissions(base.resolve(file))).as(file)
                    .contains(PosixFilePermission.OWNER_READ, PosixFilePermission.GROUP_READ)
                    .doesNotContain(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
        }
        for (String dir : List.of("fairslice", "bin", "conf/Catalina/localhost")) {
            assertThat(Files.getPosixFilePermissions(base.resolve(dir))).as(dir)
                    .contains(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE);
        }
        if (root) {
            assertThat(Files.getOwner(base.resolve("lib/fairslice-tomcat-1.0.jar"))).as("lib/'s owner")
                    .isEqualTo(nobody);
        }
        // the rule itself, as the umask would leave a file (077: rw-------; 022: rw-r--r--)
        assertThat(mode(Installation.permissionsLike(posix("rw-------"), posix("r--r-----"), false, false)))
                .as("umask 077, server.xml group-readable").isEqualTo("rw-r-----");
        assertThat(mode(Installation.permissionsLike(posix("rw-r--r--"), posix("r--------"), false, false)))
                .as("nothing the file was created with is taken away").isEqualTo("rw-r--r--");
        assertThat(mode(Installation.permissionsLike(posix("rw-------"), posix("rw-------"), true, false)))
                .as("server.xml of another owner (tomcat's, 600): its group may read the file").isEqualTo("rw-r-----");
        assertThat(mode(Installation.permissionsLike(posix("rw-------"), posix("rw-rw-rw-"), false, false)))
                .as("no write beyond the owner's: setenv.sh may be sourced as root").isEqualTo("rw-r--r--");
        assertThat(mode(Installation.permissionsLike(posix("rwx------"), posix("r--r--r--"), false, true)))
                .as("a folder: search wherever read").isEqualTo("rwxr-xr-x");
        assertThat(mode(Installation.permissionsLike(posix("rw-rw-r--"), posix("r--r-----"), false, false)))
                .as("umask 002: the group write goes, the group becomes Tomcat's").isEqualTo("rw-r--r--");
        assertThat(mode(Installation.permissionsLike(posix("rwxrwxrwx"), posix("r--r-----"), false, true)))
                .as("a folder under umask 000").isEqualTo("rwxr-xr-x");
    }

    private static Set<PosixFilePermission> posix(String mode) {
        return PosixFilePermissions.fromString(mode);
    }

    private static String mode(Set<PosixFilePermission> permissions) {
        return PosixFilePermissions.toString(permissions);
    }

    @Test
    void shouldSayItKeptTheBackupOfASetenvFileDeletedSinceTheInstall() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "export LANG=C\n");
        install();
        Files.delete(base.resolve("bin/setenv.sh"));
        assertThat(uninstall()).as(err).isZero();
        assertThat(out).contains("kept       bin/setenv.sh.before-fairslice (what bin/setenv.sh was before the"
                + " install; it has been deleted since)");
        assertThat(read("bin/setenv.sh.before-fairslice")).isEqualTo("export LANG=C\n");
    }

    @Test
    void shouldWriteWellFormedXml() throws Exception {
        install("--weave", "com.acme..*", "--weave-calls", "--weave-jdbc", "--metrics-ports", "9404");
        // the optional aspects are declared in resources of fairslice's jar that bin/setenv names, not in the
        // JVM-wide scope file: every class loader reads that, and the JVM's own could not load them (an error line
        // at every start)
        assertThat(read("conf/fairslice-aop.xml")).doesNotContain("<aspect ");
        assertThat(read("bin/setenv.sh")).contains("org/aspectj/aop.xml;" + WeavingScope.CALL_SITE_CONFIGURATION + ";"
                + WeavingScope.BLOCKING_CALL_CONFIGURATION + ";file:$CATALINA_BASE/conf/fairslice-aop.xml");
        assertThat(read("bin/setenv.bat")).contains(";" + WeavingScope.CALL_SITE_CONFIGURATION + ";"
                + WeavingScope.BLOCKING_CALL_CONFIGURATION + ";file:%CATALINA_BASE%\\conf\\fairslice-aop.xml");
        for (String resource : List.of(WeavingScope.CALL_SITE_CONFIGURATION,
                WeavingScope.BLOCKING_CALL_CONFIGURATION)) {
            assertThat(WeavingScope.inspect(getClass().getClassLoader(), resource).sources())
                    .as("the resource is in the middleware's jar").singleElement().asString().endsWith(resource);
        }
        for (String aspect : List.of(Fragments.CALL_SITE_ASPECT, Fragments.BLOCKING_CALL_ASPECT)) {
            assertThat(Class.forName(aspect, false, getClass().getClassLoader()))
                    .as("the aspect the resources name exists in the middleware").isNotNull();
        }
        for (String rel : List.of("conf/fairslice-aop.xml", "conf/Catalina/localhost/fairslice.xml",
                "fairslice/metrics-webapp/WEB-INF/web.xml")) {
            DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(base.resolve(rel).toFile());
        }
        assertThat(read("conf/Catalina/localhost/fairslice.xml")).contains("value=\"9404\"");
    }

    @Test
    void shouldUseTheEngineAndHostNamedInServerXml() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("Engine name=\"Catalina\" defaultHost=\"localhost\"",
                        "Engine name=\"Shop\" defaultHost=\"www\""));
        install();
        assertThat(base.resolve("conf/Shop/www/fairslice.xml")).exists();
    }

    /** It printed http://127.0.0.1:<port>/fairslice/metrics whatever server.xml said. */
    @Test
    void shouldPrintTheMetricsUrlWithThePortOfTheFirstHttpConnectorInServerXml() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Server port="8005" shutdown="SHUTDOWN">
                  <Service name="Catalina">
                    <!-- <Connector port="8080" protocol="HTTP/1.1"/> -->
                    <Connector port="8009" protocol="AJP/1.3" secretRequired="false"/>
                    <Connector port="8009" protocol="org.apache.coyote.ajp.AjpNioProtocol"/>
                    <Connector port="8181" protocol="org.apache.coyote.http11.Http11NioProtocol"/>
                    <Connector port="9090"/>
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps"/>
                    </Engine>
                  </Service>
                </Server>
                """);

        assertThat(install()).as(err).isZero();

        assertThat(out).contains("metrics: http://127.0.0.1:8181/fairslice/metrics from this host")
                .doesNotContain("<port>");
    }

    @Test
    void shouldPrintThePortsPlaceholderWhenServerXmlTakesItFromAProperty() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"${port.http}\" protocol=\"HTTP/1.1\"/>"));

        assertThat(install()).as(err).isZero();

        assertThat(out).contains("metrics: http://127.0.0.1:${port.http}/fairslice/metrics from this host");
    }

    @Test
    void shouldPrintAnHttpsUrlForATlsConnectorAndNoUrlWithoutAnHttpConnector() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"8443\" SSLEnabled=\"true\"/>"));
        assertThat(install()).as(err).isZero();
        assertThat(out).contains("metrics: https://127.0.0.1:8443/fairslice/metrics from this host");

        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"8009\" protocol=\"AJP/1.3\"/>"));
        assertThat(install()).as(err).isZero();
        assertThat(out).contains("metrics: /fairslice/metrics").contains("no HTTP/1.1 <Connector>")
                .doesNotContain("http://");
    }

    /** It printed http://127.0.0.1:PORT/... for a connector with address="10.0.0.5" too, where nothing listens. */
    @Test
    void shouldPrintTheMetricsUrlWithTheAddressTheConnectorIsBoundTo() throws Exception {
        assertThat(metricsLine("address=\"10.0.0.5\"")).isEqualTo("http://10.0.0.5:8080/fairslice/metrics; the"
                + " connector listens only on 10.0.0.5, and the metrics answer only requests to a loopback address"
                + " unless --metrics-ports lists its port (8080)");
        assertThat(metricsLine("address=\"10.0.0.5\"", "--metrics-ports", "9404,8080"))
                .isEqualTo("http://10.0.0.5:8080/fairslice/metrics from any client (--metrics-ports lists 8080)");
        assertThat(metricsLine("address=\"::1\"")).isEqualTo("http://[::1]:8080/fairslice/metrics from this host");
        assertThat(metricsLine("address=\"[::1]\"")).isEqualTo("http://[::1]:8080/fairslice/metrics from this host");
        assertThat(metricsLine("address=\"fd00::5\"")).startsWith("http://[fd00::5]:8080/fairslice/metrics; the"
                + " connector listens only on fd00::5,");
        assertThat(metricsLine("address=\"localhost\"")).isEqualTo("http://localhost:8080/fairslice/metrics from"
                + " this host");
        assertThat(metricsLine("address=\"127.0.0.2\"")).isEqualTo("http://127.0.0.2:8080/fairslice/metrics from"
                + " this host");
    }

    /** Tomcat binds an empty address to 127.0.0.1 (InetAddress.getByName("")), a wildcard to every interface. */
    @Test
    void shouldPrintTheLoopbackUrlForAConnectorOnEveryInterfaceOrWithAnEmptyAddress() throws Exception {
        for (String address : List.of("address=\"0.0.0.0\"", "address=\"::\"", "address=\"[::]\"",
                "address=\"0:0:0:0:0:0:0:0\"", "address=\"\"", "address=\" \"", "")) {
            assertThat(metricsLine(address)).as(address).isEqualTo("http://127.0.0.1:8080/fairslice/metrics from"
                    + " this host");
        }
    }

    /**
     * Tomcat lower-cases host names and reads a host's descriptors from its xmlBase when it has one: the metrics
     * descriptor went to conf/Catalina/Shop/, which Tomcat never reads, and /fairslice/metrics answered 404.
     */
    @Test
    void shouldPutTheMetricsDescriptorWhereTomcatReadsTheDefaultHostsDescriptors() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("defaultHost=\"localhost\"", "defaultHost=\"Shop\"")
                .replace("<Host name=\"localhost\" appBase=\"webapps\"/>", "<Host name=\"SHOP\" appBase=\"apps\"/>"));
        Files.createDirectories(base.resolve("apps/cart"));
        assertThat(install("--apps", "/cart")).as(err).isZero();
        assertThat(base.resolve("conf/Catalina/shop/fairslice.xml")).exists();
        assertThat(base.resolve("conf/Catalina/Shop")).doesNotExist();
        assertThat(out).as("the host's appBase, found whatever the case of its name").doesNotContain("note: --apps");
        uninstall();

        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("appBase=\"webapps\"", "appBase=\"webapps\" xmlBase=\"conf/host-descriptors\""));
        assertThat(install()).as(err).isZero();
        assertThat(base.resolve("conf/host-descriptors/fairslice.xml")).exists();
        assertThat(base.resolve("conf/Catalina/localhost/fairslice.xml")).doesNotExist();
        uninstall();

        // outside the base the installer writes nothing: it says so, and the install stands
        Path outside = tmp.resolve("shared-descriptors");
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("appBase=\"webapps\"", "appBase=\"webapps\" xmlBase=\"" + outside + "\""));
        assertThat(install()).as(err).isZero();
        assertThat(out).contains("note: the host's xmlBase " + outside + " is outside " + base + ", where the"
                + " installer writes nothing, and Tomcat deploys descriptors from there only: copy"
                + " conf/Catalina/localhost/fairslice.xml there");
        assertThat(outside).doesNotExist();
    }

    /** A descriptor an earlier install put where Tomcat does not read it moves, and its options are still known. */
    @Test
    void shouldKnowTheMetricsPortsOfADescriptorAnEarlierInstallPutElsewhere() throws Exception {
        assertThat(install("--metrics-ports", "9404")).as(err).isZero();
        // as an install before 2026-12-04 recorded it for defaultHost="Localhost": in conf/Catalina/Localhost/
        Path old = base.resolve("conf/Catalina/Localhost/fairslice.xml");
        Files.createDirectories(old.getParent());
        Files.move(base.resolve("conf/Catalina/localhost/fairslice.xml"), old);
        Path record = base.resolve(InstallRecord.FILE);
        Files.writeString(record, Files.readString(record).replace("conf/Catalina/localhost/fairslice.xml",
                "conf/Catalina/Localhost/fairslice.xml"));

        assertThat(install("--metrics-ports", "9404")).as(err).isZero();

        assertThat(out).doesNotContain("note: --metrics-ports is now", "note: no --no-metrics");
        assertThat(old).as("its own file, removed as stale").doesNotExist();
        assertThat(base.resolve("conf/Catalina/localhost/fairslice.xml")).exists();
    }

    /**
     * --metrics-ports opens its connector to every client: on the stock connector, which has no address, that is
     * every interface of the host, and the installer said "from this host".
     */
    @Test
    void shouldWarnThatAListedPortOnEveryInterfaceMakesTheMetricsPublic() throws Exception {
        for (String address : List.of("", "address=\"0.0.0.0\"", "address=\"::\"")) {
            assertThat(metricsLine(address, "--metrics-ports", "8080")).as(address).isEqualTo(
                    "http://127.0.0.1:8080/fairslice/metrics from any client on every interface of this host"
                            + " (--metrics-ports lists 8080, a connector with no address or a wildcard one): warning:"
                            + " public wherever this host is; give the metrics a connector of their own on an"
                            + " internal address (docs/user-guide.md)");
        }
        assertThat(metricsLine("address=\"127.0.0.1\"", "--metrics-ports", "8080"))
                .isEqualTo("http://127.0.0.1:8080/fairslice/metrics from this host");
        assertThat(metricsLine("address=\"\"", "--metrics-ports", "8080")).as("an empty address is loopback's")
                .isEqualTo("http://127.0.0.1:8080/fairslice/metrics from this host");
    }

    @Test
    void shouldWriteAnIpv6LiteralInBracketsAndLeaveNamesAndPlaceholdersAsTheyAre() {
        assertThat(TomcatBase.urlHost("::1")).isEqualTo("[::1]");
        assertThat(TomcatBase.urlHost("[::1]")).isEqualTo("[::1]");
        assertThat(TomcatBase.urlHost("fe80::1%eth0")).isEqualTo("[fe80::1%25eth0]");
        assertThat(TomcatBase.urlHost("10.0.0.5")).isEqualTo("10.0.0.5");
        assertThat(TomcatBase.urlHost("tomcat.internal")).isEqualTo("tomcat.internal");
        assertThat(TomcatBase.urlHost("${bind.address:127.0.0.1}")).isEqualTo("${bind.address:127.0.0.1}");
        assertThat(IpLiterals.parse("tomcat.internal")).as("names are not looked up").isNull();
        assertThat(IpLiterals.parse("300.0.0.1")).isNull();
        assertThat(IpLiterals.parse("::g")).isNull();
    }

    /**
     * A --metrics-ports port that no connector has opens nothing: a typo (9404 for 8080) left the remote Prometheus
     * refused without a word. A connector whose port is a placeholder may be any port: then nothing is said.
     */
    @Test
    void shouldNoteAMetricsPortThatNoConnectorHas() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>"
                                + "<Connector port=\"8009\" protocol=\"AJP/1.3\"/>"));
        assertThat(install("--metrics-ports", "8080,9404,8009")).as(err).isZero();
        assertThat(out).contains("note: --metrics-ports lists 9404, but no <Connector> of the engine's service in"
                + " conf/server.xml has that port (theirs: 8080, 8009), so no client reaches the metrics there;"
                + " a typo?")
                .doesNotContain("note: --metrics-ports lists 8080").doesNotContain("note: --metrics-ports lists 8009");

        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"8080\" protocol=\"HTTP/1.1\"/><Connector port=\"${port.admin}\"/>"));
        assertThat(install("--metrics-ports", "9404")).as(err).isZero();
        assertThat(out).as("a placeholder port may be 9404").doesNotContain("note: --metrics-ports lists");
    }

    /** What the installer prints after "metrics: " for server.xml's connector with these attributes added. */
    private String metricsLine(String attributes, String... extra) throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), TestTomcat.SERVER_XML
                .replace("<Connector port=\"8080\" protocol=\"HTTP/1.1\"/>",
                        "<Connector port=\"8080\" " + attributes + " protocol=\"HTTP/1.1\"/>"));
        assertThat(install(extra)).as(err).isZero();
        return out.substring(out.indexOf("; metrics: ") + "; metrics: ".length()).strip();
    }

    @Test
    void shouldRefuseADirectoryThatIsNotATomcat() throws Exception {
        Path notTomcat = Files.createDirectories(tmp.resolve("not-tomcat"));
        Files.writeString(notTomcat.resolve("README"), "hello");
        Map<String, String> before = TestTomcat.snapshot(notTomcat);
        assertThat(run("--catalina-base", notTomcat.toString(), "--dist", dist.toString())).isEqualTo(2);
        assertThat(err).contains("is not a Tomcat CATALINA_BASE: it has no conf/server.xml");
        assertThat(TestTomcat.snapshot(notTomcat)).isEqualTo(before);
    }

    @Test
    void shouldRefuseAServerXmlThatIsNotTomcats() throws Exception {
        Files.writeString(base.resolve("conf/server.xml"), "<Configure class=\"org.eclipse.jetty.server.Server\"/>");
        assertThat(install()).isEqualTo(2);
        assertThat(err).contains("the root element of conf/server.xml is <Configure>, Tomcat's is <Server>");
    }

    @Test
    void shouldRefuseTomcatNine() throws Exception {
        base = TestTomcat.base(tmp.resolve("tomcat9"), "9.0.98");
        assertThat(install()).isEqualTo(2);
        assertThat(err).contains("is Tomcat 9.0.98.0; fairslice needs Tomcat 10.1 or newer");
        assertThat(base.resolve("bin")).doesNotExist();
    }

    @Test
    void shouldRefuseADamagedBlockWithoutChangingAnything() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"), "# >>> fairslice >>>\nA=1\n");
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(install()).isEqualTo(2);
        assertThat(err).contains("bin/setenv.sh: fairslice's block is damaged");
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);
    }

    @Test
    void shouldRefuseAWeavingScopeThatIsNotAPattern() {
        assertThat(install("--weave", "com.acme..")).isEqualTo(2);
        assertThat(err).contains("--weave com.acme.. is not a weaving scope");
    }

    /** An operator's own weaver in setenv.sh was silently doubled, its aop.xml list replaced by fairslice's. */
    @Test
    void shouldNoteAWeaverTheOperatorsSetenvAlreadyLoads() throws Exception {
        Files.createDirectories(base.resolve("bin"));
        Files.writeString(base.resolve("bin/setenv.sh"),
                "CATALINA_OPTS=\"$CATALINA_OPTS -javaagent:/opt/aspectj/aspectjweaver.jar\"\n");

        assertThat(install()).as(err).isZero();
        assertThat(out).doesNotContain("weaving of its own");
        assertThat(install("--weave", "com.acme..*")).as(err).isZero();
        assertThat(out).contains("note: bin/setenv.sh sets up AspectJ load-time weaving of its own outside"
                + " fairslice's block");
    }

    /** A scope in code that is never woven made every selected application refuse to start after the restart. */
    @Test
    void shouldRefuseAWeavingScopeInCodeThatIsNeverWoven() {
        assertThat(install("--weave", "com.acme..*,org.apache.catalina..*")).isEqualTo(2);
        assertThat(err).contains("--weave org.apache.catalina..* lies inside org.apache.catalina, which is never"
                + " woven");
        assertThat(install("--weave", "java.util.*")).isEqualTo(2);
        assertThat(install("--weave", "io.fairslice.middleware.weaving.*")).as(err).isEqualTo(2);
        assertThat(base.resolve("fairslice")).as("nothing written").doesNotExist();
    }

    /**
     * Scopes around fenced code, or around every library of a top-level name, were accepted: under them H2, AssertJ
     * and Tomcat's Jasper (which compiles JSPs in synchronized blocks the lock guard does not see) got yield points.
     */
    @Test
    void shouldRefuseAWeavingScopeThatTakesInFencedCodeOrEveryLibraryOfATopLevelName() {
        for (String scope : List.of("org..*", "io..*", "com..*")) {
            assertThat(install("--weave", "com.acme..*," + scope)).as(scope).isEqualTo(2);
            assertThat(err).contains("--weave " + scope + " takes in");
        }
        assertThat(install("--weave", "org.apache..*")).isEqualTo(2);
        assertThat(err).contains("--weave org.apache..* takes in org.apache.catalina, which is never woven");
        assertThat(install("--weave", "io.fairslice..*")).isEqualTo(2);
        assertThat(err).contains("--weave io.fairslice..* takes in io.fairslice.middleware");
        assertThat(install("--weave", "net..*")).isEqualTo(2);
        assertThat(err).contains("--weave net..* takes in every library whose packages start with net.");
        for (String jasper : List.of("org.apache.jasper..*", "org.apache.el.parser.*", "org.eclipse.jdt..*")) {
            assertThat(install("--weave", jasper)).as(jasper).isEqualTo(2);
            assertThat(err).contains("--weave " + jasper + " lies inside");
        }
        assertThat(base.resolve("fairslice")).as("nothing written").doesNotExist();
        assertThat(install("--weave", "com.acme..*,org.apache.jsp..*")).as(err).isZero();
        assertThat(install("--weave", "myapp..*")).as("an application's own one-segment root: " + err).isZero();
    }

    @Test
    void shouldRefuseCallSiteWeavingWithoutAScope() {
        assertThat(install("--weave-calls")).isEqualTo(2);
        assertThat(err).contains("--weave-calls needs --weave");
    }

    @Test
    void shouldRefuseDeclaringJdbcCallsWithoutAScope() {
        assertThat(install("--weave-jdbc")).isEqualTo(2);
        assertThat(err).contains("--weave-jdbc needs --weave");
    }

    @Test
    void shouldDeclareNoAspectInTheScopeFileWithoutTheOptionsThatAddOne() throws Exception {
        install("--weave", "com.acme..*");
        assertThat(read("conf/fairslice-aop.xml")).contains("<include within=\"com.acme..*\"/>")
                .doesNotContain("<aspects>");
    }

    /**
     * `./fairslice install --help` is answered by the launcher, without a build or a JVM (LauncherTest, in
     * experiments/server): with the installer's usage. A copy of the launcher alone, with no ./mvnw beside it.
     */
    @Test
    void shouldBeWhatTheLauncherAnswersToInstallHelp() throws Exception {
        Launched launched = launcherInstall("--help");

        assertThat(launched.status()).as(launched.stderr()).isZero();
        assertThat(launched.stdout()).as("the launcher's install_usage in ./fairslice").isEqualTo(InstallOptions.USAGE);
        assertThat(run("--help")).isZero();
        assertThat(out).isEqualTo(InstallOptions.USAGE);
    }

    /** What a run of the launcher printed, and its exit status. */
    private record Launched(int status, String stdout, String stderr) {
    }

    /** Runs `fairslice install ARGS` from a copy of the launcher alone, with no ./mvnw beside it. */
    private Launched launcherInstall(String... args) throws Exception {
        Path launcher = tmp.resolve("fairslice");
        if (!Files.exists(launcher)) {
            Files.copy(Path.of(System.getProperty("user.dir")).resolve("../../fairslice").normalize(), launcher);
        }
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "install"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(tmp.toFile()).start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        return new Launched(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /**
     * A command line of the wrong form gets the message, then the usage, as the launcher gives them when it refuses it
     * before the build (refuse_usage): run as java -jar, a blank line stood between them, and another after the usage.
     */
    @Test
    void shouldRefuseACommandLineOfTheWrongFormAsTheLauncherDoes() throws Exception {
        for (String[] args : List.of(new String[] {"--catalina-base", base.toString(), "--wave", "com.acme..*"},
                new String[] {"--weave", "com.acme..*", "--catalina-base"},
                // the values as given (as paths, a/ read a) and the usage, which java -jar left out
                new String[] {"--catalina-base", base + "/", "--weave", "com.acme..*", "--catalina-base", "/b"},
                // a flag joined to a value: it takes none, so writing them apart is no answer
                new String[] {"--catalina-base", base.toString(), "--uninstall=yes"},
                new String[] {"--catalina-base", base.toString(), "--weave=com.acme..*"})) {
            Launched launched = launcherInstall(args);

            assertThat(launched.status()).as(launched.stderr()).isEqualTo(2);
            assertThat(run(args)).as(err).isEqualTo(2);
            assertThat(err).as("java -jar as the launcher").isEqualTo(launched.stderr());
        }
        // an option joined to its value: the launcher said how to write it, java -jar only that it is unknown
        assertThat(err).isEqualTo("fairslice install: unknown option '--weave=com.acme..*' (write --weave and its value"
                + " apart)\n" + InstallOptions.USAGE);
        assertThat(out).isEmpty();
        assertThat(run("--catalina-base", base.toString(), "--wave=com.acme..*")).isEqualTo(2);
        assertThat(err).as("not an option of the usage").startsWith("fairslice install: unknown option"
                + " '--wave=com.acme..*'\n");
        assertThat(run("--catalina-base", base.toString(), "--no-metrics=true")).isEqualTo(2);
        assertThat(err).as("a flag").startsWith("fairslice install: unknown option '--no-metrics=true' (--no-metrics"
                + " takes no value)\n");
    }

    @Test
    void shouldSayThereIsNothingToUninstallOnAPlainTomcat() throws Exception {
        Map<String, String> before = TestTomcat.snapshot(base);
        assertThat(uninstall()).isZero();
        assertThat(out).contains("nothing to uninstall");
        assertThat(TestTomcat.snapshot(base)).isEqualTo(before);
    }
}
