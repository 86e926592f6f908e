package io.fairslice.tomcat.install;

import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.tomcat.TcpPorts;
import io.fairslice.tomcat.TomcatSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the operator asked the installer for, parsed from the command line and validated: a bad option stops the
 * installer before it touches anything, with a message naming the option and the value.
 *
 * @param catalinaBase the Tomcat instance directory (required)
 * @param catalinaHome the Tomcat installation directory, only to check the version when the base has no catalina.jar
 * @param dist         the bundle folder ({@code lib/} and {@code agent/}); by default the folder above this jar's
 * @param uninstall    remove what an earlier install added, and nothing else
 * @param weave        the weaving scope: AspectJ type patterns of the applications' packages; empty means no agent
 * @param weaveCalls   also weave yield points before the scope's calls into the JDK and the DOM/SAX APIs
 * @param weaveJdbc    also declare the scope's JDBC calls blocking, so that a request's run slot serves others
 *                     while it waits for its database
 * @param apps         context paths of the web applications that get fairslice ({@code /shop}, {@code /} for ROOT),
 *                     or {@code *} for all
 * @param metrics      install the metrics web application ({@code /fairslice/metrics})
 * @param metricsPorts connector ports on which the metrics answer from any address (besides loopback)
 */
public record InstallOptions(Path catalinaBase, Path catalinaHome, Path dist, boolean uninstall, List<String> weave,
        boolean weaveCalls, boolean weaveJdbc, List<String> apps, boolean metrics, List<Integer> metricsPorts) {

    private static final String IDENTIFIER = "[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*";
    /** A package and its subpackages ({@code com.acme..*}), one package ({@code com.acme.*}) or one class. */
    static final Pattern WEAVE = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")*(\\.\\.\\*|\\.\\*)?");

    public InstallOptions {
        // each once, in the order first given: an application listed twice (--apps /shop,/shop, or --apps repeated)
        // got each of its notes twice and was written twice into the settings, as a pattern into the scope file
        weave = List.copyOf(new LinkedHashSet<>(weave));
        apps = List.copyOf(new LinkedHashSet<>(apps));
        metricsPorts = List.copyOf(new LinkedHashSet<>(metricsPorts));
        if (catalinaBase == null) {
            throw new InstallException("--catalina-base DIR is required: the Tomcat instance to install into");
        }
        if (weaveCalls && weave.isEmpty()) {
            throw new InstallException("--weave-calls needs --weave: it adds yield points to the woven classes' calls");
        }
        if (weaveJdbc && weave.isEmpty()) {
            throw new InstallException("--weave-jdbc needs --weave: it acts on the JDBC calls of the woven classes");
        }
        for (String w : weave) {
            if (!WEAVE.matcher(w).matches()) {
                throw new InstallException("--weave " + w + " is not a weaving scope: use a package and its"
                        + " subpackages (com.acme..*), one package (com.acme.*) or one class (com.acme.Checkout)");
            }
            String refused = WeavingScope.refusal(w);
            if (refused != null) { // the applications would refuse to start on it, every one of them
                throw new InstallException("--weave " + w + " " + refused);
            }
        }
        if (apps.isEmpty()) {
            throw new InstallException("--apps needs at least one context path (such as /shop), or *");
        }
        for (String a : apps) {
            if (!a.equals(TomcatSettings.ALL) && !TomcatSettings.isContextPath(a)) {
                throw new InstallException("--apps " + a + " is not a context path: use /shop, / for the ROOT"
                        + " application, or * for every application (" + TomcatSettings.PATH_RULE + ")");
            }
            if (a.equals(TomcatSettings.ROOT_BY_NAME)) {
                // apps=/ROOT selected no application, ROOT included, and the note said it might be deployed later
                throw new InstallException("--apps /ROOT: the ROOT application's context path is /; write --apps /");
            }
        }
        if (apps.contains("*") && apps.size() > 1) {
            throw new InstallException("--apps * already means every application; do not list others with it ("
                    + String.join(",", apps) + ")");
        }
        for (int port : metricsPorts) {
            if (!TcpPorts.isPort(port)) {
                throw new InstallException("--metrics-ports " + port + " is not a TCP port (" + TcpPorts.MIN + ".."
                        + TcpPorts.MAX + ")");
            }
        }
    }

    /** Usage text for {@code --help} and for mistakes. */
    public static final String USAGE = """
            usage: ./fairslice install --catalina-base DIR [options]
                   ./fairslice install --catalina-base DIR --uninstall
                   (from the bundle alone, without a checkout: java -jar DIST/lib/fairslice-tomcat-*.jar, same options)

            Installs fairslice into the Tomcat instance DIR (its CATALINA_BASE): the jars into DIR/lib, a marked block
            into DIR/bin/setenv.sh and setenv.bat, the configuration DIR/conf/fairslice.properties (a template, kept
            once you change it), the metrics web application /fairslice/metrics unless --no-metrics, and with --weave
            the AspectJ weaver into DIR/fairslice.
            Running it again updates the installation; --uninstall removes exactly what it added.

            options:
              --weave PATTERN        weave yield points into these application packages (repeatable or comma-
                                     separated): com.acme..* (package and subpackages), com.acme.* or a class.
                                     Without --weave no weaving agent is set up (yield points only where code
                                     calls Fairslice.yieldPoint()).
              --weave-calls          also a yield point before each call the woven code makes into the JDK or
                                     the DOM/SAX APIs (for loops that spend their time in library calls)
              --weave-jdbc           declare the JDBC calls the woven code makes (queries, commits,
                                     getConnection) blocking: a request gives its run slot to others while
                                     it waits for its database
              --apps PATHS           comma-separated context paths that get fairslice (/shop, / for ROOT);
                                     default * (every application but fairslice's own)
              --no-metrics           do not install the metrics web application
              --metrics-ports PORTS  comma-separated connector ports where /fairslice/metrics answers any client;
                                     default none: only clients on this host, through a loopback address
              --catalina-home DIR    Tomcat's installation, to check its version when DIR has no lib/catalina.jar
              --dist DIR             the bundle to install (default: the folder above this installer's lib/)
              --uninstall            remove what an earlier install added; stop Tomcat first (refused while a
                                     Tomcat runs from DIR: its JVM reads the files it removes)
              --help                 this text
            """;

    /** Parses the command line; throws {@link InstallException} naming the bad option. */
    public static InstallOptions parse(List<String> args, Path defaultDist) {
        Path base = null;
        Path home = null;
        Path dist = defaultDist;
        boolean uninstall = false;
        boolean metrics = true;
        boolean weaveCalls = false;
        boolean weaveJdbc = false;
        List<String> weave = new ArrayList<>();
        List<String> apps = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        Map<String, String> single = new HashMap<>(); // the options that take one value, as given
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--catalina-base" -> base = path(once(single, arg, value(args, ++i, arg)), arg);
                case "--catalina-home" -> home = path(once(single, arg, value(args, ++i, arg)), arg);
                case "--dist" -> dist = path(once(single, arg, value(args, ++i, arg)), arg);
                case "--uninstall" -> uninstall = true;
                case "--no-metrics" -> metrics = false;
                case "--weave-calls" -> weaveCalls = true;
                case "--weave-jdbc" -> weaveJdbc = true;
                case "--weave" -> {
                    String given = value(args, ++i, arg);
                    List<String> patterns = split(given);
                    if (patterns.isEmpty()) { // an empty shell variable, say: not "no weaving"
                        throw new InstallException("--weave needs a package pattern such as com.acme..*; got '"
                                + given + "' (leave --weave out for no weaving agent)");
                    }
                    weave.addAll(patterns);
                }
                case "--apps" -> {
                    String given = value(args, ++i, arg);
                    List<String> paths = split(given);
                    if (paths.isEmpty()) { // an empty shell variable, say: not "every application"
                        throw new InstallException("--apps needs at least one context path, or * for every"
                                + " application; got '" + given + "'");
                    }
                    apps.addAll(paths);
                }
                case "--metrics-ports" -> {
                    String given = value(args, ++i, arg);
                    List<String> listed = split(given);
                    if (listed.isEmpty()) { // an empty shell variable, say: not "this host only"
                        throw new InstallException("--metrics-ports needs at least one port such as 9404; got '"
                                + given + "' (leave --metrics-ports out for this host only)");
                    }
                    for (String p : listed) {
                        // as the metrics application reads them; the range is the record's check
                        int port = TcpPorts.number(p);
                        if (port < 0) {
                            throw new InstallException("--metrics-ports " + p + " is not a port number (digits 0-9)");
                        }
                        ports.add(port);
                    }
                }
                default -> throw InstallException.ofUsage("unknown option '" + arg + "'" + valueHint(arg));
            }
        }
        if (uninstall && (!weave.isEmpty() || weaveCalls || weaveJdbc || !apps.isEmpty() || !ports.isEmpty()
                || !metrics)) {
            throw InstallException.ofUsage("--uninstall takes only --catalina-base (and --catalina-home): it removes"
                    + " what the install record lists");
        }
        if (!metrics && !ports.isEmpty()) {
            throw InstallException.ofUsage("--metrics-ports opens the metrics endpoint on connectors, --no-metrics"
                    + " installs none: give one of them");
        }
        if (apps.isEmpty()) {
            apps.add("*");
        }
        if (!uninstall && dist == null) {
            throw new InstallException("--dist DIR is required when the installer does not run from its bundle");
        }
        return new InstallOptions(base, home, dist, uninstall, weave, weaveCalls, weaveJdbc, apps, metrics,
                ports);
    }

    /**
     * {@code value}, the first of {@code option}'s: a second one is refused. The last one was taken without a word:
     * {@code --catalina-base /srv/tomcat-a ... --catalina-base /srv/tomcat-b} installed into tomcat-b only. A command
     * line of the wrong form, with the usage and the values as given, as the launcher refuses it (refuse_usage): as
     * paths, /srv/tomcat-a/ read /srv/tomcat-a, and java -jar left the usage out.
     */
    private static String once(Map<String, String> given, String option, String value) {
        String before = given.putIfAbsent(option, value);
        if (before != null) {
            throw InstallException.ofUsage(option + " given twice, '" + before + "' and '" + value + "'");
        }
        return value;
    }

    /**
     * A folder option's value. A blank one (an unset shell variable: {@code --catalina-base "$CATALINA_BASE"}) is
     * refused: as a path it is the current directory, and the installer would install into whatever Tomcat that is.
     */
    private static Path path(String given, String option) {
        if (given.isBlank()) {
            throw new InstallException(option + " needs a folder; got '" + given + "'");
        }
        return Path.of(given);
    }

    /**
     * What to add for {@code --weave=com.acme..*}, an option the usage shows joined to its value, or for
     * {@code --uninstall=yes}, a flag given one: the launcher's words (refuse_unknown_options), which refuses them so
     * before java -jar sees them. The usage shows an option that takes a value followed by it
     * ({@code --weave PATTERN}).
     */
    private static String valueHint(String arg) {
        int eq = arg.indexOf('=');
        if (!arg.startsWith("--") || eq <= 0) {
            return "";
        }
        String option = arg.substring(0, eq);
        String named = "(?<![\\w-])" + Pattern.quote(option);
        if (Pattern.compile(named + " [A-Z]+(?![\\w-])").matcher(USAGE).find()) {
            return " (write " + option + " and its value apart)";
        }
        return Pattern.compile(named + "(?![\\w-])").matcher(USAGE).find() ? " (" + option + " takes no value)" : "";
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size() || args.get(i).startsWith("--")) {
            throw InstallException.ofUsage(option + " needs a value");
        }
        return args.get(i);
    }

    private static List<String> split(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }
}
