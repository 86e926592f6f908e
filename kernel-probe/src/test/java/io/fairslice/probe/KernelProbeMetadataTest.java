package io.fairslice.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.config.ConfigKeys;
import io.fairslice.middleware.config.Durations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/**
 * The probe's jar ships {@code META-INF/spring-configuration-metadata.json} for its {@code fairslice.kernel-probe.*}
 * settings, beside fairslice-spring-boot's file for the middleware's keys (IDEs merge the files of every jar): written
 * by hand for its four settings, and held here to what the probe reads, as Boot's own reader sees the file. The
 * per-class settings ({@code nice.<class>}, {@code slice.<class>}) are map properties, as the middleware's per-class
 * keys are.
 */
class KernelProbeMetadataTest {

    private static final Path FILE = Path.of("src", "main", "resources", "META-INF",
            "spring-configuration-metadata.json");
    private static final String PREFIX = ConfigKeys.PREFIX + KernelProbeListener.NAME + ".";

    @Test
    void shouldDescribeEverySettingTheProbeReadsWithItsDefaultAndRange() throws IOException {
        Map<String, ConfigurationMetadataProperty> properties;
        try (InputStream in = Files.newInputStream(FILE)) {
            properties = ConfigurationMetadataRepositoryJsonBuilder.create(in).build().getAllProperties();
        }

        // a name ending in ".*" declares every setting below it: one map property
        assertThat(properties.keySet()).containsExactlyInAnyOrderElementsOf(KernelProbeConfig.SETTING_NAMES.stream()
                .map(name -> PREFIX + name.replace(".*", "")).collect(Collectors.toSet()));
        KernelProbeConfig defaults = KernelProbeConfig.ofDefaults();
        ConfigurationMetadataProperty enabled = properties.get(PREFIX + KernelProbeConfig.KEY_ENABLED);
        assertThat(enabled.getType()).isEqualTo("java.lang.Boolean");
        assertThat(enabled.getDefaultValue()).isEqualTo(defaults.enabled());
        ConfigurationMetadataProperty interval = properties.get(PREFIX + KernelProbeConfig.KEY_INTERVAL);
        assertThat(Durations.parseOrNull((String) interval.getDefaultValue()))
                .isEqualTo(Duration.ofNanos(defaults.intervalNanos()));
        assertThat(range(interval)).containsExactly(Duration.ofNanos(KernelProbeConfig.MIN_INTERVAL_NANOS),
                Duration.ofNanos(KernelProbeConfig.MAX_INTERVAL_NANOS));
        assertThat(range(properties.get(PREFIX + "slice"))).containsExactly(
                Duration.ofNanos(KernelProbeConfig.MIN_SLICE_NANOS),
                Duration.ofNanos(KernelProbeConfig.MAX_SLICE_NANOS));
        assertThat(properties.get(PREFIX + "nice").getDescription())
                .contains("Range: " + KernelProbeConfig.MIN_NICE + ".." + KernelProbeConfig.MAX_NICE + ".");
    }

    /** The durations of the description's "Range: A..B.", read as the probe reads a duration. */
    private static List<Duration> range(ConfigurationMetadataProperty property) {
        Matcher m = Pattern.compile("Range: (\\S+?)\\.\\.(\\S+?)\\.(?: |$)").matcher(property.getDescription());
        assertThat(m.find()).as("a range in %s", property.getDescription()).isTrue();
        return List.of(Durations.parseOrNull(m.group(1)), Durations.parseOrNull(m.group(2)));
    }
}
