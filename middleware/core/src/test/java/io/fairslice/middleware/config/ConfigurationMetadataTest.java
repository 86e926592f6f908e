package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.configurationmetadata.ValueHint;

/**
 * The jar's {@code META-INF/spring-configuration-metadata.json}, which gives IDEs completion, descriptions, defaults
 * and value hints for the {@code fairslice.*} keys of {@code application.properties} and {@code .yml}, is generated
 * from {@link ConfigKeys#ALL} (names, defaults, ranges) and docs/configuration.md's key table (meanings), and must be
 * what they give: the committed file is compared with what this test generates, and rewritten by a run with
 * {@code -Dfairslice.metadata.write=true}. No annotation processor can write it: fairslice reads its keys itself,
 * with no {@code @ConfigurationProperties} class for Boot to describe.
 *
 * <p>What the file says, and why:
 * <ul>
 * <li>Types are those Boot would bind the text to, {@code java.lang.String} unless the key is clearly a boolean (its
 * range {@code true, false}) or an integer (a default of digits). Durations stay strings: fairslice parses them
 * itself ({@code 1us}, {@code 500µs}, {@code 1min}), which Boot's {@code Duration} conversion may refuse or read
 * otherwise, so an IDE checking against that type would flag good values; their descriptions give the unit syntax.
 * A decimal ({@code adaptive.alpha}) stays a string for the same reason: only its own parser's range counts.</li>
 * <li>Enumerated values (a range of bare words: {@code policy}, the booleans) get {@code hints.values}.</li>
 * <li>The keys with a placeholder cannot be listed one by one, and Boot's format has no name patterns: they are map
 * properties of {@code Map<String,String>}, the one kind whose names may go on past a property's, so that an IDE
 * takes {@code fairslice.class.heavy.share} and {@code fairslice.rule.10} as known. {@code fairslice.class} gets key
 * hints for the default classes' settings ({@code light.share}, {@code heavy.queue-timeout}), each with its key's
 * description; {@code fairslice.rule} and {@code fairslice.route} are keyed by number.</li>
 * <li>{@code <listener>.<setting>} is left out: the request listeners on the application's class path declare
 * their settings at run time, which a jar's static file cannot know (a listener's own jar may ship metadata of its
 * own).</li>
 * <li>{@code fairslice.config} is listed: the auto-configuration reads it from the application's properties and
 * hands it to the filter as the context parameter it reads it from (an executable jar's) or with the other
 * properties (a WAR's).</li>
 * <li>A description is the meaning's first sentence or clause (cut at its first {@code .}, {@code ;}, or a
 * {@code :} after a few words), Markdown stripped and its parenthesised asides dropped, then the range and, where
 * the default is not one value ({@code (first class)}), the default in words; IDEs show its first sentence in
 * completion lists, the whole in their documentation popups.</li>
 * </ul>
 */
class ConfigurationMetadataTest {

    /** The Spring Boot module's resource, from this module's folder: the file ships in fairslice-spring-boot. */
    private static final Path FILE = Path.of("..", "spring-boot", "src", "main", "resources", "META-INF",
            "spring-configuration-metadata.json");
    private static final String WRITE = "fairslice.metadata.write";
    private static final String SOURCE_TYPE = "io.fairslice.spring.FairsliceAutoConfiguration";
    private static final String MAP_TYPE = "java.util.Map<java.lang.String,java.lang.String>";
    private static final Pattern WORDS = Pattern.compile("[a-z]+(, [a-z]+)+");
    private static final String DURATION = "A duration with its unit: ns, us (or µs), ms, s, m (or min) or h.";
    /**
     * Meanings that differ under Spring Boot from the table's: {@code enabled=false} there registers no filter at all
     * (FairsliceAutoConfiguration's condition), where the table speaks of a filter that passes requests through.
     */
    private static final Map<String, String> BOOT_MEANINGS = Map.of(ConfigKeys.ENABLED,
            "Whether fairslice runs; false registers no filter (in a WAR, a filter the jar's initializer registered"
                    + " before passes every request through).");

    @Test
    void shouldShipTheMetadataThatConfigKeysAndTheDocumentationGive() throws IOException {
        String expected = json(metadata());
        if (Boolean.getBoolean(WRITE)) {
            Files.writeString(FILE, expected, StandardCharsets.UTF_8);
        }

        String regenerate = "regenerate it with ./mvnw -B -q test -pl middleware/core"
                + " -Dtest=ConfigurationMetadataTest -Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE + "=true"
                + " and commit it";
        assertThat(FILE).as("%s: %s", FILE, regenerate).exists();
        // a checkout that turned line ends into CRLF holds the same metadata
        String[] committed = Files.readString(FILE, StandardCharsets.UTF_8).replace("\r\n", "\n").split("\n", -1);
        String[] generated = expected.split("\n", -1);
        int line = 0;
        while (line < committed.length && line < generated.length && committed[line].equals(generated[line])) {
            line++;
        }
        // Name the first line that differs, rather than print both whole files as a string comparison would.
        assertThat(line == committed.length && line == generated.length).withFailMessage(
                "%s is not what ConfigKeys.ALL and docs/configuration.md give: at line %d it has%n  %s%nwhere they"
                        + " give%n  %s%n%s", FILE, line + 1, line < committed.length ? committed[line] : "(its end)",
                line < generated.length ? generated[line] : "(the end)", regenerate).isTrue();
    }

    /** The committed file read as IDEs read it, by Boot's own reader: valid metadata, and the entries users see. */
    @Test
    void shouldBeMetadataThatBootsReaderReads() throws IOException {
        Map<String, ConfigurationMetadataProperty> properties;
        try (InputStream in = Files.newInputStream(FILE)) {
            properties = ConfigurationMetadataRepositoryJsonBuilder.create(in).build().getAllProperties();
        }

        ConfigurationMetadataProperty policy = properties.get("fairslice.policy");
        assertThat(policy.getType()).isEqualTo("java.lang.String");
        assertThat(policy.getDefaultValue()).isEqualTo("share");
        assertThat(policy.getShortDescription()).isEqualTo("The scheduling policy.");
        assertThat(policy.getHints().getValueHints()).extracting(ValueHint::getValue)
                .containsExactly("observe", "sleep", "share");
        ConfigurationMetadataProperty enabled = properties.get("fairslice.enabled");
        assertThat(enabled.getType()).isEqualTo("java.lang.Boolean");
        assertThat(enabled.getDefaultValue()).isEqualTo(true);
        assertThat(enabled.getHints().getValueHints()).extracting(ValueHint::getValue).containsExactly(true, false);
        ConfigurationMetadataProperty maxPark = properties.get("fairslice.share.max-park");
        assertThat(maxPark.getType()).as("a duration fairslice parses itself").isEqualTo("java.lang.String");
        assertThat(maxPark.getDefaultValue()).isEqualTo("500ms");
        assertThat(maxPark.getDescription()).contains("Range: 1ms..60s.", "ns, us (or µs), ms");
        assertThat(properties.get("fairslice.adaptive.min-samples").getType()).isEqualTo("java.lang.Integer");
        assertThat(properties.get("fairslice.adaptive.min-samples").getDefaultValue()).isEqualTo(10);
        assertThat(properties.get("fairslice.default-class").getDefaultValue()).as("not one value").isNull();
        assertThat(properties.get("fairslice.default-class").getDescription()).endsWith("Default: first class.");
        assertThat(properties.get("fairslice.config").getType()).isEqualTo("java.lang.String");
        for (String map : List.of("fairslice.class", "fairslice.rule", "fairslice.route")) {
            assertThat(properties.get(map).getType()).as(map).isEqualTo(MAP_TYPE);
        }
        assertThat(properties.get("fairslice.class").getHints().getKeyHints()).extracting(ValueHint::getValue)
                .contains("light.share", "heavy.share", "heavy.max-concurrency", "heavy.queue-timeout");
        assertThat(properties.get("fairslice.class").getHints().getKeyHints())
                .filteredOn(hint -> hint.getValue().equals("heavy.share")).extracting(ValueHint::getDescription)
                .singleElement().asString().endsWith("Default: 20.");
        assertThat(properties.keySet()).as("no placeholder as a name").noneMatch(name -> name.contains("<"));
        assertThat(properties.values()).extracting(ConfigurationMetadataProperty::getDescription)
                .as("no <placeholder>, which an IDE's HTML would drop").noneMatch(text -> text.contains("<"));
        for (ConfigKeys.Spec spec : ConfigKeys.ALL) {
            if (!spec.name().contains("<")) {
                assertThat(properties).as(spec.name()).containsKey(ConfigKeys.PREFIX + spec.name());
            }
        }
    }

    /** The metadata as JSON's objects: {@code groups}, {@code properties} and {@code hints}, in ConfigKeys' order. */
    private static Map<String, Object> metadata() throws IOException {
        List<Object> properties = new ArrayList<>();
        List<Object> hints = new ArrayList<>();
        Map<String, List<ConfigTable.Row>> maps = new LinkedHashMap<>();
        for (ConfigTable.Row row : ConfigTable.read(ConfigTable.FROM_MODULE)) {
            ConfigKeys.Spec spec = row.spec();
            String name = ConfigKeys.PREFIX + spec.name();
            if (spec.name().startsWith("<")) {
                continue; // a request listener's setting: see the class's Javadoc
            }
            if (spec.name().contains("<")) {
                maps.computeIfAbsent(name.substring(0, name.indexOf(".<")), m -> new ArrayList<>()).add(row);
                continue;
            }
            boolean bool = spec.range().equals("true, false");
            boolean integer = spec.defaultValue().matches("[0-9]+");
            Map<String, Object> property = entry(name);
            property.put("type", bool ? "java.lang.Boolean" : integer ? "java.lang.Integer" : "java.lang.String");
            property.put("description", description(row, !oneValue(spec)));
            property.put("sourceType", SOURCE_TYPE);
            if (oneValue(spec)) {
                property.put("defaultValue", bool ? (Object) Boolean.valueOf(spec.defaultValue())
                        : integer ? (Object) Integer.valueOf(spec.defaultValue()) : spec.defaultValue());
            }
            properties.add(property);
            if (WORDS.matcher(spec.range()).matches()) {
                List<Object> values = new ArrayList<>();
                for (String value : spec.range().split(", ")) {
                    Map<String, Object> hint = new LinkedHashMap<>();
                    hint.put("value", bool ? (Object) Boolean.valueOf(value) : value);
                    values.add(hint);
                }
                Map<String, Object> hint = entry(name);
                hint.put("values", values);
                // fairslice reads these words in any case (SHARE, True): the values are offered, not the only ones
                hint.put("providers", List.of(Map.of("name", "any")));
                hints.add(hint);
            }
        }
        maps.forEach((name, rows) -> {
            Map<String, Object> property = entry(name);
            property.put("type", MAP_TYPE);
            if (rows.size() == 1) { // rule.<n>, route.<n>: keyed by the number
                property.put("description", description(rows.get(0), true) + " Written "
                        + braces(ConfigKeys.PREFIX + rows.get(0).spec().name()) + ".");
            } else { // class.<class>.<setting>: keyed by the class and the setting
                property.put("description", "Settings of each class, written " + name + ".{class}.{setting}: "
                        + String.join(", ", rows.stream().map(row -> row.spec().name()
                        .substring(row.spec().name().lastIndexOf('.') + 1)).toList()) + ".");
                hints.add(classKeyHints(name, rows));
            }
            property.put("sourceType", SOURCE_TYPE);
            properties.add(property);
        });
        properties.add(configFile());
        Map<String, Object> group = entry("fairslice");
        group.put("description", "fairslice, the overload-fairness filter (docs/configuration.md).");
        group.put("sourceType", SOURCE_TYPE);
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("groups", List.of(group));
        metadata.put("properties", properties);
        metadata.put("hints", hints);
        return metadata;
    }

    /** {@code fairslice.config}: no key of the table (nor of a properties file), so described here. */
    private static Map<String, Object> configFile() {
        Map<String, Object> property = entry(ConfigKeys.CONFIG_FILE_PROPERTY);
        property.put("type", "java.lang.String");
        property.put("description", "The path of a properties file (not a classpath: location) of fairslice keys"
                + " to read before the application's"
                + " properties, which win over it; it must exist. Default: a fairslice.properties on the class path"
                + " (in a WAR, WEB-INF/fairslice.properties first), if there is one.");
        property.put("sourceType", SOURCE_TYPE);
        return property;
    }

    /** Key hints for the per-class settings of the default classes ({@code light.share}), with their descriptions. */
    private static Map<String, Object> classKeyHints(String name, List<ConfigTable.Row> rows) {
        String defaultClasses = ConfigKeys.ALL.stream().filter(s -> s.name().equals(ConfigKeys.CLASSES))
                .findFirst().orElseThrow().defaultValue();
        List<Object> values = new ArrayList<>();
        for (String cls : defaultClasses.split(",")) {
            for (ConfigTable.Row row : rows) {
                Map<String, Object> hint = new LinkedHashMap<>();
                hint.put("value", row.spec().name().substring(ConfigKeys.CLASS_PREFIX.length())
                        .replace("<class>", cls));
                hint.put("description", description(row, true, cls));
                values.add(hint);
            }
        }
        Map<String, Object> hint = entry(name + ".keys");
        hint.put("values", values);
        return hint;
    }

    private static Map<String, Object> entry(String name) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", name);
        return entry;
    }

    /** Whether the default is one value ({@code 5ms}), not words for one ({@code (first class)}, {@code light 80}). */
    private static boolean oneValue(ConfigKeys.Spec spec) {
        return !spec.defaultValue().startsWith("(") && !spec.defaultValue().contains(" ");
    }

    /**
     * The row's meaning cut to its first sentence or clause (or its Spring Boot meaning), then its range (unless hints
     * list it), the unit syntax of a duration, and, with {@code withDefault}, the default in words ({@code forClass}:
     * that class's, where the default names it, as {@code light 80, heavy 20}).
     */
    private static String description(ConfigTable.Row row, boolean withDefault, String forClass) {
        ConfigKeys.Spec spec = row.spec();
        StringBuilder text = new StringBuilder(BOOT_MEANINGS.getOrDefault(spec.name(),
                sentence(firstClause(plain(row.meaning())))));
        if (!WORDS.matcher(spec.range()).matches()) {
            text.append(" Range: ").append(spec.range()).append('.');
        }
        if (Durations.parseOrNull(spec.defaultValue()) != null) {
            text.append(' ').append(DURATION);
        }
        if (withDefault) {
            String value = spec.defaultValue();
            Matcher own = forClass == null ? null
                    : Pattern.compile("(?:^|, )" + Pattern.quote(forClass) + " (\\S+)(?:,|$)").matcher(value);
            boolean words = value.startsWith("(") && value.endsWith(")");
            text.append(" Default: ").append(own != null && own.find() ? own.group(1)
                    : words ? value.substring(1, value.length() - 1) : value).append('.');
        }
        return braces(text.toString());
    }

    private static String description(ConfigTable.Row row, boolean withDefault) {
        return description(row, withDefault, null);
    }

    /**
     * {@code text} with its placeholders in braces ({@code <class>} as {@code {class}}): IDEs show descriptions as
     * HTML, where an angle-bracketed word would be taken for a tag and dropped.
     */
    private static String braces(String text) {
        return text.replaceAll("<([a-z ]+)>", "{$1}");
    }

    /**
     * {@code markdown} as plain text: code spans without their backticks, links as their text, emphasis without its
     * stars (outside code spans only, where {@code /reports/**} keeps them).
     */
    private static String plain(String markdown) {
        String[] parts = markdown.split("`", -1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            text.append(i % 2 == 1 ? parts[i] : parts[i].replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1")
                    .replaceAll("\\*([^*\\s][^*]*)\\*", "$1"));
        }
        return text.toString();
    }

    /**
     * The text up to its first sentence's end, {@code ;}, or a {@code :} after a few words (not {@code false:}),
     * outside parentheses, with its parenthesised asides dropped: the short description IDEs show in a list.
     */
    private static String firstClause(String text) {
        StringBuilder kept = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean spaced = i + 1 == text.length() || text.charAt(i + 1) == ' ';
            if (depth == 0 && spaced && (c == ';' || c == '.' && !text.startsWith("e.g", Math.max(0, i - 3))
                    || c == ':' && kept.length() > 24)) {
                break;
            }
            depth += c == '(' ? 1 : c == ')' && depth > 0 ? -1 : 0;
            if (depth == 0 && c != ')') {
                kept.append(c);
            }
        }
        return kept.toString().replaceAll(" +", " ").replace(" ,", ",").trim();
    }

    /** {@code clause} as a sentence: a capital first, a full stop last. */
    private static String sentence(String clause) {
        String text = Character.toUpperCase(clause.charAt(0)) + clause.substring(1);
        return text.endsWith(".") ? text : text + ".";
    }

    /**
     * {@code value} as indented JSON, in the order its maps keep, non-ASCII escaped (so that the file reads the same
     * whatever charset a tool assumes), ending with a line break.
     */
    private static String json(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, "");
        return out.append('\n').toString();
    }

    private static void write(StringBuilder out, Object value, String indent) {
        String inner = indent + "  ";
        if (value instanceof Map<?, ?> map) {
            out.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.append(inner);
                write(out, e.getKey(), inner);
                out.append(": ");
                write(out, e.getValue(), inner);
                out.append(++i < map.size() ? ",\n" : "\n");
            }
            out.append(indent).append('}');
        } else if (value instanceof List<?> list) {
            out.append("[\n");
            for (int i = 0; i < list.size(); i++) {
                out.append(inner);
                write(out, list.get(i), inner);
                out.append(i + 1 < list.size() ? ",\n" : "\n");
            }
            out.append(indent).append(']');
        } else if (value instanceof String text) {
            out.append('"');
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20 || c > 0x7e) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            out.append('"');
        } else {
            out.append(value); // Boolean, Integer
        }
    }
}
