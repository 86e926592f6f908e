package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSourcesTest {

    @Test
    void shouldLetSystemPropertiesBeatFilterParamsBeatContextParamsBeatTheFile() {
        String file = "policy=observe\nshare.quantum=1ms\nclass.heavy.share=5\nsleep.quantum=3ms\n";
        Map<String, String> context = Map.of("fairslice.policy", "sleep", "fairslice.share.quantum", "2ms",
                "fairslice.class.heavy.share", "6", "other.param", "x");
        Properties system = new Properties();
        system.setProperty("fairslice.policy", "share");
        system.setProperty("unrelated", "y");
        ConfigSources.Merged m = ConfigSources.merge(context::get, context.keySet(),
                Map.of("share.quantum", "3ms", "fairslice.class.heavy.share", "7"),
                path -> new ByteArrayInputStream(file.getBytes(StandardCharsets.UTF_8)), null, system);
        assertThat(m.file()).isEqualTo("/WEB-INF/fairslice.properties");
        assertThat(m.keys()).containsEntry("policy", "share").containsEntry("share.quantum", "3ms")
                .containsEntry("class.heavy.share", "7").containsEntry("sleep.quantum", "3ms")
                .doesNotContainKey("other.param").doesNotContainKey("unrelated");
    }

    @Test
    void shouldReadTheFileNamedByFairsliceConfig(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("f.properties");
        Files.writeString(f, "fairslice.policy=observe\n");
        Properties system = new Properties();
        system.setProperty("fairslice.config", f.toString());
        ConfigSources.Merged m = ConfigSources.merge(k -> null, List.of(), Map.of(), p -> null, null, system);
        assertThat(m.keys()).containsExactlyEntriesOf(Map.of("policy", "observe"));
    }

    @Test
    void shouldFailWhenTheNamedFileIsMissing() {
        Properties system = new Properties();
        system.setProperty("fairslice.config", "/no/such/fairslice.properties");
        assertThatThrownBy(() -> ConfigSources.merge(k -> null, List.of(), Map.of(), p -> null, null, system))
                .hasMessageContaining("fairslice.config must name a readable file")
                .hasMessageContaining("/no/such/fairslice.properties");
    }
}
