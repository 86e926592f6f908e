package io.fairslice.dashboards;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the module's committed files are (Surefire passes the module folder; an IDE runs in it). */
final class ModuleFiles {

    private ModuleFiles() {
    }

    static Path moduleDir() {
        return Path.of(System.getProperty("dashboards.module.dir", ".")).toAbsolutePath().normalize();
    }

    static Path prometheusDir() {
        return moduleDir().resolve("prometheus");
    }

    static Path dashboardJson() {
        return moduleDir().resolve("grafana").resolve("fairslice-overview.json");
    }

    /** A scratch folder under target/ for logs and Prometheus data. */
    static Path workDir(String name) throws java.io.IOException {
        Path base = Path.of(System.getProperty("dashboards.work.dir",
                moduleDir().resolve("target").resolve("live").toString()));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name);
    }
}
