package io.fairslice.experiments.harness;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The versions of the third-party software a run measured: the server's Tomcat, the load generator's Gatling, the
 * AspectJ weaver agent and Micrometer. A run's figures depend on them as much as on fairslice's own code, so the run
 * records them beside its source revision, and a run goes on only with the same ones.
 *
 * <p>Read from the jars the child JVMs are given: a class path entry {@code dir/*} is every jar in {@code dir}; a
 * jar named {@code artifact-version.jar} gives its version by its name, any other (the agent is copied as
 * {@code aspectjweaver.jar}) by its manifest's {@code Implementation-Version}.
 */
final class Components {

    /** The artifacts recorded, by the class path they are looked for in. */
    private static final List<String> SERVER = List.of("tomcat-embed-core", "micrometer-core");
    private static final List<String> LOADGEN = List.of("gatling-core");
    private static final List<String> AGENT = List.of("aspectjweaver");

    private static final Pattern AGENT_OPTION = Pattern.compile("-javaagent:([^=]+)(=.*)?");

    private Components() {
    }

    /** For example {@code tomcat-embed-core 11.0.25, micrometer-core 1.17.2, gatling-core 3.15.1, ...}. */
    static String describe(StudyRunner.Classpaths classpaths) {
        Map<String, String> found = new LinkedHashMap<>();
        find(jars(classpaths.server()), SERVER, found);
        find(jars(classpaths.loadgen()), LOADGEN, found);
        List<Path> agents = new ArrayList<>();
        for (String option : classpaths.weavingJvmOptions()) {
            Matcher m = AGENT_OPTION.matcher(option);
            if (m.matches()) {
                agents.add(Path.of(m.group(1)));
            }
        }
        if (!agents.isEmpty()) {
            find(agents, AGENT, found);
        }
        List<String> parts = new ArrayList<>();
        found.forEach((artifact, version) -> parts.add(artifact + " " + version));
        return String.join(", ", parts);
    }

    /** Puts each wanted artifact's version into {@code found}: "not found" when no jar of it is among {@code jars}. */
    static void find(List<Path> jars, List<String> wanted, Map<String, String> found) {
        for (String artifact : wanted) {
            String version = "not found";
            for (Path jar : jars) {
                String v = version(jar, artifact);
                if (v != null) {
                    version = v;
                    break;
                }
            }
            found.put(artifact, version);
        }
    }

    /** The jar's version if it is {@code artifact}'s, else null. */
    static String version(Path jar, String artifact) {
        String name = jar.getFileName().toString();
        if (name.equals(artifact + ".jar")) {
            return manifestVersion(jar);
        }
        String prefix = artifact + "-";
        if (name.startsWith(prefix) && name.endsWith(".jar")) {
            String rest = name.substring(prefix.length(), name.length() - ".jar".length());
            // tomcat-embed-core-11.0.25.jar, not tomcat-embed-core-extras-1.0.jar
            return !rest.isEmpty() && Character.isDigit(rest.charAt(0)) ? rest : null;
        }
        return null;
    }

    /** The main or first section's Implementation-Version (the weaver keeps it in its package's section). */
    private static String manifestVersion(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            if (manifest == null) {
                return "unknown (no manifest)";
            }
            String version = manifest.getMainAttributes().getValue(Attributes.Name.IMPLEMENTATION_VERSION);
            for (Attributes section : manifest.getEntries().values()) {
                if (version != null) {
                    break;
                }
                version = section.getValue(Attributes.Name.IMPLEMENTATION_VERSION);
            }
            return version != null ? version : "unknown (no Implementation-Version)";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** The jars of a class path; {@code dir/*} is every jar in {@code dir}, as the java launcher reads it. */
    static List<Path> jars(String classpath) {
        List<Path> jars = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (entry.endsWith("*")) {
                Path dir = Path.of(entry.substring(0, entry.length() - 1));
                if (Files.isDirectory(dir)) {
                    try (Stream<Path> files = Files.list(dir)) {
                        files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().forEach(jars::add);
                    } catch (IOException e) {
                        // an unreadable folder: its jars are "not found", which the run records
                    }
                }
            } else if (entry.endsWith(".jar")) {
                jars.add(Path.of(entry));
            }
        }
        return jars;
    }
}
