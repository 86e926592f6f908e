package io.fairslice.tomcat.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files the installer copies, as the build lays them out ({@code middleware/tomcat/target/dist}):
 * {@code lib/*.jar} for {@code $CATALINA_BASE/lib} (the shaded fairslice jar and JNA) and
 * {@code agent/aspectjweaver-*.jar}, the load-time weaving agent.
 *
 * @param dir       the bundle folder
 * @param libJars   the jars for {@code $CATALINA_BASE/lib}, sorted by name
 * @param weaverJar the AspectJ weaver
 */
public record Bundle(Path dir, List<Path> libJars, Path weaverJar) {

    public Bundle {
        libJars = List.copyOf(libJars);
    }

    /**
     * Reads the bundle in {@code dir}, or says what is missing, naming the option that gave the folder: "DIR is not a
     * fairslice bundle" did not say where DIR came from. {@code given}: whether --dist gave it, or it is --dist's
     * default, the folder above the installer's lib/.
     */
    public static Bundle open(Path dir, boolean given) {
        Path d = dir.toAbsolutePath().normalize();
        String named = given ? "--dist " + dir : d + " (the default of --dist: the folder above the installer's lib/)";
        if (!Files.isDirectory(d)) {
            throw new InstallException(named + ": " + (Files.exists(d) ? "not a folder" : "no such folder"));
        }
        List<Path> lib = jars(d.resolve("lib"), "");
        if (lib.stream().noneMatch(p -> p.getFileName().toString().startsWith("fairslice-tomcat-"))) {
            throw new InstallException(named + " is not a fairslice bundle: lib/fairslice-tomcat-*.jar is missing"
                    + " (build it with ./mvnw package -pl middleware/tomcat -am)");
        }
        List<Path> agent = jars(d.resolve("agent"), "aspectjweaver-");
        if (agent.size() != 1) {
            throw new InstallException(named + " is not a fairslice bundle: agent/ must hold exactly one"
                    + " aspectjweaver-*.jar, found " + agent.size());
        }
        return new Bundle(d, lib, agent.get(0));
    }

    private static List<Path> jars(Path folder, String prefix) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(".jar") && name.startsWith(prefix) && Files.isRegularFile(p);
            }).sorted().toList();
        } catch (IOException e) {
            throw new InstallException("cannot list " + folder + ": " + e.getMessage());
        }
    }

    /** The file name of the weaver jar, as it is installed under {@code $CATALINA_BASE/fairslice/}. */
    public String weaverName() {
        return weaverJar.getFileName().toString();
    }
}
