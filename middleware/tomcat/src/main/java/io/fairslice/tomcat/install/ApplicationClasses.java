package io.fairslice.tomcat.install;

import io.fairslice.middleware.weaving.WeavingScope;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Whether the web applications on disk hold classes of a {@code --weave} pattern: where the installer shows a
 * misspelt package, once, at the terminal. At runtime each application sees only its own classes, and a JVM-wide
 * scope naming another application's package is normal there (Tomcat's own applications under {@code --apps *}),
 * so it is only noted in that application's log ({@code WeavingScope#notes}).
 *
 * <p>Looked for: {@code WEB-INF/classes/} and the jars in {@code WEB-INF/lib/} of each application folder and
 * {@code .war} file in the host's {@code appBase}. A pattern {@code com.acme..*} is held by an application with any
 * class under {@code com/acme/}, {@code com.acme.*} by one with a class directly in it, {@code com.acme.Checkout} by
 * one with {@code com/acme/Checkout.class}: the classes the middleware weaves ({@code WeavingScope#classFilesOf}).
 */
final class ApplicationClasses {

    private static final String CLASSES = "WEB-INF/classes/";
    private static final String LIB = "WEB-INF/lib/";

    private ApplicationClasses() {
    }

    /**
     * The applications in {@code appBase} (folders and wars, by the name Tomcat deploys them under) that
     * {@code contextPaths} select ({@code *}: all); empty when there is no such folder.
     */
    static List<Path> applications(Path appBase, List<String> contextPaths) throws IOException {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(appBase)) {
            return found;
        }
        try (Stream<Path> entries = Files.list(appBase)) {
            for (Path p : entries.sorted().toList()) {
                String name = p.getFileName().toString();
                boolean war = name.endsWith(".war") && Files.isRegularFile(p);
                if (!war && !Files.isDirectory(p)) {
                    continue;
                }
                if (contextPaths.contains("*") || contextPaths.contains(contextPath(p))) {
                    found.add(p);
                }
            }
        }
        return found;
    }

    /** The context path Tomcat deploys one of {@link #applications} at: {@code /shop} for shop and shop##2.war. */
    static String contextPath(Path application) {
        String name = application.getFileName().toString();
        return TomcatBase.contextPathOf(Files.isDirectory(application) ? name : name.substring(0, name.length() - 4));
    }

    /** Whether one of {@code applications} holds a class of the {@code --weave} pattern. */
    static boolean anyHolds(List<Path> applications, String pattern) {
        Predicate<String> classFile = WeavingScope.classFilesOf(pattern);
        for (Path app : applications) {
            try {
                if (Files.isDirectory(app) ? folderHolds(app, classFile) : warHolds(app, classFile)) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                return true; // unreadable: no claim that it lacks the classes
            }
        }
        return false;
    }

    private static boolean folderHolds(Path app, Predicate<String> classFile) throws IOException {
        Path classes = app.resolve(CLASSES);
        if (Files.isDirectory(classes)) {
            try (Stream<Path> files = Files.walk(classes)) {
                if (files.filter(Files::isRegularFile).map(f -> classes.relativize(f).toString())
                        .anyMatch(name -> classFile.test(name.replace(File.separatorChar, '/')))) {
                    return true;
                }
            }
        }
        Path lib = app.resolve(LIB);
        if (!Files.isDirectory(lib)) {
            return false;
        }
        try (Stream<Path> jars = Files.list(lib)) {
            for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).toList()) {
                try (ZipFile zip = new ZipFile(jar.toFile())) {
                    if (zip.stream().anyMatch(e -> classFile.test(e.getName()))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean warHolds(Path war, Predicate<String> classFile) throws IOException {
        try (ZipFile zip = new ZipFile(war.toFile())) {
            for (ZipEntry e : zip.stream().toList()) {
                String name = e.getName();
                if (name.startsWith(CLASSES) && classFile.test(name.substring(CLASSES.length()))) {
                    return true;
                }
                if (name.startsWith(LIB) && name.endsWith(".jar")) {
                    try (InputStream in = zip.getInputStream(e); ZipInputStream jar = new ZipInputStream(in)) {
                        for (ZipEntry j = jar.getNextEntry(); j != null; j = jar.getNextEntry()) {
                            if (classFile.test(j.getName())) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        return false;
    }
}
