package io.fairslice.middleware.weaving;

import io.fairslice.middleware.internal.ApplicationNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * What the AspectJ load-time weaver will weave for one class loader, read the way the weaver reads it, and checked
 * for the mistakes the weaver passes over in silence.
 *
 * <p>The weaver merges every {@code aop.xml} it finds: the resources named by the system property
 * {@value #CONFIGURATION_PROPERTY} (by default {@code META-INF/aop.xml}) and the {@code file:} entries of that
 * property. The operator's {@code <include within="..."/>} elements are the weaving scope. The weaver ignores
 * unknown elements and attributes, weaves nothing for a misspelt package, and disables itself on a malformed pattern
 * with one warning; this class reports each of those as a {@link #problems() problem} naming the file, the element
 * and the rule broken, so that the middleware can refuse to start ({@link #requireValid()}).
 *
 * <p>Rules: a declared {@code <aspect name="..."/>} must name a class the loader can see. An include of a package and
 * its subpackages ({@code com.acme..*}), one package ({@code com.acme.*}) or one class ({@code com.acme.Checkout}) must
 * not lie inside code that is never woven (the JDK, the container, AspectJ, metrics libraries, fairslice), nor around
 * it ({@code org.apache..*}), nor take in every library of a top-level name many vendors share ({@code org..*}, but not
 * an application's own {@code myapp..*}; {@link #refusal}), and must match at least one class the loader can see. That
 * last rule gives a {@link #notes() note} instead when the include comes from a configuration shared by the whole JVM
 * (a {@code file:} entry, or an aop.xml in the folders of a standalone Tomcat's common and shared loaders, such as
 * {@code lib/}): in a container with several web applications such a file legitimately names packages of the others. An
 * aop.xml merely seen by the parent loader is the application's own: in an embedded Tomcat (Spring Boot) that is where
 * the application's classes are. A pattern the weaver cannot parse (a trailing dot: it then drops the whole file) or
 * that names no class (a trailing {@code ..}, slashes) is a problem. Any other type pattern
 * ({@code com.acme..*Service}, {@code Foo+}: an application's own aop.xml may have them for its own aspects) is valid
 * for the weaver, which then puts yield points there too: it is part of the scope, with a warning that fairslice cannot
 * check it. An empty scope is a warning as well: nothing is woven. An exclude that matches no class excludes nothing:
 * a warning.
 */
public final class WeavingScope {

    /** The weaver's own system property: {@code ;}-separated resource names or {@code file:} URLs. */
    public static final String CONFIGURATION_PROPERTY = "org.aspectj.weaver.loadtime.configuration";

    /** The weaver's default when {@value #CONFIGURATION_PROPERTY} is not set. */
    public static final String DEFAULT_CONFIGURATION = "META-INF/aop.xml;META-INF/aop-ajc.xml;org/aspectj/aop.xml";
    /** The resource in fairslice's jar declaring the call-site yield points' aspect (the installer's --weave-calls). */
    public static final String CALL_SITE_CONFIGURATION = "META-INF/fairslice/aop-calls.xml";
    /** The resource in fairslice's jar that declares the woven JDBC calls blocking (the installer's --weave-jdbc). */
    public static final String BLOCKING_CALL_CONFIGURATION = "META-INF/fairslice/aop-jdbc.xml";

    // names, not class literals: this class must work where AspectJ's annotations are not on the class path
    private static final String WEAVING_PACKAGE = WeavingScope.class.getPackageName() + ".";
    private static final String ASPECT = WEAVING_PACKAGE + "YieldPointAspect";

    // Joined at run time, not string literals: the Tomcat bundle relocates these packages (maven-shade), and shade
    // rewrites every string constant that starts with a relocated package as well. As literals they read
    // io.fairslice.shaded.micrometer and .prometheus in the bundle, so the jar's own
    // <exclude within="io.micrometer..*"/> and io.prometheus were no longer fenced: every Tomcat start with weaving
    // warned they "exclude nothing: a typo?", and an include of io.micrometer..* was not refused there
    // (BundleWeavingScopeIT in middleware/tomcat).
    private static final String MICROMETER = String.join(".", "io", "micrometer");
    private static final String PROMETHEUS = String.join(".", "io", "prometheus");

    /** Packages that {@link YieldPointAspect} never advises, whatever the scope (its {@code fenced()} pointcut). */
    static final List<String> FENCED = List.of("java", "javax", "jakarta", "jdk", "sun", "com.sun",
            "org.apache.catalina", "org.apache.coyote", "org.apache.tomcat", "org.apache.juli", "org.apache.naming",
            "org.aspectj", MICROMETER, PROMETHEUS, "io.fairslice.middleware", "io.fairslice.probe",
            "io.fairslice.tomcat", "io.fairslice.shaded", "org.apache.jasper", "org.apache.el", "org.eclipse.jdt");

    /** The package Jasper, Tomcat's JSP compiler, puts every compiled JSP in (its default {@code jspPackage}). */
    static final String JSP_PACKAGE = "org.apache.jsp";

    private static final String IDENTIFIER = "[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*";
    private static final Pattern INCLUDE = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")*(\\.\\.\\*|\\.\\*)?");
    /** One name pattern of a type pattern: segments of identifier characters and {@code *}, joined by . or .. */
    private static final String SEGMENT = "[\\p{javaJavaIdentifierPart}*]+";
    private static final Pattern NAME_PATTERN = Pattern.compile(SEGMENT + "(\\.\\.?" + SEGMENT + ")*\\+?(\\[])*");
    /** The characters of AspectJ's type patterns: names, wildcards, +, [], !, &&, ||, parentheses, annotations. */
    private static final Pattern TYPE_PATTERN = Pattern.compile("[\\p{javaJavaIdentifierPart}.*+\\[\\]!&|()@\\s]+");
    private static final Pattern OPERATORS = Pattern.compile("[\\s!&|()]+");

    /**
     * First segments that many vendors' packages share (reverse domain names' top levels, and the platforms'): a tree
     * rooted at one ({@code org..*}) takes in every library of that name. An application's own one-segment root
     * ({@code myapp..*}, {@code shop..*}) is not among them and stays allowed.
     */
    private static final Set<String> SHARED_ROOTS = Set.of("com", "org", "net", "io", "edu",
            "gov", "dev", "app", "co", "me", "eu", "us", "uk", "de", "fr", "nl", "ch", "at", "be", "it", "es", "se",
            "no", "dk", "fi", "pl", "cz", "ru", "cn", "jp", "kr", "in", "br", "au", "ca", "info", "biz", "java",
            "javax", "jakarta", "jdk", "sun", "kotlin", "kotlinx", "scala", "groovy");

    /** The elements and attributes the weaver understands (AspectJ's aop.xml DTD); anything else is a typo. */
    private static final Map<String, Set<String>> ELEMENTS = Map.ofEntries(
            Map.entry("aspectj", Set.of()),
            Map.entry("weaver", Set.of("options")),
            Map.entry("include", Set.of("within")),
            Map.entry("exclude", Set.of("within")),
            Map.entry("dump", Set.of("within", "beforeandafter", "perclassloaderdumpdir")),
            Map.entry("aspects", Set.of()),
            Map.entry("aspect", Set.of("name", "scope", "requires")),
            Map.entry("concrete-aspect", Set.of("name", "extends", "precedence", "perclause", "requires")),
            Map.entry("pointcut", Set.of("name", "expression")),
            Map.entry("before", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("after", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("around", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("declare-annotation", Set.of("field", "method", "type", "annotation")));

    private final boolean agentActive;
    private final List<String> sources;
    private final List<String> includes;
    private final List<String> problems;
    private final List<String> warnings;
    private final List<String> notes;

    private WeavingScope(boolean agentActive, Findings findings) {
        this.agentActive = agentActive;
        this.sources = List.copyOf(findings.sources);
        this.includes = List.copyOf(findings.includes);
        this.problems = List.copyOf(findings.problems);
        this.warnings = List.copyOf(findings.warnings);
        this.notes = List.copyOf(findings.notes);
    }

    /** Reads the weaving configuration visible to {@code loader}, as the weaver does, and checks it. */
    public static WeavingScope inspect(ClassLoader loader) {
        return inspect(loader, System.getProperty(CONFIGURATION_PROPERTY, DEFAULT_CONFIGURATION));
    }

    /**
     * Reads {@code configuration} (the value {@value #CONFIGURATION_PROPERTY} would have) instead of the system
     * property: for tests and for checking a configuration before deploying it.
     */
    public static WeavingScope inspect(ClassLoader loader, String configuration) {
        Findings findings = new Findings(loader);
        for (String entry : configuration.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            if (entry.startsWith("file:")) {
                readFile(entry, findings);
            } else {
                readResources(entry, findings);
            }
        }
        if (findings.includesSeen == 0 && findings.problems.isEmpty()) {
            findings.warnings.add("the weaving scope is empty: no aop.xml has an <include within=\"...\"/> naming"
                    + " the application's packages (read from " + configuration + "), so nothing is woven");
        }
        return new WeavingScope(isAgentActive(loader), findings);
    }

    private static void readFile(String entry, Findings findings) {
        Path file = filePath(entry);
        if (file == null || !Files.isRegularFile(file)) {
            findings.problems.add(CONFIGURATION_PROPERTY + " names " + entry + ", which is not a readable file");
            return;
        }
        try (InputStream in = Files.newInputStream(file)) {
            read(entry, in, true, findings);
        } catch (IOException e) {
            findings.problems.add("cannot read " + entry + ": " + e.getMessage());
        }
    }

    private static void readResources(String name, Findings findings) {
        ClassLoader loader = findings.loader;
        List<Path> containerFolders = containerFolders();
        try {
            Set<String> seen = new LinkedHashSet<>();
            for (Enumeration<URL> urls = loader.getResources(name); urls.hasMoreElements(); ) {
                URL url = urls.nextElement();
                if (!seen.add(url.toString())) {
                    continue;
                }
                try (InputStream in = url.openStream()) {
                    read(url.toString(), in, inFolders(url, containerFolders), findings);
                } catch (IOException e) {
                    findings.problems.add("cannot read " + url + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            findings.problems.add("cannot list the resources " + name + ": " + e.getMessage());
        }
    }

    /**
     * Where a standalone Tomcat's common and shared class loaders read jars and classes: {@code lib/} of
     * {@code catalina.base} and {@code catalina.home}, and the entries of {@code common.loader} and
     * {@code shared.loader} (Tomcat registers catalina.properties as system properties). An aop.xml there is seen by
     * every web application, so it may name the others' packages. Being seen by the parent loader is not the mark:
     * in an embedded Tomcat (Spring Boot's TomcatEmbeddedWebappClassLoader, or any {@code Tomcat} in a main method)
     * the application's own META-INF/aop.xml is on the parent, and a misspelt package there was only a note.
     */
    private static List<Path> containerFolders() {
        List<Path> folders = new ArrayList<>();
        String base = System.getProperty("catalina.base");
        String home = System.getProperty("catalina.home");
        for (String dir : new String[] {base, home}) {
            if (dir != null && !dir.isBlank()) {
                folders.add(Paths.get(dir, "lib").toAbsolutePath().normalize());
            }
        }
        for (String property : List.of("common.loader", "shared.loader")) {
            for (String entry : System.getProperty(property, "").split(",")) {
                String path = entry.strip().replace("\"", "");
                if (base != null) {
                    path = path.replace("${catalina.base}", base);
                }
                if (home != null) {
                    path = path.replace("${catalina.home}", home);
                }
                path = path.replaceAll("[*][^/\\\\]*$", ""); // lib/*.jar: the folder
                if (!path.isBlank() && !path.contains("${")) {
                    try {
                        folders.add(Paths.get(path).toAbsolutePath().normalize());
                    } catch (IllegalArgumentException notAPath) { // InvalidPathException is one
                        // not a folder of this file system: nothing of it to match
                    }
                }
            }
        }
        return folders;
    }

    /** Whether the jar or folder {@code url} comes from lies in one of {@code folders}. */
    private static boolean inFolders(URL url, List<Path> folders) {
        String location = url.toString();
        if (location.startsWith("jar:")) {
            int bang = location.indexOf("!/");
            location = location.substring("jar:".length(), bang < 0 ? location.length() : bang);
        }
        if (!location.startsWith("file:")) {
            return false;
        }
        Path path = filePath(location);
        if (path == null) {
            return false;
        }
        Path file = path.toAbsolutePath().normalize();
        return folders.stream().anyMatch(file::startsWith);
    }

    /** The file a {@code file:} entry names, as the weaver reads it: a raw space is a space (TMPDIR=/tmp/a b). */
    private static Path filePath(String entry) {
        try {
            URL url = new URL(entry);
            try {
                return Paths.get(url.toURI());
            } catch (URISyntaxException rawCharacters) {
                return Paths.get(url.getPath()); // what AspectJ does: new URL(entry).getFile()
            }
        } catch (IOException | RuntimeException e) {
            // InvalidPathException; FileSystemNotFoundException for an entry of another scheme (a Spring Boot
            // jar's jar:...!/BOOT-INF/classes/, Tomcat's war: of an unpacked WAR): not a file, and no failure
            return null;
        }
    }

    private static void read(String source, InputStream in, boolean shared, Findings findings) {
        Document document;
        try {
            document = parser().parse(in);
        } catch (SAXException | IOException e) {
            findings.problems.add(source + " is not well-formed XML: " + e.getMessage());
            return;
        }
        findings.sources.add(source);
        Element root = document.getDocumentElement();
        if (!root.getTagName().equals("aspectj")) {
            findings.problems.add(source + ": the root element is <" + root.getTagName()
                    + ">, the weaver wants <aspectj>");
            return;
        }
        check(source, root, shared, findings);
    }

    private static void check(String source, Element element, boolean shared, Findings findings) {
        String name = element.getTagName();
        Set<String> attributes = ELEMENTS.get(name);
        if (attributes == null) {
            findings.problems.add(source + ": unknown element <" + name + "> (the weaver would ignore it); known: "
                    + new TreeSet<>(ELEMENTS.keySet()));
            return;
        }
        for (int i = 0; i < element.getAttributes().getLength(); i++) {
            String attribute = element.getAttributes().item(i).getNodeName();
            if (!attributes.contains(attribute)) {
                findings.problems.add(source + ": unknown attribute " + attribute + " on <" + name
                        + "> (the weaver would ignore it); known: " + new TreeSet<>(attributes));
            }
        }
        ClassLoader loader = findings.loader;
        if (name.equals("aspect") && !element.getAttribute("name").isBlank()) {
            String aspect = element.getAttribute("name").trim();
            if (loader.getResource(aspect.replace('.', '/') + ".class") == null) {
                findings.problems.add(source + ": <aspect name=\"" + aspect + "\"/> names no class visible to "
                        + describe(loader) + ": a typo?");
            }
        }
        Node parent = element.getParentNode();
        if (name.equals("include") && parent instanceof Element p && p.getTagName().equals("weaver")) {
            String within = element.getAttribute("within").trim();
            // fairslice's own aop.xml includes its aspects (they need weaving to become aspects); not scope
            if (!within.startsWith(WEAVING_PACKAGE)) {
                checkInclude(source, within, shared, findings);
            }
        }
        if (name.equals("exclude") && parent instanceof Element p && p.getTagName().equals("weaver")) {
            checkExclude(source, element.getAttribute("within").trim(), findings);
        }
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e) {
                check(source, e, shared, findings);
            }
        }
    }

    private static void checkInclude(String source, String within, boolean shared, Findings findings) {
        findings.includesSeen++;
        String element = source + ": <include within=\"" + within + "\"/> ";
        String refused = refusal(within);
        if (refused != null) {
            findings.problems.add(element + refused);
            return;
        }
        if (!INCLUDE.matcher(within).matches()) {
            // valid for the weaver (an application's own aop.xml may select classes for its own aspects this way),
            // and it weaves fairslice's yield points there too; only the simple forms can be checked here
            findings.warnings.add(element + "is a type pattern fairslice does not check (it checks a package and its"
                    + " subpackages, com.acme..*, one package, com.acme.*, or one class): the weaver puts yield"
                    + " points into whatever it matches");
            findings.includes.add(within);
            return;
        }
        if (compiledAtRunTime(within)) {
            findings.includes.add(within); // JSPs: no class of them exists until Jasper compiles one
            return;
        }
        String resource = resourceOf(within);
        boolean seen = visible(findings.loader, resource);
        if (!seen || onePackage(within) && !hasClassesIn(findings.loader, resource)) {
            String miss = element + "matches no class visible to " + describe(findings.loader) + (seen
                    ? " (no class in " + resource + " itself: " + within + " is that package's classes only, "
                            + within.substring(0, within.length() - 2) + "..* its subpackages' too)"
                    : " (no resource " + resource + ")");
            if (shared) {
                findings.notes.add(miss + "; the file is shared by the JVM, so it may name another application's"
                        + " classes");
            } else {
                findings.problems.add(miss + ": a typo?");
            }
            return;
        }
        findings.includes.add(within);
    }

    /**
     * Type patterns that are every class: the wildcards, and every subtype of Object ({@code *+}, {@code Object+}).
     * Taken for a pattern fairslice does not check, they passed with a warning and wove every library.
     */
    private static final Set<String> EVERY_CLASS = Set.of("*", "*..*", "*+", "*..*+", "Object+",
            "java.lang.Object+");

    /** {@code pattern} without blanks around it and without parentheses that enclose all of it. */
    static String unparenthesised(String pattern) {
        String p = pattern.strip();
        while (p.length() > 1 && p.charAt(0) == '(' && closingOf(p) == p.length() - 1) {
            p = p.substring(1, p.length() - 1).strip();
        }
        return p;
    }

    /** The index of the parenthesis that closes the one at {@code p}'s start, or -1. */
    private static int closingOf(String p) {
        int depth = 0;
        for (int i = 0; i < p.length(); i++) {
            if (p.charAt(i) == '(') {
                depth++;
            } else if (p.charAt(i) == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Why {@code pattern} is refused as weaving scope whatever the applications hold, or null: the weaver cannot use it
     * ({@link #malformed}), or it reaches code that must not be woven. That is every class ({@code *}), code inside a
     * {@link #FENCED} package, and also a package tree around one: {@code org.apache..*} takes in Tomcat (whose own
     * fence only the aspect's pointcut and the jar's excludes keep) and every other library under {@code org.apache},
     * {@code io.fairslice..*} fairslice itself; and a tree rooted at a first segment that many vendors share
     * ({@code org..*}, {@code io..*}, {@code com..*}: {@link #SHARED_ROOTS}) is every library of that name, such as H2
     * and AssertJ, woven with yield points the lock guard does not see into. An application's own one-segment root
     * ({@code myapp..*}) passes. Of a pattern with alternatives ({@code com.acme..* || org..*}) each is judged; one
     * made of negations alone ({@code !com.acme..*}, {@code !a.B && !a.C}, not narrowed by a positive part) is every
     * other class. Parentheses around the whole pattern or a part are read through ({@code (!com.acme..*)}). The
     * installer refuses its {@code --weave} patterns by the same rules.
     */
    public static String refusal(String pattern) {
        // (com.acme..*) is com.acme..*, and (*) every class, as the weaver reads them
        String within = unparenthesised(pattern);
        if (EVERY_CLASS.contains(within)) {
            return "would weave every class; name the application's packages instead, such as com.acme..*";
        }
        String malformed = malformed(within);
        if (malformed != null) {
            return malformed;
        }
        if (within.contains("||")) {
            for (String alternative : within.split("\\|\\|")) {
                String one = alternative.strip().replaceAll("^\\(+|\\)+$", "").strip();
                String refused = one.isEmpty() ? null : refusal(one);
                if (refused != null) {
                    return "has an alternative, " + one + ", that " + refused;
                }
            }
            return null;
        }
        if (Arrays.stream(within.split("&&")).allMatch(part -> unparenthesised(part).startsWith("!"))) {
            return "weaves every class but the ones it negates, libraries and the container included; name the"
                    + " application's packages instead, such as com.acme..*";
        }
        String fenced = INCLUDE.matcher(within).matches() ? fenceAround(within) : null;
        String tree = treeOf(within);
        if (tree != null) {
            if (tree.isEmpty()) {
                return "reaches into every package, libraries and the container included; name the application's"
                        + " packages instead, such as com.acme..*";
            }
            for (String f : FENCED) {
                if (inPackage(tree, f)) {
                    fenced = f;
                } else if (f.startsWith(tree + ".")) {
                    return "takes in " + f + ", which is never woven (JDK, container, AspectJ, metrics and fairslice"
                            + " code get no yield points), and whatever else lies under " + tree + "; name the"
                            + " application's packages instead";
                }
            }
            if (fenced == null && SHARED_ROOTS.contains(tree)) {
                return "takes in every library whose packages start with " + tree + ". (every " + tree + ".*"
                        + " vendor's); name the application's packages instead, such as " + tree + ".acme..*";
            }
        }
        if (fenced != null) {
            return "lies inside " + fenced + ", which is never woven (JDK, container, AspectJ, metrics and"
                    + " fairslice code get no yield points)";
        }
        return null;
    }

    /**
     * The package a pattern reaches every subpackage of, or null: the literal segments before its first {@code ..}
     * or its first wildcard segment followed by one ({@code com.acme} for {@code com.acme..*} and for
     * {@code com.acme.*..*Service}), empty when it starts with a wildcard ({@code *..*Servlet}). Patterns with
     * operators ({@code !}, {@code &&}, {@code ||}, annotations) are not read.
     */
    private static String treeOf(String within) {
        int dots = within.indexOf("..");
        if (dots < 0 || OPERATORS.matcher(within).find() || within.contains("@")) {
            return null;
        }
        List<String> literal = new ArrayList<>();
        for (String segment : within.substring(0, dots).split("\\.")) {
            if (segment.contains("*")) {
                break;
            }
            literal.add(segment);
        }
        return String.join(".", literal);
    }

    /**
     * Why the weaver cannot use {@code within} as a type pattern, or null. The weaver drops the whole aop.xml it is in
     * on a pattern it cannot parse ({@code com.acme..*.}: "name pattern cannot finish with .", so nothing at all is
     * woven, with one line in the log), and a pattern that parses but names no class ({@code com.acme..},
     * {@code com/acme/..*}) weaves nothing without a word: a warning was not enough for either.
     */
    static String malformed(String within) {
        if (within.isEmpty()) {
            return "is empty: name the application's packages, such as com.acme..*";
        }
        if (!TYPE_PATTERN.matcher(within).matches()) {
            return "is not a type pattern (a class name is dotted, com.acme..*, never com/acme/..*): the weaver"
                    + " matches it against no class, or cannot parse it and weaves nothing at all";
        }
        for (String token : OPERATORS.split(within)) {
            String name = token.startsWith("@") ? token.substring(1) : token;
            if (name.isEmpty() || NAME_PATTERN.matcher(name).matches()) {
                continue;
            }
            if (name.endsWith("..")) {
                return "ends in .., which no class name does: the weaver weaves nothing for it, or drops the whole"
                        + " aop.xml it is in (a package and its subpackages is com.acme..*)";
            }
            if (name.endsWith(".")) {
                return "ends in a dot: the weaver cannot parse it (\"name pattern cannot finish with .\") and drops"
                        + " the whole aop.xml, so nothing at all is woven";
            }
            return "has an empty name segment (" + name + ": a dot at the start, or three in a row), which no class"
                    + " name has: the weaver matches nothing with it, or cannot parse it and weaves nothing at all";
        }
        return null;
    }

    /** An exclude that matches no class excludes nothing: the hot helper it was meant for stays woven. */
    private static void checkExclude(String source, String within, Findings findings) {
        if (!INCLUDE.matcher(within).matches()) {
            return; // a type pattern: the weaver's to match
        }
        if (fenceAround(within) != null || compiledAtRunTime(within)) {
            return; // never woven anyway (fairslice's own excludes are all of this kind), or JSPs not compiled yet
        }
        String resource = resourceOf(within);
        if (!visible(findings.loader, resource)) {
            findings.warnings.add(source + ": <exclude within=\"" + within + "\"/> matches no class visible to "
                    + describe(findings.loader) + " (no resource " + resource + "), so it excludes nothing: a typo?");
        }
    }

    /**
     * Whether a simple include form names JSPs: Jasper compiles each JSP at run time (into the host's work folder) to a
     * class of {@code org.apache.jsp} (or a package below it), which no class loader can show before the JSP's first
     * request, so neither the startup check nor the installer can look for it.
     */
    public static boolean compiledAtRunTime(String within) {
        return inPackage(packageOf(within), JSP_PACKAGE);
    }

    /**
     * The {@link #FENCED} package a simple include form lies in, or null: code never woven (JDK, container, AspectJ,
     * metrics, fairslice), so an include there stops the application's start. The installer refuses such a scope.
     */
    public static String fenceAround(String within) {
        String packageName = packageOf(within);
        for (String fenced : FENCED) {
            if (inPackage(packageName, fenced)) {
                return fenced;
            }
        }
        return null;
    }

    /** Whether {@code packageName} is {@code outer} or a package below it. */
    private static boolean inPackage(String packageName, String outer) {
        return packageName.equals(outer) || packageName.startsWith(outer + ".");
    }

    /** The package of a simple include form: the pattern's package for com.acme..* and com.acme.*. */
    private static String packageOf(String within) {
        if (within.endsWith("..*")) {
            return within.substring(0, within.length() - 3);
        }
        if (within.endsWith(".*")) {
            return within.substring(0, within.length() - 2);
        }
        return classPackage(within);
    }

    /**
     * The resource that proves a simple include form ({@code com.acme..*}, {@code com.acme.*},
     * {@code com.acme.Checkout}) matches something: its package's folder ({@code com/acme/}), or its class
     * ({@code com/acme/Checkout.class}).
     */
    static String resourceOf(String within) {
        boolean packages = within.endsWith(".*");
        return packages ? packageOf(within).replace('.', '/') + "/" : within.replace('.', '/') + ".class";
    }

    /**
     * Which class files a simple include form ({@code com.acme..*}, {@code com.acme.*}, {@code com.acme.Checkout})
     * names, by their path from a class-path root ({@code com/acme/shop/Cart.class}): any class under its package's
     * folder, only those directly in it, or its one class. The installer looks for them in the applications on disk.
     */
    public static Predicate<String> classFilesOf(String within) {
        String resource = resourceOf(within);
        if (!within.endsWith(".*")) {
            return resource::equals;
        }
        return onePackage(within) ? classDirectlyIn(resource)
                : name -> name.startsWith(resource) && name.endsWith(".class");
    }

    /** {@code com.acme.*}: the classes of that package only, not of its subpackages ({@code com.acme..*}). */
    private static boolean onePackage(String within) {
        return within.endsWith(".*") && !within.endsWith("..*");
    }

    /**
     * True when a class lies in {@code folder} itself (not only in its subfolders), where {@code loader} finds it: in
     * a folder on the class path or a jar. Where a location cannot be listed (another URL scheme) it says true. A
     * one-package include whose package held subpackages only ({@code com.acme.*} beside {@code com.acme.shop})
     * passed, and wove nothing.
     */
    private static boolean hasClassesIn(ClassLoader loader, String folder) {
        try {
            for (URL url : Collections.list(loader.getResources(folder))) {
                Boolean found = classesIn(url, folder);
                if (found == null || found) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            return true;
        }
        return anyJarEntry(loader, classDirectlyIn(folder));
    }

    /** Whether the folder at {@code url} holds a class itself; null when that cannot be told. */
    private static Boolean classesIn(URL url, String folder) {
        if (url.getProtocol().equals("file")) {
            Path dir = filePath(url.toString());
            if (dir == null) {
                return null;
            }
            try (var files = Files.list(dir)) {
                return files.anyMatch(f -> f.getFileName().toString().endsWith(".class") && Files.isRegularFile(f));
            } catch (IOException e) {
                return null;
            }
        }
        if (url.getProtocol().equals("jar")) {
            String spec = url.toString();
            int bang = spec.indexOf("!/");
            Path jar = bang < 0 ? null : filePath(spec.substring("jar:".length(), bang));
            return jar == null || !Files.isRegularFile(jar) ? null : jarHas(jar, classDirectlyIn(folder));
        }
        return null;
    }

    /** A jar entry's name that is a class directly in {@code folder}, not in a folder under it. */
    private static Predicate<String> classDirectlyIn(String folder) {
        return name -> name.startsWith(folder) && name.endsWith(".class") && name.indexOf('/', folder.length()) < 0;
    }

    /**
     * True when {@code loader} can see {@code resource}. A package folder is also looked for among the entries of
     * the jars of URL class loaders (Tomcat's web application loader is one): a jar built without directory entries
     * has its classes but no resource for their package.
     */
    private static boolean visible(ClassLoader loader, String resource) {
        if (loader.getResource(resource) != null) {
            return true;
        }
        return resource.endsWith("/") && anyJarEntry(loader, name -> name.startsWith(resource));
    }

    /**
     * Whether a jar of {@code loader}'s URL class loaders, or of their parents', has an entry that {@code entry}
     * accepts: a jar built without directory entries has its classes but no resource for their package.
     */
    private static boolean anyJarEntry(ClassLoader loader, Predicate<String> entry) {
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    Path jar = filePath(url.toString());
                    if (jar != null && Files.isRegularFile(jar) && Boolean.TRUE.equals(jarHas(jar, entry))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether the jar has an entry whose name {@code entry} accepts; null when it cannot be read. */
    private static Boolean jarHas(Path jar, Predicate<String> entry) {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(ZipEntry::getName).anyMatch(entry);
        } catch (IOException e) {
            return null;
        }
    }

    private static String classPackage(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static DocumentBuilder parser() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // aop.xml files may name AspectJ's DTD; never fetch it (the weaver does not either)
            builder.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
            builder.setErrorHandler(null);
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser refused secure processing", e);
        }
    }

    /** True when the weaver processed the aspect in {@code loader}: only then do woven classes reach it. */
    private static boolean isAgentActive(ClassLoader loader) {
        try {
            Class<?> aspect = Class.forName(ASPECT, false, loader);
            aspect.getMethod("aspectOf");
            return true;
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            return false;
        }
    }

    /**
     * Checks, before a server starts, the weaving configuration it will have: run with the server's class path (no
     * agent needed). Strict: warnings count as problems, since the one loader checked is the application's. On a
     * problem prints each one and exits with status 2.
     *
     * <p>Without arguments it checks the configuration {@value #CONFIGURATION_PROPERTY} names (the weaver's default
     * when unset) and prints the scope. With {@code --jvm-option FILE} it checks the weaver's default list followed
     * by the scope file FILE ({@link #configurationWith(String)}), prints the scope on standard error and, on
     * standard output, the one JVM option that gives the weaver that configuration: the launcher's {@code serve} and
     * {@code study} use it, so that the weaver's default list is spelt here only and what is checked is what runs.
     */
    public static void main(String[] args) {
        String configuration;
        boolean option = args.length == 2 && args[0].equals("--jvm-option") && !args[1].isBlank();
        if (option) {
            configuration = configurationWith(args[1]);
        } else if (args.length == 0) {
            configuration = System.getProperty(CONFIGURATION_PROPERTY, DEFAULT_CONFIGURATION);
        } else {
            System.err.println("usage: java -cp CLASSPATH [-D" + CONFIGURATION_PROPERTY + "=...] "
                    + WeavingScope.class.getName() + " [--jvm-option SCOPE-FILE]   (got " + String.join(" ", args)
                    + ")");
            System.exit(2);
            return;
        }
        WeavingScope scope = inspect(ClassLoader.getSystemClassLoader(), configuration);
        List<String> all = new ArrayList<>(scope.problems());
        all.addAll(scope.warnings());
        all.addAll(scope.notes());
        String prefix = ApplicationNames.logPrefix(null); // it checks the JVM's configuration, no application's
        if (!all.isEmpty()) {
            System.err.println(prefix + "the weaving configuration is not usable (docs/weaving.md):");
            all.forEach(problem -> System.err.println("  " + problem));
            System.exit(2);
        }
        String line = prefix + "weaving scope " + scope.includes() + " from " + scope.sources();
        if (option) {
            System.err.println(line);
            System.out.println("-D" + CONFIGURATION_PROPERTY + "=" + configuration);
        } else {
            System.out.println(line);
        }
    }

    /**
     * The value of {@value #CONFIGURATION_PROPERTY} that adds the scope file {@code path} after the weaver's default
     * list ({@value #DEFAULT_CONFIGURATION}): naming the property replaces that list, and an application's own
     * {@code aop-ajc.xml} or {@code org/aspectj/aop.xml} would no longer be read. The path goes in as it is, after
     * {@code file:}, as the weaver reads it (a space stays a space).
     */
    public static String configurationWith(String path) {
        return configurationWith(path, List.of());
    }

    /**
     * As {@link #configurationWith(String)}, with {@code resources} (such as {@link #CALL_SITE_CONFIGURATION}) read
     * before the file: each class loader reads a resource only if it sees one of that name (fairslice's jar), where a
     * {@code file:} entry is read by every loader, the JVM's own included, which cannot load an aspect that is in
     * Tomcat's lib/ and said so as an error at every start.
     */
    public static String configurationWith(String path, List<String> resources) {
        StringBuilder c = new StringBuilder(DEFAULT_CONFIGURATION);
        for (String r : resources) {
            c.append(';').append(r);
        }
        return c.append(";file:").append(path).toString();
    }

    /** Whether the weaving agent ({@code -javaagent:aspectjweaver.jar}) processed the aspect in this loader. */
    public boolean agentActive() {
        return agentActive;
    }

    /** The aop.xml files read, in the weaver's order. */
    public List<String> sources() {
        return sources;
    }

    /** The valid includes that match classes of this loader: the weaving scope. */
    public List<String> includes() {
        return includes;
    }

    /** What is wrong, one sentence each naming the file and the element; empty when the configuration is usable. */
    public List<String> problems() {
        return problems;
    }

    /** What may be intended but weaves nothing or less than meant (an empty scope, an exclude of nothing). */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * Includes of a file shared by the JVM that name no class of this application: in a container with several
     * applications (the installer's {@code --apps *}: Tomcat's own manager and examples too) they are the other
     * applications' packages, so they are worth a line in the log, not a warning in every other application. The
     * installer checks its {@code --weave} patterns against the applications on disk, where a typo shows.
     */
    public List<String> notes() {
        return notes;
    }

    /**
     * Throws when the agent is active and the configuration has a problem: a weaver that runs with a misspelt
     * scope is a silent failure. Without the agent nothing is woven whatever the files say, so nothing is checked.
     */
    public void requireValid() {
        if (agentActive && !problems.isEmpty()) {
            throw new IllegalStateException("fairslice weaving: the AspectJ weaving configuration is not usable:\n  "
                    + String.join("\n  ", problems) + "\n(see docs/weaving.md)");
        }
    }

    /**
     * Whether {@link #summary} is a warning: the agent weaves with warnings, or it is off though an aop.xml names
     * packages to weave, or misspells them (the agent forgotten in the JVM's options: nothing is woven, and the scope
     * does not stop the application).
     * Off with no scope is a choice (yield points called by the application, or none), logged as information.
     */
    public boolean worthAWarning() {
        return agentActive ? !warnings.isEmpty() : !includes.isEmpty() || !problems.isEmpty();
    }

    /**
     * One line for the startup log, after the application's name ({@code fairslice[/shop]: weaving on, ...}): agent,
     * scope, warnings and how many classes were woven so far.
     */
    public String summary() {
        if (!agentActive) {
            return "weaving off (no -javaagent:aspectjweaver.jar, or the aspect is not visible to this"
                    + " class loader); yield points only where code calls Fairslice.yieldPoint()"
                    + (includes.isEmpty() ? "" : "; " + sources + " ask(s) to weave " + includes
                            + ", which needs the agent (docs/weaving.md)")
                    + (problems.isEmpty() ? "" : "; problems the agent would refuse: " + problems);
        }
        return "weaving on, scope " + includes + " from " + sources + "; " + WovenClasses.count()
                + " woven classes initialised so far" + (notes.isEmpty() ? "" : "; not in this application: " + notes)
                + (warnings.isEmpty() ? "" : "; WARNING: " + warnings)
                + (problems.isEmpty() ? "" : "; problems: " + problems);
    }

    @Override
    public String toString() {
        return "WeavingScope[agentActive=" + agentActive + ", includes=" + includes + ", sources=" + sources
                + ", problems=" + problems + ", warnings=" + warnings + ", notes=" + notes + "]";
    }

    /**
     * A class loader on one line of the log: Tomcat's web application loaders describe themselves over several lines
     * (name, context, delegation, then their parents'); the lines before the parents', joined.
     */
    static String describe(ClassLoader loader) {
        if (loader == null) {
            return "the bootstrap class loader";
        }
        StringBuilder line = new StringBuilder();
        for (String part : String.valueOf(loader).split("\\R")) {
            if (part.startsWith("---")) {
                break; // Tomcat's "----------> Parent Classloader:" and what follows
            }
            if (!part.isBlank()) {
                line.append(line.length() == 0 ? "" : ", ").append(part.strip());
            }
        }
        return line.toString();
    }

    /** What {@link WeavingScope#inspect} collects as it reads the weaving configuration. */
    private static final class Findings {
        final ClassLoader loader;
        /** The include elements read (fairslice's own aspects' aside), matched or not. */
        int includesSeen;
        final List<String> sources = new ArrayList<>();
        final Set<String> includes = new LinkedHashSet<>();
        final List<String> problems = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        final List<String> notes = new ArrayList<>();

        Findings(ClassLoader loader) {
            this.loader = loader;
        }
    }
}
