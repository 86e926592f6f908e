package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fairslice.* keys found in a WAR's Spring Boot property files (the real Tomcat case is in FairsliceFilterTest).
 */
class BootPropertyFilesTest {

    @TempDir
    Path dir;

    @Test
    void shouldNameTheKeysOfAYamlFileAsBootFlattensThem() {
        assertThat(BootPropertyFiles.yamlKeys(String.join("\n",
                "# fairslice.commented: x",
                "spring:",
                "  application:",
                "    name: shop",
                "fairslice:",
                "  policy: share   # the default",
                "  class:",
                "    heavy:",
                "      share: 10",
                "  rule.1: heavy path=/reports/**",
                "  'route.1': /items/{id}",
                "  classes:",
                "    - light",
                "    - heavy",
                "  description: |",
                "    not: a key",
                "  jmx: false",
                "fairslice.adaptive: false",
                "shop:",
                "  fairslice:",
                "    policy: observe",
                "---",
                "spring.config.activate.on-profile: prod",
                "fairslice:",
                "  policy: observe",
                "  sleep.quantum: 2ms")))
                .containsExactly("fairslice.policy", "fairslice.class.heavy.share", "fairslice.rule.1",
                        "fairslice.route.1", "fairslice.classes", "fairslice.description", "fairslice.jmx",
                        "fairslice.adaptive", "fairslice.sleep.quantum");
    }

    @Test
    void shouldNameAFlowMappingUnderFairsliceByItsTopLevelKeyAndNothingElse() {
        assertThat(BootPropertyFiles.yamlKeys("fairslice: {policy: share}\r\nother: 1\r\n"))
                .containsExactly("fairslice");
        assertThat(BootPropertyFiles.yamlKeys("shop:\n  fairslice.policy: x\nfairslicer: y\n- fairslice: z\n"))
                .isEmpty();
    }

    @Test
    void shouldNameThePrefixedKeysOfAPropertiesFileInItsOrder() {
        assertThat(BootPropertyFiles.propertiesKeys(String.join("\n", "spring.application.name=shop",
                "fairslice.rule.2 = light path=/", "fairslice.policy: observe", "# fairslice.jmx=false", "#---",
                "Fairslice.adaptive=false", "fairslicer=1", "fairslice.rule.1=heavy path=/reports/**")))
                .containsExactly("fairslice.rule.2", "fairslice.policy", "fairslice.rule.1");
        assertThat(BootPropertyFiles.propertiesKeys("fairslice.policy=\\u00zz"))
                .as("malformed: Boot says so").isEmpty();
    }

    /** Where Boot looks on the class path, profile variants too; other files are not read. */
    @Test
    void shouldLookInTheClassesFolderAndItsConfigFolderOnly() {
        Map<String, String> files = new TreeMap<>(Map.of(
                "/WEB-INF/classes/application.properties", "fairslice.policy=observe",
                "/WEB-INF/classes/application-prod.yaml", "fairslice:\n  policy: share",
                "/WEB-INF/classes/config/application.yml", "spring:\n  main:\n    banner-mode: off",
                "/WEB-INF/classes/config/application-dev.properties", "fairslice.jmx=false",
                "/WEB-INF/classes/fairslice.properties", "fairslice.policy=observe",
                "/WEB-INF/classes/application.xml", "fairslice.policy=observe",
                "/WEB-INF/classes/myapplication.properties", "fairslice.policy=observe"));

        assertThat(BootPropertyFiles.fairsliceKeys(paths(files), open(files))).containsExactly(
                Map.entry("/WEB-INF/classes/application-prod.yaml", List.of("fairslice.policy")),
                Map.entry("/WEB-INF/classes/application.properties", List.of("fairslice.policy")),
                Map.entry("/WEB-INF/classes/config/application-dev.properties", List.of("fairslice.jmx")));
        assertThat(BootPropertyFiles.fairsliceKeys(folder -> null, path -> null)).as("no WEB-INF/classes").isEmpty();
    }

    @Test
    void shouldNameAFewKeysPerFileTheRestCountedAndTheWaysOut() {
        Map<String, String> files = Map.of("/WEB-INF/classes/application.properties", String.join("\n",
                "fairslice.adaptive=false", "fairslice.policy=observe", "fairslice.jmx=false", "fairslice.rule.1=x",
                "fairslice.rule.2=y"), "/WEB-INF/classes/application.yml", "fairslice:\n  policy: share");

        assertThat(BootPropertyFiles.unreadWarning(getClass().getClassLoader(), paths(files), open(files)))
                .startsWith("/WEB-INF/classes/application.properties sets fairslice.adaptive, fairslice.policy,"
                        + " fairslice.jmx and 2 more, and /WEB-INF/classes/application.yml sets fairslice.policy, but"
                        + " fairslice does not read Spring Boot's properties: only fairslice-spring-boot"
                        + " (io.fairslice.spring.FairsliceWarAutoConfiguration) hands them to the filter")
                .contains("Add io.fairslice:fairslice-spring-boot to the WAR, or move the settings to fairslice's own"
                        + " configuration: conf/fairslice.properties")
                .contains("<Parameter name=\"fairslice.adaptive\" value=\"...\"/>");
    }

    /** With fairslice-spring-boot on the application's class path the properties are handed over: nothing to say. */
    @Test
    void shouldSayNothingWhenTheWarAutoConfigurationIsOnTheApplicationsClassPath() throws IOException {
        Path type = dir.resolve(BootPropertyFiles.WAR_AUTO_CONFIGURATION.replace('.', '/') + ".class");
        Files.createDirectories(type.getParent());
        Files.write(type, new byte[0]); // only looked up as a resource
        Map<String, String> files = Map.of("/WEB-INF/classes/application.properties", "fairslice.policy=observe");
        try (URLClassLoader boot = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(BootPropertyFiles.unreadWarning(boot, paths(files), open(files))).isNull();
        }
        assertThat(BootPropertyFiles.unreadWarning(null, paths(files), open(files))).isNotNull();
    }

    /** getResourcePaths: the paths directly below a folder, or null when it has none. */
    private static Function<String, Set<String>> paths(Map<String, String> files) {
        return folder -> {
            Set<String> below = files.keySet().stream().filter(p -> p.startsWith(folder))
                    .map(p -> p.indexOf('/', folder.length()) < 0 ? p
                            : p.substring(0, p.indexOf('/', folder.length()) + 1))
                    .collect(Collectors.toSet());
            return below.isEmpty() ? null : below;
        };
    }

    private static Function<String, InputStream> open(Map<String, String> files) {
        return path -> files.containsKey(path)
                ? new ByteArrayInputStream(files.get(path).getBytes(StandardCharsets.UTF_8)) : null;
    }
}
