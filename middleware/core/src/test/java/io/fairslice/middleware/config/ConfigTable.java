package io.fairslice.middleware.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The key table of docs/configuration.md, read as its rows: key, default, range and meaning, for the two tests that
 * keep others in step with it: the documentation with {@link ConfigKeys#ALL} (ConfigDocumentationTest) and the Spring
 * Boot module's IDE metadata with both (ConfigurationMetadataTest).
 */
final class ConfigTable {

    /** The documentation's path from a module folder of middleware/ (middleware/core, middleware/spring-boot). */
    static final Path FROM_MODULE = Path.of("..", "..", "docs", "configuration.md");

    private ConfigTable() {
    }

    /** One row: the key's spec as the table writes it, and its meaning, Markdown as written. */
    record Row(ConfigKeys.Spec spec, String meaning) {
    }

    /** The rows of the table in {@code doc}, in the order they are written. */
    static List<Row> read(Path doc) throws IOException {
        return parse(Files.readAllLines(doc, StandardCharsets.UTF_8));
    }

    /**
     * The rows among {@code lines}: those that start with a key in backticks ({@code | `policy` |}), which no other
     * table of the document does. A meaning may hold a {@code |} of its own (a rule's {@code method=GET|HEAD}), so it
     * is everything between the third cell and the row's closing bar.
     */
    static List<Row> parse(List<String> lines) {
        List<Row> rows = new ArrayList<>();
        for (String line : lines) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|", 5);
            String rest = cells.length > 4 ? cells[4].trim() : "";
            String meaning = rest.endsWith("|") ? rest.substring(0, rest.length() - 1).trim() : rest;
            rows.add(new Row(new ConfigKeys.Spec(cells[1].trim().replace("`", ""), cells[2].trim(), cells[3].trim()),
                    meaning));
        }
        return rows;
    }
}
