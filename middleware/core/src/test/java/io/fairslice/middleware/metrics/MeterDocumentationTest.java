package io.fairslice.middleware.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.weaving.WeavingMetrics;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/dashboards.md, "The meters", must name every meter the middleware registers, as Prometheus shows it: the meter
 * name with underscores, and the suffix of its type and unit ({@code _total}, {@code _seconds}, both, or none).
 */
class MeterDocumentationTest {

    @Test
    void shouldNameEveryMeterInTheDashboardsGuidesTable() throws IOException {
        String table = meterTable();
        List<String> names = new ArrayList<>();
        for (Field f : MeterNames.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                String value = (String) get(f);
                if (value.startsWith("fairslice.")) {
                    names.add(value);
                }
            }
        }
        names.add(WeavingMetrics.WOVEN_CLASSES);
        assertThat(names).hasSizeGreaterThan(20);
        for (String name : names) {
            String prometheus = name.replace('.', '_');
            assertThat(Stream.of("", "_total", "_seconds", "_seconds_total")
                    .anyMatch(suffix -> table.contains("`" + prometheus + suffix + "`")))
                    .as("%s (%s...) in docs/dashboards.md's table of meters", name, prometheus).isTrue();
        }
    }

    /** The rows of the section "The meters". */
    private static String meterTable() throws IOException {
        String doc = Files.readString(Path.of("..", "..", "docs", "dashboards.md"));
        int start = doc.indexOf("## The meters");
        assertThat(start).as("docs/dashboards.md has a section \"The meters\"").isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    private static Object get(Field f) {
        try {
            return f.get(null);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }
}
