package io.fairslice.middleware.weaving;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
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
 * <p>The weaver merges every {@code aop.xml} it finds (the resources named by the system property
 * {@value #CONFIGURATION_PROPERTY}, by default {@code META-INF/aop.xml}, and {@code file:} entries of that property).
 * The operator's {@code <include within="..."/>} elements are the weaving scope. The weaver ignores unknown
 * elements and attributes, weaves nothing for a misspelt package, and disables itself on a malformed pattern with a
 * single warning; this class turns each of those into a {@link #problems() problem} that names the file, the
 * element and the rule broken, so that the middleware can refuse to start (see {@link #requireValid()}).
 *
 * <p>A declared {@code <aspect name="..."/>} must name a class the loader can see. An include must be a package and its subpackages ({@code com.acme..*}), one package ({@code com.acme.*}) or
 * one class ({@code com.acme.Checkout}); it must match at least one class visible to the class loader; and it must
 * not lie inside code that is never woven (the JDK, the container, AspectJ, metrics libraries, fairslice).
 */
public final class WeavingScope {

    /** The weaver's own system property: {@code ;}-separated resource names or {@code file:} URLs. */
    public static final String CONFIGURATION_PROPERTY = "org.aspectj.weaver.loadtime.configuration";

    /** The weaver's default when {@value #CONFIGURATION_PROPERTY} is not set. */
    public static final String DEFAULT_CONFIGURATION = "META-INF/aop.xml;META-INF/aop-ajc.xml;org/aspectj/aop.xml";

    private static final String ASPECT = YieldPointAspect.class.getName();
    private static final String WEAVING_PACKAGE = YieldPointAspect.class.getPackageName() + ".";

    /** Packages that {@link YieldPointAspect} never advises, whatever the scope (its {@code fenced()} pointcut). */
    static final List<String> FENCED = List.of("java", "javax", "jakarta", "jdk", "sun", "com.sun",
            "org.apache.catalina", "org.apache.coyote", "org.apache.tomcat", "org.apache.juli", "org.apache.naming",
            "org.aspectj", "io.micrometer", "io.prometheus", "io.fairslice.middleware", "io.fairslice.probe");

    private static final String IDENTIFIER = "[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*";
    private static final Pattern INCLUDE = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")*(\\.\\.\\*|\\.\\*)?");

    /** The elements and attributes the weaver understands (AspectJ's aop.xml DTD); anything else is a typo. */
    private static final Map<String, Set<String>> ELEMENTS = Map.ofEntries(
            Map.entry("aspectj", Set.of()),
            Map.entry("weaver", Set.of("options")),
            Map.entry("include", Set.of("within")),
            Map.entry("exclude", Set.of("within")),
            Map.entry("dump", Set.of("within", "beforeandafter", "perclassloaderdumpdir")),
            Map.entry("aspects", Set.of()),
            Map.entry("aspect", Set.of("name", "scope", "requires")),
            Map.entry("concrete-aspect",
                    Set.of("name", "extends", "precedence", "perclause", "requires")),
            Map.entry("pointcut", Set.of("name", "expression")),
            Map.entry("before", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("after", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("around", Set.of("pointcut", "invokeClass", "invokeMethod")),
            Map.entry("declare-annotation", Set.of("field", "method", "type", "annotation")));

    private final boolean agentActive;
    private final List<String> sources;
    private final List<String> includes;
    private final List<String> problems;

    private WeavingScope(boolean agentActive, List<String> sources, List<String> includes, List<String> problems) {
        this.agentActive = agentActive;
        this.sources = List.copyOf(sources);
        this.includes = List.copyOf(includes);
        this.problems = List.copyOf(problems);
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
        List<String> sources = new ArrayList<>();
        Set<String> includes = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        for (String entry : configuration.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            if (entry.startsWith("file:")) {
                Path file = filePath(entry);
                if (file == null || !Files.isRegularFile(file)) {
                    problems.add(CONFIGURATION_PROPERTY + " names " + entry + ", which is not a readable file");
                    continue;
                }
                try (InputStream in = Files.newInputStream(file)) {
                    read(entry, in, loader, includes, problems);
                    sources.add(entry);
                } catch (IOException e) {
                    problems.add("cannot read " + entry + ": " + e.getMessage());
                }
            } else {
                Enumeration<URL> urls;
                try {
                    urls = loader.getResources(entry);
                } catch (IOException e) {
                    problems.add("cannot list the resources " + entry + ": " + e.getMessage());
                    continue;
                }
                Set<String> seen = new LinkedHashSet<>();
                while (urls.hasMoreElements()) {
                    URL url = urls.nextElement();
                    if (!seen.add(url.toString())) {
                        continue;
                    }
                    try (InputStream in = url.openStream()) {
                        read(url.toString(), in, loader, includes, problems);
                        sources.add(url.toString());
                    } catch (IOException e) {
                        problems.add("cannot read " + url + ": " + e.getMessage());
                    }
                }
            }
        }
        if (includes.isEmpty() && problems.isEmpty()) {
            problems.add("the weaving scope is empty: no aop.xml has an <include within=\"...\"/> naming the"
                    + " application's packages (read from " + configuration + "), so no yield point is woven");
        }
        return new WeavingScope(isAgentActive(loader), sources, new ArrayList<>(includes), problems);
    }

    private static Path filePath(String entry) {
        try {
            return Paths.get(new URL(entry).toURI());
        } catch (IOException | java.net.URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    private static void read(String source, InputStream in, ClassLoader loader, Set<String> includes,
            List<String> problems) {
        Document document;
        try {
            document = parser().parse(in);
        } catch (SAXException | IOException e) {
            problems.add(source + " is not well-formed XML: " + e.getMessage());
            return;
        }
        Element root = document.getDocumentElement();
        if (!root.getTagName().equals("aspectj")) {
            problems.add(source + ": the root element is <" + root.getTagName() + ">, the weaver wants <aspectj>");
            return;
        }
        check(source, root, loader, includes, problems);
    }

    private static void check(String source, Element element, ClassLoader loader, Set<String> includes,
            List<String> problems) {
        String name = element.getTagName();
        Set<String> attributes = ELEMENTS.get(name);
        if (attributes == null) {
            problems.add(source + ": unknown element <" + name + "> (the weaver would ignore it); known: "
                    + new java.util.TreeSet<>(ELEMENTS.keySet()));
            return;
        }
        for (int i = 0; i < element.getAttributes().getLength(); i++) {
            String attribute = element.getAttributes().item(i).getNodeName();
            if (!attributes.contains(attribute)) {
                problems.add(source + ": unknown attribute " + attribute + " on <" + name
                        + "> (the weaver would ignore it); known: " + new java.util.TreeSet<>(attributes));
            }
        }
        Node parent = element.getParentNode();
        if (name.equals("aspect") && !element.getAttribute("name").isBlank()) {
            String aspect = element.getAttribute("name").trim();
            if (loader.getResource(aspect.replace('.', '/') + ".class") == null) {
                problems.add(source + ": <aspect name=\"" + aspect + "\"/> names no class visible to " + loader
                        + ": a typo?");
            }
        }
        if (name.equals("include") && parent instanceof Element p && p.getTagName().equals("weaver")) {
            String within = element.getAttribute("within").trim();
            // fairslice's own aop.xml includes its aspects (they need weaving to become aspects); not scope
            if (!within.startsWith(WEAVING_PACKAGE)) {
                String problem = checkInclude(within, loader);
                if (problem == null) {
                    includes.add(within);
                } else {
                    problems.add(source + ": <include within=\"" + within + "\"/> " + problem);
                }
            }
        }
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e) {
                check(source, e, loader, includes, problems);
            }
        }
    }

    /** Null when {@code within} is a usable scope, else what is wrong with it. */
    static String checkInclude(String within, ClassLoader loader) {
        if (within.equals("*") || within.equals("*..*")) {
            return "would weave every class; name the application's packages instead, such as com.acme..*";
        }
        if (!INCLUDE.matcher(within).matches()) {
            return "is not a scope fairslice accepts: use a package and its subpackages (com.acme..*), one package"
                    + " (com.acme.*) or one class (com.acme.Checkout)";
        }
        boolean subpackages = within.endsWith("..*");
        boolean onePackage = !subpackages && within.endsWith(".*");
        String name = subpackages ? within.substring(0, within.length() - 3)
                : onePackage ? within.substring(0, within.length() - 2) : within;
        String packageName = subpackages || onePackage ? name : packageOf(name);
        for (String fenced : FENCED) {
            if (packageName.equals(fenced) || packageName.startsWith(fenced + ".")) {
                return "lies inside " + fenced + ", which is never woven (JDK, container, AspectJ, metrics and"
                        + " fairslice code get no yield points)";
            }
        }
        String resource = subpackages || onePackage ? name.replace('.', '/') + "/"
                : name.replace('.', '/') + ".class";
        if (loader.getResource(resource) == null) {
            return "matches no class visible to " + loader + " (no resource " + resource + "): a typo?";
        }
        return null;
    }

    private static String packageOf(String className) {
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

    /** Whether the weaving agent ({@code -javaagent:aspectjweaver.jar}) processed the aspect in this loader. */
    public boolean agentActive() {
        return agentActive;
    }

    /** The aop.xml files read, in the weaver's order. */
    public List<String> sources() {
        return sources;
    }

    /** The operator's valid includes: the weaving scope. */
    public List<String> includes() {
        return includes;
    }

    /** What is wrong, one sentence each, naming the file and the element; empty when the scope is usable. */
    public List<String> problems() {
        return problems;
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

    /** One line for the startup log: agent, scope and how many classes were woven so far. */
    public String summary() {
        if (!agentActive) {
            return "fairslice weaving: off (no -javaagent:aspectjweaver.jar, or the aspect is not visible to this"
                    + " class loader); yield points only where code calls Fairslice.yieldPoint()";
        }
        return "fairslice weaving: on, scope " + includes + " from " + sources + "; " + WovenClasses.count()
                + " woven classes initialised so far" + (problems.isEmpty() ? "" : "; problems: " + problems);
    }

    @Override
    public String toString() {
        return "WeavingScope[agentActive=" + agentActive + ", includes=" + includes + ", sources=" + sources
                + ", problems=" + problems + "]";
    }
}
