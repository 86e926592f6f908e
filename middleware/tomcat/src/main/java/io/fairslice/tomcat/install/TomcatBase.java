package io.fairslice.tomcat.install;

import io.fairslice.tomcat.IpLiterals;
import io.fairslice.tomcat.TomcatLayout;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * A Tomcat instance directory ({@code CATALINA_BASE}) as the installer sees it: validated on construction, so that
 * the installer refuses a directory that is not a Tomcat before it writes anything.
 *
 * <p>A {@code CATALINA_BASE} is recognised by {@code conf/server.xml} whose root element is {@code <Server>}. The
 * Tomcat version is read from {@code lib/catalina.jar} ({@code org/apache/catalina/util/ServerInfo.properties}) of
 * the base or of {@code CATALINA_HOME} when one of them has it; fairslice needs Tomcat 10.1 or newer (Jakarta
 * Servlet 6). The deployment folder for context descriptors comes from the first {@code <Engine>} and its default
 * {@code <Host>} in server.xml (Tomcat's {@code conf/<engine>/<host>/}); the URL the installer prints for the metrics
 * from the first HTTP/1.1 {@code <Connector>} of that engine's {@code <Service>}, its port and address
 * ({@link #httpConnector()}).
 */
public final class TomcatBase {

    /** The oldest Tomcat fairslice runs on: 10.1 (Jakarta Servlet 6.0; Tomcat 10.0 is Servlet 5.0). */
    static final int MIN_MAJOR = 10;
    static final int MIN_MINOR = 1;

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+).*");

    private final Path dir;
    private final Path contextDescriptorDir;
    /** The default host's xmlBase when it lies outside the base, where the installer writes nothing; else null. */
    private final Path outsideXmlBase;
    private final Optional<String> version;
    private final Optional<HttpConnector> httpConnector;
    private final List<String> connectorPorts;
    private final Path appBase;
    private final Path metricsWorkDir;

    private TomcatBase(Path dir, Path xmlBase, Path defaultDescriptorDir, Optional<String> version,
            Optional<HttpConnector> httpConnector, List<String> connectorPorts, Path appBase, Path metricsWorkDir) {
        this.dir = dir;
        boolean inside = xmlBase == null || xmlBase.startsWith(dir);
        this.contextDescriptorDir = xmlBase == null || !inside ? defaultDescriptorDir : xmlBase;
        this.outsideXmlBase = inside ? null : xmlBase;
        this.version = version;
        this.httpConnector = httpConnector;
        this.connectorPorts = List.copyOf(connectorPorts);
        this.appBase = appBase;
        this.metricsWorkDir = metricsWorkDir;
    }

    /**
     * An HTTP/1.1 {@code <Connector>} of server.xml. {@code port} and {@code address} are the attributes as written
     * (a port number; an IP address or a host name), or a placeholder such as {@code ${port.http}} that Tomcat
     * replaces from system properties at start and that the installer cannot know. {@code address} is empty when the
     * connector has none (it listens on every interface) or an empty one. {@code tls}: {@code SSLEnabled="true"}.
     * {@code everyInterface}: it has no {@code address} or a wildcard one ({@code 0.0.0.0}, {@code ::}).
     */
    public record HttpConnector(String port, boolean tls, String address, boolean everyInterface) {

        /**
         * {@code path} through this connector from this host: {@code http(s)://HOST:PORT/path}, HOST the connector's
         * {@code address} (an IPv6 literal in brackets), or 127.0.0.1 for a connector on every interface ({@code
         * 0.0.0.0}, {@code ::}: Java binds {@code ::} to IPv4 too) and for an empty address (Tomcat binds it to
         * 127.0.0.1, as {@code InetAddress.getByName("")}).
         */
        public String localUrl(String path) {
            String host = address.isEmpty() || wildcard(address) ? "127.0.0.1" : urlHost(address);
            return (tls ? "https" : "http") + "://" + host + ":" + port + path;
        }

        /**
         * Whether a client on this host reaches it through a loopback address: no or an empty address, a wildcard,
         * {@code localhost}, or a loopback literal ({@code 127.0.0.1}, {@code ::1}). Other names count as not: the
         * installer does not look them up.
         */
        public boolean loopback() {
            InetAddress ip = IpLiterals.parse(address);
            return address.isEmpty() || address.equalsIgnoreCase("localhost")
                    || (ip != null && (ip.isAnyLocalAddress() || ip.isLoopbackAddress()));
        }

        static boolean wildcard(String address) {
            InetAddress ip = IpLiterals.parse(address);
            return ip != null && ip.isAnyLocalAddress();
        }
    }

    /** {@code host} as a URL writes it: an IPv6 literal in brackets (the % of a zone as %25, RFC 6874), else as is. */
    static String urlHost(String host) {
        if (host.startsWith("[") || !host.contains(":") || host.contains("${")) {
            return host;
        }
        return "[" + host.replace("%", "%25") + "]";
    }

    /**
     * Opens {@code dir} as a Tomcat {@code CATALINA_BASE}, or throws {@link InstallException} saying why it is not
     * one. {@code home} (may be null) is {@code CATALINA_HOME}, looked at only for the version.
     */
    public static TomcatBase open(Path dir, Path home) {
        Path base = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(base)) {
            throw new InstallException(base + " is not a directory (--catalina-base must name a Tomcat instance"
                    + " directory, the one holding conf/server.xml)");
        }
        Path serverXml = base.resolve("conf/server.xml");
        if (!Files.isRegularFile(serverXml)) {
            throw new InstallException(base + " is not a Tomcat CATALINA_BASE: it has no conf/server.xml");
        }
        Element server = parse(serverXml);
        if (!server.getTagName().equals("Server")) {
            throw new InstallException(base + " is not a Tomcat CATALINA_BASE: the root element of conf/server.xml is <"
                    + server.getTagName() + ">, Tomcat's is <Server>");
        }
        Element engine = first(server, "Engine");
        if (engine == null) {
            throw new InstallException(serverXml + " has no <Engine>: fairslice cannot tell where web applications"
                    + " are deployed");
        }
        String engineName = attribute(engine, "name", "Catalina");
        // Tomcat lower-cases host names (StandardEngine.setDefaultHost, StandardHost.setName): so does its folder
        String hostName = attribute(engine, "defaultHost", "localhost").toLowerCase(Locale.ENGLISH);
        Element host = host(engine, hostName);
        checkPathCharacters(base);

        Path homeJar = home == null ? null : home.toAbsolutePath().normalize().resolve("lib/catalina.jar");
        if (homeJar != null && !Files.isRegularFile(homeJar)) { // a typo would leave the version unchecked
            throw new InstallException("--catalina-home " + home + " is not a Tomcat CATALINA_HOME: it has no "
                    + "lib/catalina.jar");
        }
        Optional<String> version = readVersion(base.resolve("lib/catalina.jar"));
        if (version.isEmpty() && homeJar != null) {
            version = readVersion(homeJar);
        }
        version.ifPresent(v -> checkVersion(base, v));
        return new TomcatBase(base, xmlBase(base, host), base.resolve("conf").resolve(engineName).resolve(hostName),
                version, httpConnector(engine), connectorPorts(engine), appBase(base, host),
                metricsWorkDir(base, engineName, hostName, host));
    }

    /** The engine's {@code <Host>} of that name, as Tomcat matches it (in any case), or null. */
    private static Element host(Element engine, String hostName) {
        NodeList hosts = engine.getElementsByTagName("Host");
        for (int i = 0; i < hosts.getLength(); i++) {
            if (hosts.item(i) instanceof Element host && attribute(host, "name", "").equalsIgnoreCase(hostName)) {
                return host;
            }
        }
        return null;
    }

    /** The default host's {@code appBase} ({@code webapps} unless server.xml says otherwise; relative: to the base). */
    private static Path appBase(Path base, Element host) {
        String value = host == null ? "webapps" : attribute(host, "appBase", "webapps");
        if (value.contains("${")) { // a property Tomcat would replace: not known here
            value = "webapps";
        }
        return base.resolve(value).normalize();
    }

    /**
     * Where Tomcat puts the metrics application's work folder (StandardContext's default): the default host's
     * {@code workDir}, else {@code work/<engine>/<host>} (relative: to the base), then the application's base name.
     */
    private static Path metricsWorkDir(Path base, String engineName, String hostName, Element host) {
        String workDir = host == null ? "" : attribute(host, "workDir", "");
        Path hostWork = workDir.isEmpty() || workDir.contains("${") // a property Tomcat would replace: not known here
                ? base.resolve("work").resolve(engineName).resolve(hostName) : base.resolve(workDir);
        return hostWork.normalize().resolve(TomcatLayout.METRICS_CONTEXT.substring(1));
    }

    /**
     * The default host's {@code xmlBase} (relative: to the base), where Tomcat then deploys its context descriptors
     * from instead of {@code conf/<engine>/<host>}; null when it has none (or a property Tomcat would replace).
     */
    private static Path xmlBase(Path base, Element host) {
        String xmlBase = host == null ? "" : attribute(host, "xmlBase", "");
        return xmlBase.isEmpty() || xmlBase.contains("${") ? null : base.resolve(xmlBase).normalize();
    }

    /**
     * The default host's {@code xmlBase} when it lies outside the base: the installer writes only inside the base, so
     * the metrics descriptor goes to {@code conf/<engine>/<host>}, which Tomcat does not read then.
     */
    public Optional<Path> outsideXmlBase() {
        return Optional.ofNullable(outsideXmlBase);
    }

    /**
     * The first HTTP/1.1 connector of the engine's service (the connectors that reach the engine's applications): no
     * {@code protocol}, {@code HTTP/1.1}, or a class of {@code org.apache.coyote.http11}; not AJP. Comments are not
     * elements, so a commented-out connector does not count.
     */
    private static Optional<HttpConnector> httpConnector(Element engine) {
        for (Element connector : connectors(engine)) {
            String protocol = connector.getAttribute("protocol").trim();
            String port = connector.getAttribute("port").trim();
            boolean http = protocol.isEmpty() || protocol.equals("HTTP/1.1")
                    || protocol.startsWith("org.apache.coyote.http11.");
            if (http && !port.isEmpty()) {
                String address = connector.getAttribute("address").trim();
                return Optional.of(new HttpConnector(port,
                        connector.getAttribute("SSLEnabled").trim().equalsIgnoreCase("true"), address,
                        !connector.hasAttribute("address") || HttpConnector.wildcard(address)));
            }
        }
        return Optional.empty();
    }

    /** The {@code port} of every connector of the engine's service, any protocol, as written. */
    private static List<String> connectorPorts(Element engine) {
        return connectors(engine).stream().map(c -> c.getAttribute("port").trim()).toList();
    }

    /** The {@code <Connector>} elements of the engine's service, in order (a commented-out one is no element). */
    private static List<Element> connectors(Element engine) {
        List<Element> connectors = new ArrayList<>();
        if (engine.getParentNode() instanceof Element service) {
            for (Node node = service.getFirstChild(); node != null; node = node.getNextSibling()) {
                if (node instanceof Element connector && connector.getTagName().equals("Connector")) {
                    connectors.add(connector);
                }
            }
        }
        return connectors;
    }

    /**
     * The setenv fragments name files below {@code $CATALINA_BASE}; catalina.sh passes CATALINA_OPTS through
     * {@code eval}, so characters the shell would interpret again cannot be carried safely. On Windows cmd's special
     * characters too: in setenv.bat {@code %CATALINA_BASE%} expands outside the quotes of {@code set "..."}.
     */
    static void checkPathCharacters(Path base) {
        checkPathCharacters(base, File.separatorChar == '\\');
    }

    static void checkPathCharacters(Path base, boolean windows) {
        String path = base.toString();
        String refused = windows ? "\"'$`%!\n&^|<>" : "\"'$`\\%!\n";
        for (char c : refused.toCharArray()) {
            if (path.indexOf(c) >= 0) {
                // a line break is named in words, and shown as \n in the path (a carriage return or tab as \r, \t),
                // so the message stays one line
                String what = c == '\n' ? "a line break" : "the character '" + c + "'";
                String shown = path.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
                throw new InstallException(shown + " contains " + what + ", which Tomcat's start"
                        + " scripts would interpret inside CATALINA_OPTS; install into a path without it");
            }
        }
    }

    /**
     * With {@code --weave}, the weaving agent's configuration names the scope file in a {@code ;}-separated list of
     * {@code file:} locations: a base path with {@code ;} splits it, and {@code #} or {@code ?} end the file's path
     * there, so every selected application would refuse to start on a scope file it cannot read. The JVM reads its
     * option {@code -javaagent:JAR=OPTIONS} up to the first {@code =} as the agent's jar: a base path with one
     * ({@code /srv/tomcat=shop}) named a jar that is not there, and Tomcat's JVM did not start at all.
     */
    static void checkWeavingPathCharacters(Path base) {
        for (char c : ";#?".toCharArray()) {
            if (base.toString().indexOf(c) >= 0) {
                throw new InstallException(base + " contains the character '" + c + "', which the weaving agent's"
                        + " configuration (a ;-separated list of file: locations) cannot carry; install into a path"
                        + " without it, or without --weave");
            }
        }
        if (base.toString().indexOf('=') >= 0) {
            throw new InstallException(base + " contains the character '=', which the JVM's -javaagent option cannot"
                    + " carry: it takes the agent's jar path up to the first '=' (the rest are the agent's options),"
                    + " and Tomcat's JVM would not start; install into a path without it, or without --weave");
        }
    }

    static void checkVersion(Path base, String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.matches()) {
            throw new InstallException(base + ": cannot read the Tomcat version '" + version + "'");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR)) {
            throw new InstallException(base + " is Tomcat " + version + "; fairslice needs Tomcat " + MIN_MAJOR + "."
                    + MIN_MINOR + " or newer (Jakarta Servlet 6)");
        }
    }

    private static Optional<String> readVersion(Path catalinaJar) {
        if (!Files.isRegularFile(catalinaJar)) {
            return Optional.empty();
        }
        try (JarFile jar = new JarFile(catalinaJar.toFile())) {
            ZipEntry entry = jar.getEntry("org/apache/catalina/util/ServerInfo.properties");
            if (entry == null) {
                return Optional.empty();
            }
            Properties info = new Properties();
            try (InputStream in = jar.getInputStream(entry)) {
                info.load(in);
            }
            return Optional.ofNullable(info.getProperty("server.number"));
        } catch (IOException e) {
            throw new InstallException("cannot read the Tomcat version from " + catalinaJar + ": " + e.getMessage());
        }
    }

    private static Element parse(Path xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
            builder.setErrorHandler(null);
            return builder.parse(xml.toFile()).getDocumentElement();
        } catch (SAXException e) {
            throw new InstallException(xml + " is not well-formed XML (" + e.getMessage() + "), so this is not a"
                    + " Tomcat that starts");
        } catch (IOException e) {
            throw new InstallException("cannot read " + xml + ": " + e.getMessage());
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser refused secure processing", e);
        }
    }

    private static Element first(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            if (node instanceof Element e) {
                return e;
            }
        }
        return null;
    }

    private static String attribute(Element element, String name, String fallback) {
        String value = element.getAttribute(name).trim();
        return value.isEmpty() ? fallback : value;
    }

    /** The directory, absolute and normalised. */
    public Path dir() {
        return dir;
    }

    /**
     * {@code conf/<engine>/<host>} (the host's name lower-cased, as Tomcat has it), or the host's {@code xmlBase}
     * inside the base: context descriptors here are deployed by Tomcat at startup.
     */
    public Path contextDescriptorDir() {
        return contextDescriptorDir;
    }

    /**
     * Whether the default host has an application at {@code contextPath} ({@code /shop}, {@code /} for ROOT, a
     * nested {@code /a/b} as Tomcat names it, {@code a#b}, in any version, {@code shop##2}): one of
     * {@link #applications()}.
     */
    public boolean hasApplication(String contextPath) {
        return applications().contains(contextPath);
    }

    /**
     * The context paths of the default host's applications, sorted: of the folders and WARs in its {@code appBase}
     * and of the context descriptors. Applications deployed otherwise (a {@code <Context>} in server.xml, the manager)
     * are not seen; an unreadable folder is taken to hold none.
     */
    public SortedSet<String> applications() {
        SortedSet<String> paths = new TreeSet<>();
        deployed((file, contextPath) -> paths.add(contextPath));
        return paths;
    }

    /**
     * The folders, WARs and context descriptors of {@link #applications()} that deploy an application at
     * {@code contextPath}, in any version ({@code fairslice##2.war} for {@code /fairslice}).
     */
    public List<Path> deploying(String contextPath) {
        List<Path> files = new ArrayList<>();
        deployed((file, path) -> {
            if (path.equals(contextPath)) {
                files.add(file);
            }
        });
        return files;
    }

    /** Gives each folder and WAR of the appBase and each context descriptor with the context path it deploys. */
    private void deployed(BiConsumer<Path, String> to) {
        deployed(appBase, ".war", true, to);
        deployed(contextDescriptorDir(), ".xml", false, to);
    }

    /** Gives {@code dir}'s files ending in {@code suffix} (and folders, if {@code folders}) with their context path. */
    private static void deployed(Path dir, String suffix, boolean folders, BiConsumer<Path, String> to) {
        try (Stream<Path> entries = Files.list(dir)) {
            entries.sorted().forEach(p -> {
                String name = p.getFileName().toString();
                if (name.endsWith(suffix) && Files.isRegularFile(p)) {
                    to.accept(p, contextPathOf(name.substring(0, name.length() - suffix.length())));
                } else if (folders && Files.isDirectory(p)) {
                    to.accept(p, contextPathOf(name));
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // what could not be listed is taken to hold none
        }
    }

    /**
     * The context path Tomcat deploys a base name at (a folder's, a WAR's or a context file's name without its
     * suffix): {@code ROOT} is {@code /}, {@code #} a {@code /}, and a version after {@code ##} ({@code shop##2}, a
     * parallel deployment) is no part of it.
     */
    public static String contextPathOf(String baseName) {
        int version = baseName.indexOf("##");
        String name = version < 0 ? baseName : baseName.substring(0, version);
        return name.equals("ROOT") ? "/" : "/" + name.replace('#', '/');
    }

    /**
     * Tomcat's work folder of the metrics application ({@code work/Catalina/localhost/fairslice} by default), which
     * Tomcat makes as it deploys the application.
     */
    public Path metricsWorkDir() {
        return metricsWorkDir;
    }

    /** The default host's application folder ({@code appBase}, {@code webapps} unless server.xml says otherwise). */
    public Path appBase() {
        return appBase;
    }

    /**
     * The {@code port} of every {@code <Connector>} of the engine's service in server.xml, as written: a number, a
     * placeholder such as {@code ${port.http}}, or empty.
     */
    public List<String> connectorPorts() {
        return connectorPorts;
    }

    /** The first HTTP/1.1 connector of the engine's service in server.xml, if it has one. */
    public Optional<HttpConnector> httpConnector() {
        return httpConnector;
    }

    /** The Tomcat version (such as {@code 11.0.25.0}) when a catalina.jar was found. */
    public Optional<String> version() {
        return version;
    }

    /** The path of {@code file} relative to the base, with {@code /} separators (for records and messages). */
    public String relative(Path file) {
        return dir.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    /** The file at {@code relative} (a {@code /}-separated path below the base). */
    public Path resolve(String relative) {
        Path file = dir.resolve(relative).normalize();
        if (!file.startsWith(dir)) {
            throw new InstallException("refusing a path outside " + dir + ": " + relative);
        }
        return file;
    }
}
