package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import io.fairslice.middleware.FairsliceConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md must list exactly the keys of {@link ConfigKeys#ALL}, with the same defaults and ranges, and
 * those defaults must be the ones the parser applies.
 */
class ConfigDocumentationTest {

    private static List<ConfigKeys.Spec> documented() throws IOException {
        return ConfigTable.read(ConfigTable.FROM_MODULE).stream().map(ConfigTable.Row::spec).toList();
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
