package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * compose.yaml cannot run here (no Docker), so this checks what can go stale without Docker: every file it mounts
 * exists, and the mounted Prometheus config is the one the other tests check.
 */
class ComposeFileTest {

    private static final Pattern HOST_MOUNT = Pattern.compile("^\\s*-\\s*(\\./[^:]+):([^:]+)(:ro)?\\s*$",
            Pattern.MULTILINE);

    @Test
    void shouldMountOnlyFilesThatExist() throws IOException {
        Path module = ModuleFiles.moduleDir();
        String compose = Files.readString(module.resolve("compose.yaml"));
        List<String> mounts = new ArrayList<>();
        Matcher matcher = HOST_MOUNT.matcher(compose);
        while (matcher.find()) {
            mounts.add(matcher.group(1));
        }

        assertThat(mounts).as("host paths mounted by compose.yaml")
                .contains("./prometheus/prometheus.yml", "./prometheus/rules", "./grafana");
        assertThat(mounts).allSatisfy(mount -> assertThat(module.resolve(mount)).exists());
    }

    @Test
    void shouldProvisionTheDashboardFolderThatComposeMounts() throws IOException {
        Path module = ModuleFiles.moduleDir();
        String compose = Files.readString(module.resolve("compose.yaml"));
        String provider = Files.readString(module.resolve("grafana-provisioning/dashboards/fairslice.yml"));
        Matcher path = Pattern.compile("path:\\s*(\\S+)").matcher(provider);

        assertThat(path.find()).as("the provider's options.path").isTrue();
        assertThat(compose).contains("./grafana:" + path.group(1) + ":ro");
    }
}
