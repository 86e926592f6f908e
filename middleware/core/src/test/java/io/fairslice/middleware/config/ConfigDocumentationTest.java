package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.fairslice.middleware.FairsliceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md must list exactly the keys of {@link ConfigKeys#ALL}, with the same defaults and ranges, and
 * those defaults must be the ones the parser applies.
 */
class ConfigDocumentationTest {

    private static List<ConfigKeys.Spec> documented() throws IOException {
        Path doc = Path.of("..", "..", "docs", "configuration.md");
        List<ConfigKeys.Spec> specs = new ArrayList<>();
        for (String line : Files.readAllLines(doc)) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            specs.add(new ConfigKeys.Spec(cells[1].trim().replace("`", ""), cells[2].trim(), cells[3].trim()));
        }
        return specs;
    }

    @Test
    void shouldDocumentEveryKeyWithItsDefaultAndRangeInOrder() throws IOException {
        assertThat(documented()).containsExactlyElementsOf(ConfigKeys.ALL);
    }

    @Test
    void shouldApplyTheDocumentedDefaultOfEveryKey() {
        String defaults = FairsliceConfig.parse(Map.of()).toString();
        for (ConfigKeys.Spec spec : ConfigKeys.ALL) {
            if (spec.name().contains("<") || spec.defaultValue().startsWith("(")) {
                continue; // per class or listener, or derived from other keys
            }
            assertThat(FairsliceConfig.parse(Map.of(spec.name(), spec.defaultValue())).toString())
                    .as("%s given its documented default %s", spec.name(), spec.defaultValue())
                    .isEqualTo(defaults);
        }
    }
}
