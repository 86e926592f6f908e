package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/configuration.md must list exactly the keys of {@link ConfigKeys#ALL}, with the same defaults and ranges. */
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
}
