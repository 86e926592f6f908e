package io.fairslice.tomcat.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Minimal Tomcat instance directories and bundles on disk, for installer tests. */
final class TestTomcat {

    private TestTomcat() {
    }

    static final String SERVER_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Server port="8005" shutdown="SHUTDOWN">
              <Service name="Catalina">
                <Connector port="8080" protocol="HTTP/1.1"/>
                <Engine name="Catalina" defaultHost="localhost">
                  <Host name="localhost" appBase="webapps"/>
                </Engine>
              </Service>
            </Server>
            """;

    /** A CATALINA_BASE with conf/server.xml and (when version is not null) lib/catalina.jar of that version. */
    static Path base(Path dir, String version) throws IOException {
        Files.createDirectories(dir.resolve("conf"));
        Files.createDirectories(dir.resolve("lib"));
        Files.writeString(dir.resolve("conf/server.xml"), SERVER_XML);
        if (version != null) {
            try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(dir.resolve("lib/catalina.jar")))) {
                jar.putNextEntry(new JarEntry("org/apache/catalina/util/ServerInfo.properties"));
                jar.write(("server.info=Apache Tomcat/" + version + "\nserver.number=" + version + ".0\n").getBytes());
                jar.closeEntry();
            }
        }
        return dir;
    }

    /** A bundle folder with a fake fairslice jar, JNA and weaver. */
    static Path bundle(Path dir, String jarVersion) throws IOException {
        Files.createDirectories(dir.resolve("lib"));
        Files.createDirectories(dir.resolve("agent"));
        Files.writeString(dir.resolve("lib/fairslice-tomcat-" + jarVersion + ".jar"), "fairslice " + jarVersion);
        Files.writeString(dir.resolve("lib/jna-5.17.0.jar"), "jna");
        Files.writeString(dir.resolve("agent/aspectjweaver-1.9.24.jar"), "weaver");
        return dir;
    }

    /** Every file below {@code dir} with its content (a symbolic link: where it points), for before/after checks. */
    static Map<String, String> snapshot(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.toList()) {
                String rel = dir.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    files.put(rel, "-> " + Files.readSymbolicLink(p));
                    continue;
                }
                files.put(rel + (Files.isDirectory(p) ? "/" : ""), Files.isDirectory(p) ? "" : Files.readString(p,
                        StandardCharsets.ISO_8859_1));
            }
        }
        return files;
    }
}
