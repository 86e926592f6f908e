package io.fairslice.tomcat.install;

import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.tomcat.TomcatLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The text of every file and block the installer writes, in one place so that the documentation
 * (docs/user-guide.md) and the tests can point at it.
 */
final class Fragments {

    /** The middleware's optional aspect for yield points at call sites (see its javadoc). */
    static final String CALL_SITE_ASPECT = "io.fairslice.middleware.weaving.CallSiteYieldPointAspect";
    static final String BLOCKING_CALL_ASPECT = "io.fairslice.middleware.weaving.BlockingCallAspect";

    /**
     * Words of the comment a setenv file the installer created has in its block: the installer recognises such a file
     * by them when its record does not say so (a kill between the write and the record).
     */
    static final String CREATED_MARK = "created by the installer";
    /**
     * Words of the metrics descriptor's first comment: the installer recognises a descriptor it wrote by them when its
     * record does not list it (an install record deleted by hand), and does not take it for the operator's.
     */
    static final String METRICS_DESCRIPTOR_MARK = "Written by `fairslice install`: deploys fairslice's metrics";

    private Fragments() {
    }

    /**
     * The mark of the blocks the installer writes into {@code baseDir}'s setenv files: a block acts only where
     * {@code $CATALINA_BASE}'s own setenv file holds its mark. Without it, an installation's setenv.sh run from an
     * instance's (catalina.sh runs one of them; the instance's runs the installation's, as Tomcat would) acted for
     * the instance too: it sourced itself until the shell crashed, and added its options to the instance's (a
     * -javaagent the instance does not have). Derived from the directory, so that a rerun writes the same block.
     */
    static String mark(Path baseDir) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(
                    baseDir.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The comment that carries a block's {@link #mark}, which the block looks for in the instance's setenv file. */
    private static String markLine(String mark) {
        return "fairslice install mark " + mark;
    }

    /** Runs the installation's setenv.sh from an instance's, unless they are the same file. */
    private static final List<String> HOME_SETENV_SH = List.of(
            "if [ -r \"$CATALINA_HOME/bin/setenv.sh\" ]"
                    + " && ! [ \"$CATALINA_HOME/bin/setenv.sh\" -ef \"$CATALINA_BASE/bin/setenv.sh\" ]; then",
            "  . \"$CATALINA_HOME/bin/setenv.sh\"",
            "fi");

    /** Calls the installation's setenv.bat from an instance's, unless they are the same directory. */
    private static final String HOME_SETENV_BAT = "for %%h in (\"%CATALINA_HOME%\\.\") do for %%b in"
            + " (\"%CATALINA_BASE%\\.\") do if /i not \"%%~fh\" == \"%%~fb\""
            + " if exist \"%CATALINA_HOME%\\bin\\setenv.bat\""
            + " call \"%CATALINA_HOME%\\bin\\setenv.bat\"";

    /**
     * What the uninstall leaves at the top of a setenv file the installer created when it keeps the file for the
     * operator's lines: the lines of the block that ran the installation's setenv file, which catalina.sh would not
     * run beside the instance's own (without them the instance lost its heap and JAVA_HOME settings).
     */
    static List<String> keptHomeSetenv(boolean batch) {
        List<String> lines = new ArrayList<>();
        String c = batch ? "rem " : "# ";
        lines.add(c + "`fairslice install` created this file and ran the installation's setenv file from it, as");
        lines.add(c + "catalina.sh does for an instance without one; its uninstall kept these lines beside yours");
        if (batch) {
            lines.add(HOME_SETENV_BAT);
        } else {
            lines.addAll(HOME_SETENV_SH);
        }
        return lines;
    }

    /**
     * The setenv.sh block. CATALINA_OPTS (not JAVA_OPTS) so that {@code catalina.sh stop} does not load the agent.
     * catalina.sh passes CATALINA_OPTS through {@code eval}: the escaped quotes keep each option one word, and the
     * {@code ;} of the weaver's configuration list from ending the command.
     */
    static List<String> setenvSh(String mark, String weaverJar, List<String> aspects, boolean created) {
        List<String> lines = new ArrayList<>(List.of(
                "# Written by `fairslice install`; `fairslice install --uninstall` removes this block. Edit the",
                "# configuration in $CATALINA_BASE/" + TomcatLayout.CONFIG + " (docs/configuration.md), not here.",
                "# " + markLine(mark) + ": this block acts only in the instance whose own bin/setenv.sh holds it",
                "# (an installation's setenv.sh also runs for instances that use it as their CATALINA_HOME), once",
                "if [ -z \"$FAIRSLICE_SETENV_DONE\" ] && grep -qF '" + markLine(mark)
                        + "' \"$CATALINA_BASE/bin/setenv.sh\" 2>/dev/null; then",
                "  FAIRSLICE_SETENV_DONE=1"));
        if (created) {
            lines.addAll(List.of(
                    "  # catalina.sh runs the installation's setenv.sh only when the instance has none: this file was",
                    "  # " + CREATED_MARK + ", so it runs that one itself, as Tomcat did before",
                    "  # (compared as files: the same directory written otherwise, such as with a trailing slash or",
                    "  # through a link, would source this file again)",
                    "  " + HOME_SETENV_SH.get(0), "  " + HOME_SETENV_SH.get(1), "  " + HOME_SETENV_SH.get(2)));
        }
        lines.addAll(List.of(
                "  if [ -f \"$CATALINA_BASE/" + InstallRecord.FILE + "\" ]; then",
                "    CATALINA_OPTS=\"$CATALINA_OPTS \\\"-Dfairslice.config=$CATALINA_BASE/" + TomcatLayout.CONFIG
                        + "\\\"\"",
                "    # the kernel probe uses JNA, which asks for native access on JDK 24+ (JDK 17 accepts the flag)",
                "    CATALINA_OPTS=\"$CATALINA_OPTS --enable-native-access=ALL-UNNAMED\""));
        if (weaverJar != null) {
            lines.addAll(List.of(
                    "    # yield points woven at class loading into the packages of " + TomcatLayout.AOP_XML,
                    "    CATALINA_OPTS=\"$CATALINA_OPTS \\\"-javaagent:$CATALINA_BASE/" + TomcatLayout.HOME + "/"
                            + weaverJar + "\\\"\"",
                    "    CATALINA_OPTS=\"$CATALINA_OPTS \\\"-D" + WeavingScope.CONFIGURATION_PROPERTY + "="
                            + WeavingScope.configurationWith("$CATALINA_BASE/" + TomcatLayout.AOP_XML, aspects)
                            + "\\\"\""));
        }
        lines.addAll(List.of("  fi", "fi"));
        return lines;
    }

    /** The setenv.bat block: the same options for catalina.bat (not tested on Windows by this project). */
    static List<String> setenvBat(String mark, String weaverJar, List<String> aspects, boolean created) {
        // each line tests on its own: in a ( ... ) block cmd would expand %CATALINA_OPTS% once, for all of them; the
        // variable is the block's own, so that the installation's setenv.bat, called below, leaves it as it was
        String here = "FAIRSLICE_HERE_" + mark;
        List<String> lines = new ArrayList<>(List.of(
                "rem Written by \"fairslice install\"; \"fairslice install --uninstall\" removes this block. Edit the",
                "rem configuration in %CATALINA_BASE%\\" + windows(TomcatLayout.CONFIG) + ", not here.",
                "rem " + markLine(mark) + ": this block acts only in the instance whose own bin\\setenv.bat holds it",
                "rem (an installation's setenv.bat also runs for instances that use it as their CATALINA_HOME), once",
                "set \"" + here + "=\"",
                "if not defined FAIRSLICE_SETENV_DONE findstr /l /c:\"" + markLine(mark)
                        + "\" \"%CATALINA_BASE%\\bin\\setenv.bat\" >nul 2>&1 && set \"" + here + "=1\"",
                "if defined " + here + " set \"FAIRSLICE_SETENV_DONE=1\""));
        String inHere = "if defined " + here + " ";
        if (created) {
            lines.addAll(List.of(
                    "rem catalina.bat runs the installation's setenv.bat only when the instance has none: this file",
                    "rem was " + CREATED_MARK + ", so it runs that one itself, as Tomcat did before",
                    "rem (compared as full paths, whatever their letter case or a trailing backslash: the same",
                    "rem directory written otherwise would call this file again)",
                    inHere + HOME_SETENV_BAT));
        }
        String installed = inHere + "if exist \"%CATALINA_BASE%\\" + windows(InstallRecord.FILE) + "\" ";
        lines.addAll(List.of(
                installed + "set \"CATALINA_OPTS=%CATALINA_OPTS% \"-Dfairslice.config=%CATALINA_BASE%\\"
                        + windows(TomcatLayout.CONFIG) + "\"\"",
                installed + "set \"CATALINA_OPTS=%CATALINA_OPTS% --enable-native-access=ALL-UNNAMED\""));
        if (weaverJar != null) {
            lines.addAll(List.of(
                    installed + "set \"CATALINA_OPTS=%CATALINA_OPTS% \"-javaagent:%CATALINA_BASE%\\"
                            + TomcatLayout.HOME + "\\" + weaverJar + "\"\"",
                    installed + "set \"CATALINA_OPTS=%CATALINA_OPTS% \"-D" + WeavingScope.CONFIGURATION_PROPERTY + "="
                            + WeavingScope.configurationWith("%CATALINA_BASE%\\" + windows(TomcatLayout.AOP_XML),
                                    aspects)
                            + "\"\""));
        }
        return lines;
    }

    private static String windows(String path) {
        return path.replace('/', '\\');
    }

    /** The packages of a scope file {@link #aopXml} wrote, in order. */
    static List<String> aopXmlScope(String aopXml) {
        List<String> scope = new ArrayList<>();
        Matcher include = INCLUDE.matcher(aopXml);
        while (include.find()) {
            scope.add(include.group(1));
        }
        return scope;
    }

    /** An include element as {@link #aopXml} writes it. */
    private static final Pattern INCLUDE = Pattern.compile("<include within=\"([^\"]+)\"/>");

    /**
     * The resources of fairslice's jar that declare the optional aspects, for the weaver's configuration list (in
     * bin/setenv): in this JVM-wide file every class loader read them, and the JVM's own loaders, which cannot see
     * Tomcat's lib/, said "error The specified aspect ... cannot be found" at every start.
     */
    static List<String> aspectConfigurations(boolean calls, boolean jdbc) {
        List<String> resources = new ArrayList<>();
        if (calls) {
            resources.add(WeavingScope.CALL_SITE_CONFIGURATION);
        }
        if (jdbc) {
            resources.add(WeavingScope.BLOCKING_CALL_CONFIGURATION);
        }
        return resources;
    }

    /**
     * The weaving scope file. XML comments may not contain "--": the installer's options are named without it in this
     * file and the ones below. The optional aspects are declared in fairslice's jar ({@link #aspectConfigurations});
     * this file names them in a comment, which a later install reads to say when an option was left out.
     */
    static byte[] aopXml(List<String> scope, boolean calls, boolean jdbc) {
        String includes = scope.stream().map(w -> "    <include within=\"" + w + "\"/>")
                .collect(Collectors.joining("\n"));
        StringBuilder declared = new StringBuilder();
        if (calls) {
            declared.append("""
                      <!-- the installer's weave-calls option: also a yield point before each call into the JDK or DOM
                           (%s, declared in %s, which bin/setenv names) -->
                    """.formatted(CALL_SITE_ASPECT, WeavingScope.CALL_SITE_CONFIGURATION));
        }
        if (jdbc) {
            declared.append("""
                      <!-- the installer's weave-jdbc option: the woven code's JDBC calls give the run slot up while they wait
                           (%s, declared in %s, which bin/setenv names) -->
                    """.formatted(BLOCKING_CALL_ASPECT, WeavingScope.BLOCKING_CALL_CONFIGURATION));
        }
        String aspects = declared.toString();
        return Installation.utf8("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by `fairslice install` (its weave option): the weaving scope, the application packages that get
                     fairslice's yield points. Run the installer again to change it; it overwrites this file. The
                     aspect itself, and what is never woven, are declared in fairslice's jar (META-INF/aop.xml).
                     -XaddSerialVersionUID, as there: woven classes keep their unwoven serialVersionUID (sessions). -->
                <aspectj>
                %s  <weaver options="-XaddSerialVersionUID">
                %s
                  </weaver>
                </aspectj>
                """.formatted(aspects, includes));
    }

    static byte[] configTemplate() {
        return Installation.utf8("""
                # fairslice's configuration for this Tomcat: every key, its default and its range are in
                # docs/configuration.md. Keys are written without the "fairslice." prefix that system properties and
                # context parameters carry. This file is yours once you change it: `fairslice install` then never
                # overwrites it (an unchanged copy is replaced by a newer template), and `fairslice install
                # --uninstall` removes it only while it is unchanged.
                #
                # policy=share
                # classes=light,heavy
                # class.light.share=80
                # class.heavy.share=20
                # rule.1=heavy path=/reports/**
                # route.1=/products/*
                #
                # The kernel probe attributes the OS scheduler's statistics (run-queue wait, effective timeslice) to
                # the request classes: the dashboard's kernel panels. It costs about a tenth of the capacity of a page
                # that takes under a millisecond, so it is off here; set true to diagnose the OS scheduler.
                kernel-probe.enabled=false
                """);
    }

    static byte[] tomcatSettings(List<String> apps) {
        return Installation.utf8("""
                # Written by `fairslice install`; run it again with --apps to change it (it overwrites this file).
                # apps: the context paths of the web applications that get fairslice, comma-separated ("/" is the
                # ROOT application), or * for all of them. fairslice's own metrics application never gets it.
                apps=%s
                """.formatted(String.join(",", apps)));
    }

    static byte[] metricsWebXml() {
        return Installation.utf8("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by `fairslice install`: the metrics web application. Its servlet is in fairslice's jar in
                     $CATALINA_BASE/lib; who may read it is set in its context descriptor (metrics.ports). -->
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee"
                         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                         xsi:schemaLocation="https://jakarta.ee/xml/ns/jakartaee https://jakarta.ee/xml/ns/jakartaee/web-app_6_0.xsd"
                         version="6.0"
                         metadata-complete="true">
                  <display-name>fairslice metrics</display-name>
                  <servlet>
                    <servlet-name>metrics</servlet-name>
                    <servlet-class>io.fairslice.tomcat.metrics.MetricsServlet</servlet-class>
                    <load-on-startup>1</load-on-startup>
                  </servlet>
                  <servlet-mapping>
                    <servlet-name>metrics</servlet-name>
                    <url-pattern>/metrics</url-pattern>
                  </servlet-mapping>
                </web-app>
                """);
    }

    /** The {@code metrics.ports} value of a descriptor {@link #metricsDescriptor} wrote; "" when it names none. */
    static String metricsPorts(String descriptor) {
        Matcher m = METRICS_PORTS.matcher(descriptor);
        return m.find() ? m.group(1) : "";
    }

    private static final Pattern METRICS_PORTS = Pattern.compile("name=\"metrics.ports\" value=\"([^\"]*)\"");

    static byte[] metricsDescriptor(List<Integer> ports) {
        String list = ports.stream().map(String::valueOf).collect(Collectors.joining(","));
        return Installation.utf8("""
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- %s at %s (Prometheus text format).
                     By default only clients on this host, connecting to a loopback address, get an answer; every
                     other request gets 404. metrics.ports lists connector ports where any client may read them
                     (a connector bound to an internal network, for a remote Prometheus). Change it with the
                     installer's metrics-ports option; the installer overwrites this file. A bad value stops
                     the application as it deploys (failCtxIfServletStartFails), saying why in Tomcat's log. -->
                <Context docBase="${catalina.base}/%s" reloadable="false" failCtxIfServletStartFails="true">
                  <Parameter name="metrics.ports" value="%s" override="false"/>
                </Context>
                """.formatted(METRICS_DESCRIPTOR_MARK, TomcatLayout.METRICS_PATH, TomcatLayout.METRICS_WEBAPP, list));
    }
}
