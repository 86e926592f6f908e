package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.weaving.WeavingScope;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How fairslice reads and checks the weaver's configuration; this JVM runs under the agent. */
class WeavingScopeTest {

    private final ClassLoader loader = getClass().getClassLoader();

    @TempDir
    Path dir;

    @Test
    void shouldSeeTheAgentAndTheScopeOfThisModule() {
        WeavingScope scope = WeavingScope.inspect(loader);

        System.out.println(scope.summary());
        assertThat(scope.agentActive()).isTrue();
        assertThat(scope.problems()).isEmpty();
        assertThat(scope.includes()).containsExactly("io.fairslice.weavingtest.shop..*",
                "io.fairslice.experiments.app..*", "io.fairslice.weavingtest.probe.YieldPointCounter");
        assertThat(scope.sources()).anyMatch(s -> s.contains("fairslice-middleware") || s.contains("core"))
                .anyMatch(s -> s.contains("test-classes"));
        scope.requireValid();
    }

    @Test
    void shouldAcceptAScopeFileNamedByTheWeaverProperty() throws IOException {
        String file = fragment("<aspectj><weaver><include within=\"io.fairslice.weavingtest.shop.*\"/>"
                + "<include within=\"io.fairslice.weavingtest.shop.Checkout\"/></weaver></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, "META-INF/aop.xml;" + file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.includes()).contains("io.fairslice.weavingtest.shop.*",
                "io.fairslice.weavingtest.shop.Checkout");
    }

    @Test
    void shouldRejectAPackageThatMatchesNoClassInTheApplicationsOwnAopXml() throws IOException {
        Path classes = Files.createDirectories(dir.resolve("classes/META-INF"));
        Files.writeString(classes.resolve("aop.xml"),
                "<aspectj><weaver><include within=\"io.fairslice.weavingtest.shp..*\"/></weaver></aspectj>");
        try (URLClassLoader application =
                new URLClassLoader(new URL[] {dir.resolve("classes").toUri().toURL()}, loader)) {

            WeavingScope scope = WeavingScope.inspect(application, "META-INF/aop.xml");

            assertThat(scope.problems()).singleElement().asString()
                    .contains("io.fairslice.weavingtest.shp..*", "matches no class", "a typo?");
            // the test JVM's own loader wove the aspect; the child loader sees that class
            assertThat(scope.agentActive()).isTrue();
            assertThatThrownBy(scope::requireValid).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("io.fairslice.weavingtest.shp..*");
        }
    }

    /**
     * An embedded Tomcat (Spring Boot's TomcatEmbeddedWebappClassLoader, or any Tomcat in a main method): the
     * application's own META-INF/aop.xml is on the web application loader's parent. Counted as shared because the
     * parent saw it, a misspelt package there was an INFO note, and the application started weaving nothing.
     */
    @Test
    void shouldRejectAMisspeltPackageInTheApplicationsOwnAopXmlUnderAnEmbeddedTomcat() throws Exception {
        Path classes = Files.createDirectories(dir.resolve("app/META-INF"));
        Files.writeString(classes.resolve("aop.xml"),
                "<aspectj><weaver><include within=\"io.fairslice.weavingtest.shp..*\"/></weaver></aspectj>");
        URL app = dir.resolve("app").toUri().toURL();
        try (URLClassLoader application = new URLClassLoader(new URL[] {app}, loader)) {
            Tomcat tomcat = EmbeddedTomcats.onLoopback(dir);
            Context context = tomcat.addContext("", dir.toString());
            context.setParentClassLoader(application);
            tomcat.start();
            try {
                ClassLoader webapp = context.getLoader().getClassLoader();
                assertThat(webapp.getParent()).as("the aop.xml is the parent's").isSameAs(application);

                WeavingScope scope = WeavingScope.inspect(webapp, "META-INF/aop.xml");

                assertThat(scope.notes()).isEmpty();
                assertThat(scope.problems()).singleElement().asString()
                        .contains("io.fairslice.weavingtest.shp..*", "matches no class", "a typo?");
                assertThatThrownBy(scope::requireValid).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("io.fairslice.weavingtest.shp..*");
            } finally {
                tomcat.stop();
                tomcat.destroy();
            }
        }
    }

    /** A standalone Tomcat's lib/ (the common loader's) is every application's: another's package is a note. */
    @Test
    void shouldOnlyNoteAPackageThisApplicationLacksInAnAopXmlOfTheContainersLib() throws IOException {
        Path lib = Files.createDirectories(dir.resolve("base/lib/shared-aspects/META-INF"));
        Files.writeString(lib.resolve("aop.xml"),
                "<aspectj><weaver><include within=\"io.fairslice.weavingtest.other..*\"/></weaver></aspectj>");
        String before = System.getProperty("catalina.base");
        System.setProperty("catalina.base", dir.resolve("base").toString());
        URL folder = dir.resolve("base/lib/shared-aspects").toUri().toURL();
        try (URLClassLoader common = new URLClassLoader(new URL[] {folder}, loader);
                URLClassLoader webapp = new URLClassLoader(new URL[0], common)) {

            WeavingScope scope = WeavingScope.inspect(webapp, "META-INF/aop.xml");

            assertThat(scope.problems()).isEmpty();
            assertThat(scope.notes()).singleElement().asString().contains("io.fairslice.weavingtest.other..*",
                    "shared by the JVM");
        } finally {
            if (before == null) {
                System.clearProperty("catalina.base");
            } else {
                System.setProperty("catalina.base", before);
            }
        }
    }

    /**
     * JSPs: Jasper compiles them at run time into org.apache.jsp, so no class of it exists before a JSP's first
     * request. The Tomcat 10.1 walk-through saw the scope noted as matching nothing though it wove four JSPs.
     */
    @Test
    void shouldTakeTheJspPackageAsItIsWithoutLookingForItsClasses() throws IOException {
        String file = fragment("<aspectj><weaver><include within=\"org.apache.jsp..*\"/>"
                + "<include within=\"io.fairslice.weavingtest.shop..*\"/></weaver></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.warnings()).isEmpty();
        assertThat(scope.notes()).isEmpty();
        assertThat(scope.includes()).containsExactly("org.apache.jsp..*", "io.fairslice.weavingtest.shop..*");
    }

    @Test
    void shouldOnlyNoteWhenAJvmWideFileNamesAPackageThisApplicationLacks() throws IOException {
        String file = fragment("<aspectj><weaver><include within=\"io.fairslice.weavingtest.other..*\"/>"
                + "<include within=\"io.fairslice.weavingtest.shop..*\"/></weaver></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.warnings()).as("another application's package: no warning in this one").isEmpty();
        assertThat(scope.notes()).singleElement().asString().contains("io.fairslice.weavingtest.other..*",
                "shared by the JVM");
        assertThat(scope.includes()).containsExactly("io.fairslice.weavingtest.shop..*");
        assertThat(scope.summary()).doesNotContain("WARNING").contains("not in this application",
                "io.fairslice.weavingtest.other..*");
    }

    @Test
    void shouldRejectAMisspeltElementThatTheWeaverWouldIgnore() throws IOException {
        String file = fragment("<aspectj><weaver><inclde within=\"io.fairslice.weavingtest.shop..*\"/></weaver>"
                + "</aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, file);

        assertThat(scope.problems()).anyMatch(p -> p.contains("unknown element <inclde>"));
    }

    @Test
    void shouldRejectAMisspeltAttribute() throws IOException {
        String file = fragment("<aspectj><weaver><include withn=\"io.fairslice.weavingtest.shop..*\"/></weaver>"
                + "</aspectj>");

        assertThat(WeavingScope.inspect(loader, file).problems())
                .anyMatch(p -> p.contains("unknown attribute withn on <include>"));
    }

    @Test
    void shouldRejectAMisspeltAspectName() throws IOException {
        String file = fragment("<aspectj><aspects>"
                + "<aspect name=\"io.fairslice.middleware.weaving.CallSiteYieldPoints\"/>"
                + "</aspects><weaver><include within=\"io.fairslice.weavingtest.shop..*\"/></weaver></aspectj>");

        assertThat(WeavingScope.inspect(loader, file).problems()).singleElement().asString()
                .contains("io.fairslice.middleware.weaving.CallSiteYieldPoints", "names no class");
    }

    @Test
    void shouldRejectAScopeInsideTheContainer() throws IOException {
        String file = include("org.apache.catalina.core..*");

        assertThat(WeavingScope.inspect(loader, file).problems()).singleElement().asString()
                .contains("lies inside org.apache.catalina", "never woven");
    }

    /**
     * The fence refused only scopes inside it: org.apache..* (Tomcat in it), io.fairslice..* (fairslice), and org..*,
     * io..*, com..* (every library of the name: H2, AssertJ) passed, as did Jasper's packages, which were not fenced.
     */
    @Test
    void shouldRejectAScopeAroundFencedCodeOrEveryLibraryOfATopLevelName() throws IOException {
        Map<String, String> refused = Map.of(
                "org..*", "takes in org.apache.catalina", "io..*", "takes in io.micrometer",
                "com..*", "takes in com.sun", "net..*", "takes in every library whose packages start with net.",
                "org.apache..*", "takes in org.apache.catalina", "io.fairslice..*", "takes in io.fairslice.middleware",
                "*..*Servlet", "reaches into every package", "org.apache.*..*Valve", "takes in org.apache.catalina",
                "org.apache.jasper..*", "lies inside org.apache.jasper",
                "org.eclipse.jdt.internal.compiler.*", "lies inside org.eclipse.jdt");
        for (Map.Entry<String, String> pattern : refused.entrySet()) {
            String file = include(pattern.getKey());

            WeavingScope scope = WeavingScope.inspect(loader, file);

            assertThat(scope.problems()).as(pattern.getKey()).singleElement().asString()
                    .contains("<include within=\"" + pattern.getKey() + "\"/> " + pattern.getValue());
            assertThat(scope.includes()).as(pattern.getKey()).isEmpty();
        }
        assertThat(WeavingScope.refusal("org.apache.el..*")).contains("lies inside org.apache.el");
        assertThat(WeavingScope.refusal("org.apache.jsp..*")).as("compiled JSPs are not Jasper's").isNull();
        assertThat(WeavingScope.refusal("io.fairslice.weavingtest..*")).isNull();
        assertThat(WeavingScope.refusal("myapp..*")).as("an application's own one-segment root").isNull();
        assertThat(WeavingScope.refusal("io.fairslice.weavingtest..* || org..*"))
                .startsWith("has an alternative, org..*, that takes in ");
        assertThat(WeavingScope.refusal("(io.fairslice.weavingtest..* || myapp..*)")).isNull();
        assertThat(WeavingScope.refusal("!io.fairslice.weavingtest..*")).startsWith("weaves every class but");
        assertThat(WeavingScope.refusal("io.fairslice.weavingtest..* && !io.fairslice.weavingtest.shop.*")).isNull();
        // every class in other spellings, which passed as patterns fairslice does not check, with a warning only
        for (String every : new String[] {"(*)", " ( *..* ) ", "*+", "java.lang.Object+", "(Object+)"}) {
            assertThat(WeavingScope.refusal(every)).as(every).startsWith("would weave every class");
        }
        for (String negation : new String[] {"(!io.fairslice.weavingtest..*)", "!a.B && !a.C", "(!a.B) && (!a.C)"}) {
            assertThat(WeavingScope.refusal(negation)).as(negation).startsWith("weaves every class but");
        }
        assertThat(WeavingScope.refusal("(io.fairslice.weavingtest..*)")).isNull();
        assertThat(WeavingScope.refusal("(org..*)")).as("read through its parentheses").startsWith("takes in ");
        assertThat(WeavingScope.refusal("(io.fairslice.weavingtest..*) && (!a.B)")).isNull();
    }

    /**
     * A one-package include of a package that holds subpackages only: AspectJ weaves that package's own classes, so
     * none; it passed, since its folder exists. Its subpackages' tree passes, and a package with classes of its own.
     */
    @Test
    void shouldRejectAOnePackageIncludeOfAPackageWithSubpackagesOnly() throws IOException {
        assertThat(ownAopXmlProblems("io.fairslice.experiments.*")).singleElement().asString().contains(
                "io.fairslice.experiments.*\"/> matches no class", "(no class in io/fairslice/experiments/ itself:"
                + " io.fairslice.experiments.* is that package's classes only, io.fairslice.experiments..* its"
                + " subpackages' too)");

        assertThat(ownAopXmlProblems("io.fairslice.experiments..*")).isEmpty();
        assertThat(ownAopXmlProblems("io.fairslice.experiments.app.*"))
                .as("the study app's classes, in its jar or folder").isEmpty();
        assertThat(ownAopXmlProblems("io.fairslice.weavingtest.shop.*")).as("classes in a folder").isEmpty();
    }

    /** The problems found in an application's own META-INF/aop.xml that includes {@code within}. */
    private List<String> ownAopXmlProblems(String within) throws IOException {
        Path classes = Files.createDirectories(dir.resolve("own-" + System.nanoTime() + "/META-INF")).getParent();
        Files.writeString(classes.resolve("META-INF/aop.xml"),
                "<aspectj><weaver><include within=\"" + within + "\"/></weaver></aspectj>");
        try (URLClassLoader application = new URLClassLoader(new URL[] {classes.toUri().toURL()}, loader)) {
            return WeavingScope.inspect(application, "META-INF/aop.xml").problems();
        }
    }

    @Test
    void shouldRejectWeavingEverything() throws IOException {
        String file = include("*");

        assertThat(WeavingScope.inspect(loader, file).problems()).singleElement().asString()
                .contains("would weave every class");
    }

    /**
     * An application's own aop.xml may select classes for its own aspects with any type pattern: valid for the weaver,
     * which puts fairslice's yield points there too. Part of the scope, with a warning; the application starts.
     */
    @Test
    void shouldWarnAboutATypePatternItCannotCheckAndCountItInTheScope() throws IOException {
        String file = include("io.fairslice.weavingtest..*Servlet");

        WeavingScope scope = WeavingScope.inspect(loader, file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.warnings()).singleElement().asString()
                .contains("io.fairslice.weavingtest..*Servlet", "a type pattern fairslice does not check");
        assertThat(scope.includes()).containsExactly("io.fairslice.weavingtest..*Servlet");
    }

    /**
     * Patterns the weaver cannot use were only warnings: with a trailing dot AspectJ drops the whole definition ("name
     * pattern cannot finish with .") and weaves nothing at all; slashes or a trailing .. match no class name.
     */
    @Test
    void shouldRejectAPatternTheWeaverCannotParseOrThatNamesNoClass() throws IOException {
        for (String within : List.of("io.fairslice.weavingtest.shop..*.", "io.fairslice.weavingtest.shop.",
                "io.fairslice.weavingtest.shop..", "shop..", "io/fairslice/weavingtest/shop/..*",
                "io.fairslice...shop.*", ".io.fairslice.weavingtest.shop..*",
                "!io.fairslice.weavingtest.shop.Fibonacci && io.fairslice.weavingtest.shop..*.")) {
            String file = include(within);

            WeavingScope scope = WeavingScope.inspect(loader, file);

            assertThat(scope.problems()).as(within).singleElement().asString()
                    .contains("<include within=\"" + within + "\"/>");
            assertThat(scope.warnings()).as(within).isEmpty();
            assertThat(scope.includes()).as(within).isEmpty();
        }
        String trailingDot = include("io.fairslice.weavingtest.shop..*.");
        assertThat(WeavingScope.inspect(loader, trailingDot).problems()).singleElement().asString()
                .contains("cannot finish with .", "nothing at all is woven");
    }

    /** What the weaver parses and fairslice cannot check stays a warning: an application's aspects may need it. */
    @Test
    void shouldStillOnlyWarnAboutTypePatternsTheWeaverCanUse() throws IOException {
        for (String within : List.of("io.fairslice.weavingtest.shop..*Discount",
                "io.fairslice.weavingtest.shop.Discount+",
                "!io.fairslice.weavingtest.shop.Fibonacci && io.fairslice.weavingtest.shop..*")) {
            String file = include(within);

            WeavingScope scope = WeavingScope.inspect(loader, file);

            assertThat(scope.problems()).as(within).isEmpty();
            assertThat(scope.warnings()).as(within).singleElement().asString().contains("does not check");
        }
    }

    /** Jars built without directory entries (zip -D, some build tools) have classes but no package resource. */
    @Test
    void shouldFindAPackageInAJarWithoutDirectoryEntries() throws IOException {
        Path jar = dir.resolve("report.jar");
        try (var out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("META-INF/aop.xml"));
            out.write("<aspectj><weaver><include within=\"com.acme..*\"/></weaver></aspectj>".getBytes());
            out.putNextEntry(new JarEntry("com/acme/report/Report.class"));
            out.write(new byte[] {(byte) 0xca, (byte) 0xfe});
        }
        // an entry of another scheme before it, as a Spring Boot jar's loader has (jar:...!/BOOT-INF/classes/): its
        // path's file system is none, and the application failed to start on FileSystemNotFoundException
        URL nested = new URL("jar:" + jar.toUri() + "!/BOOT-INF/classes/");
        try (URLClassLoader application = new URLClassLoader(new URL[] {nested, jar.toUri().toURL()}, loader)) {
            assertThat(application.getResource("com/acme/")).as("no directory entry").isNull();

            WeavingScope scope = WeavingScope.inspect(application, "META-INF/aop.xml");

            assertThat(scope.problems()).isEmpty();
            assertThat(scope.includes()).contains("com.acme..*");
        }
    }

    @Test
    void shouldWarnAboutAnExcludeThatMatchesNoClass() throws IOException {
        String file = fragment("<aspectj><weaver><include within=\"io.fairslice.weavingtest.shop..*\"/>"
                + "<exclude within=\"io.fairslice.weavingtest.shop.Fibonaci\"/>"
                + "<exclude within=\"io.fairslice.weavingtest.shop.Fibonacci\"/></weaver></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, "META-INF/aop.xml;" + file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.warnings()).singleElement().asString()
                .contains("<exclude within=\"io.fairslice.weavingtest.shop.Fibonaci\"/>", "excludes nothing");
    }

    @Test
    void shouldRejectAScopeInsideTheRelocatedMetricsLibraries() throws IOException {
        String file = include("io.fairslice.shaded..*");

        assertThat(WeavingScope.inspect(loader, file).problems()).singleElement().asString()
                .contains("lies inside io.fairslice.shaded", "never woven");
    }

    /**
     * Tomcat's `--weave` naming a package this application lacks (a misspelt one, or another application's): one note
     * on one line of the log, no warning. It named Tomcat's web application loader over five lines (its own
     * description, then its parents') and came with a second warning, that no file named the application's packages
     * at all; and with the installer's default --apps * it was a warning in each of Tomcat's own applications.
     */
    @Test
    void shouldNoteOnceAndOnOneLineWhenAJvmWideFilesOnlyPackageIsNotTheApplications() throws IOException {
        String file = include("io.fairslice.weavingtest.shp..*");
        try (URLClassLoader webapp = new URLClassLoader(new URL[0], loader) {
            @Override
            public String toString() { // as Tomcat's ParallelWebappClassLoader describes itself
                return "ParallelWebappClassLoader\r\n  context: shop\r\n  delegate: false\r\n"
                        + "----------> Parent Classloader:\r\n" + getParent() + "\r\n";
            }
        }) {
            WeavingScope scope = WeavingScope.inspect(webapp, file);

            assertThat(scope.problems()).isEmpty();
            assertThat(scope.warnings()).isEmpty();
            assertThat(scope.notes()).singleElement().asString()
                    .contains("io.fairslice.weavingtest.shp..*\"/> matches no class visible to"
                            + " ParallelWebappClassLoader, context: shop, delegate: false (no resource")
                    .doesNotContain("\n").doesNotContain("Parent Classloader");
        }
    }

    @Test
    void shouldReportAnEmptyScope() throws IOException {
        String file = fragment("<aspectj><weaver options=\"-Xlint:ignore\"/></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.warnings()).singleElement().asString().contains("the weaving scope is empty");
    }

    /** The launcher writes file:/tmp/a b/aop.xml with a raw space when TMPDIR has one; the weaver reads it so. */
    @Test
    void shouldReadAScopeFileWhosePathHasASpace() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("with space"));
        Path file = Files.writeString(folder.resolve("aop.xml"),
                "<aspectj><weaver><include within=\"io.fairslice.weavingtest.shop..*\"/></weaver></aspectj>");

        WeavingScope scope = WeavingScope.inspect(loader, "META-INF/aop.xml;file:" + file);

        assertThat(scope.problems()).isEmpty();
        assertThat(scope.includes()).contains("io.fairslice.weavingtest.shop..*");
    }

    @Test
    void shouldRejectAMissingConfigurationFile() {
        String missing = dir.resolve("nowhere.xml").toUri().toString();

        assertThat(WeavingScope.inspect(loader, "META-INF/aop.xml;" + missing).problems())
                .anyMatch(p -> p.contains(missing) && p.contains("not a readable file"));
    }

    @Test
    void shouldRejectMalformedXml() throws IOException {
        String file = fragment("<aspectj><weaver><include within=\"a..*\"></weaver></aspectj>");

        assertThat(WeavingScope.inspect(loader, file).problems()).singleElement().asString()
                .contains("is not well-formed XML");
    }

    /** An aop.xml whose weaver includes {@code within} alone ({@code &} escaped for XML). */
    private String include(String within) throws IOException {
        return fragment("<aspectj><weaver><include within=\"" + within.replace("&", "&amp;")
                + "\"/></weaver></aspectj>");
    }

    private String fragment(String xml) throws IOException {
        Path file = Files.writeString(dir.resolve("aop-" + System.nanoTime() + ".xml"), xml);
        return file.toUri().toString();
    }
}
