package io.fairslice.middleware.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.FairsliceConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
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
        assertThat(m.sources()).as("each source with the keys in force it set; the context parameters none")
                .isEqualTo("file /WEB-INF/fairslice.properties (sleep.quantum), filter parameters (class.heavy.share,"
                        + " share.quantum), system properties (policy)");
    }

    /** The started line's sources: a file read that sets nothing is named; nothing read or set is the defaults. */
    @Test
    void shouldDescribeTheSourcesOfTheSettingsInForce() {
        Map<String, String> context = Map.of("fairslice.policy", "observe");
        assertThat(ConfigSources.merge(context::get, context.keySet(), Map.of(),
                path -> new ByteArrayInputStream("# empty\n".getBytes(StandardCharsets.UTF_8)), null, new Properties())
                .sources()).isEqualTo("file /WEB-INF/fairslice.properties (sets nothing), context parameters (policy)");
        assertThat(ConfigSources.merge(name -> null, List.of(), Map.of(), path -> null, null, new Properties())
                .sources()).isEqualTo("defaults only");
        // a file whose keys a later source all set again did set them: it said "sets nothing", as of an empty one
        Properties system = new Properties();
        system.setProperty("fairslice.policy", "observe");
        assertThat(ConfigSources.merge(context::get, context.keySet(), Map.of("share.quantum", "2ms"), path ->
                new ByteArrayInputStream("policy=share\nshare.quantum=3ms\n".getBytes(StandardCharsets.UTF_8)), null,
                system).sources()).isEqualTo("file /WEB-INF/fairslice.properties (policy, share.quantum: each set again"
                + " later), filter parameters (share.quantum), system properties (policy)");
    }

    /** -Dfairslice.policy=$POLICY with POLICY unset must not reset the file's policy to the default. */
    @Test
    void shouldLetABlankLaterValueSetNothing() {
        Properties system = new Properties();
        system.setProperty("fairslice.policy", "");
        system.setProperty("fairslice.share.quantum", "  ");
        ConfigSources.Merged m = ConfigSources.merge(Map.of("fairslice.share.quantum", "4ms")::get,
                List.of("fairslice.share.quantum"), Map.of("policy", " "),
                path -> new ByteArrayInputStream("policy=observe\nsleep.quantum=\n".getBytes(StandardCharsets.UTF_8)),
                null, system);
        assertThat(m.keys()).containsExactlyInAnyOrderEntriesOf(Map.of("policy", "observe", "share.quantum", "4ms"));
    }

    /**
     * policy and fairslice.policy are one key: given both as filter parameters (web.xml), which value won was the order
     * of Tomcat's HashMap of them. Both are named; a blank one sets nothing, so it clashes with nothing.
     */
    @Test
    void shouldRefuseOneKeyGivenTwiceAsFilterParameters() {
        Map<String, String> both = new LinkedHashMap<>();
        both.put("policy", "sleep");
        both.put("fairslice.policy", "observe");
        assertThatThrownBy(() -> ConfigSources.merge(k -> null, List.of(), both, path -> null, null, new Properties()))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("policy must be set once among the filter's parameters (both policy='sleep' and"
                        + " fairslice.policy are set)").hasMessageContaining("'observe'");
        both.put("policy", " ");
        assertThat(ConfigSources.merge(k -> null, List.of(), both, path -> null, null, new Properties()).keys())
                .containsEntry("policy", "observe");
    }

    /** The docs write 500µs; a file saved as UTF-8 (what editors write) must read as such. */
    @Test
    void shouldReadTheFileAsUtf8AndOtherwiseAsIso88591() {
        ConfigSources.Merged utf8 = ConfigSources.merge(k -> null, List.of(), Map.of(),
                path -> new ByteArrayInputStream("share.quantum = 500\u00b5s\n".getBytes(StandardCharsets.UTF_8)),
                null, new Properties());
        assertThat(utf8.keys()).containsEntry("share.quantum", "500\u00b5s");
        ConfigSources.Merged latin1 = ConfigSources.merge(k -> null, List.of(), Map.of(),
                path -> new ByteArrayInputStream("share.quantum = 500\u00b5s\n".getBytes(StandardCharsets.ISO_8859_1)),
                null, new Properties());
        assertThat(latin1.keys()).containsEntry("share.quantum", "500\u00b5s");
    }

    /**
     * A file an editor saved with a byte order mark: Properties took the mark for the start of the first key, and the
     * application failed to start on "\uFEFFpolicy is not a fairslice configuration key; did you mean policy?".
     */
    @Test
    void shouldReadAFileThatStartsWithAByteOrderMark() {
        for (String first : List.of("policy = observe\n", "# fairslice's configuration\npolicy = observe\n")) {
            ConfigSources.Merged m = ConfigSources.merge(k -> null, List.of(), Map.of(),
                    path -> new ByteArrayInputStream(("\uFEFF" + first).getBytes(StandardCharsets.UTF_8)), null,
                    new Properties());
            assertThat(m.keys()).as(first).containsExactlyEntriesOf(Map.of("policy", "observe"));
        }
    }

    @Test
    void shouldReadTheFileNamedByFairsliceConfig(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("f.properties");
        Files.writeString(f, "fairslice.policy=observe\n");
        ConfigSources.Merged m = fileOnly(naming(f));
        assertThat(m.keys()).containsExactlyEntriesOf(Map.of("policy", "observe"));
    }

    /**
     * A blank {@code -Dfairslice.config=} sets nothing, as a blank value of any key: the context parameter's file is
     * read (the blank system property hid it, and the web application's own file was read instead).
     */
    @Test
    void shouldReadTheContextParametersFileWhenTheSystemPropertyIsBlank(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("f.properties");
        Files.writeString(f, "policy=observe\n");
        Properties system = new Properties();
        system.setProperty("fairslice.config", " ");
        ConfigSources.Merged m = ConfigSources.merge(Map.of("fairslice.config", f.toString())::get,
                List.of("fairslice.config"), Map.of(),
                path -> new ByteArrayInputStream("policy=sleep\n".getBytes(StandardCharsets.UTF_8)), null, system);
        assertThat(m.keys()).containsExactlyEntriesOf(Map.of("policy", "observe"));
        assertThat(m.file()).isEqualTo(f.toAbsolutePath().toString());
    }

    /**
     * Only one file is read: one named by -Dfairslice.config (the installer's) passes over the application's own, and
     * that one the class path's; the filter says which, as their settings would otherwise be lost without a word.
     */
    @Test
    void shouldSayWhichFilesThereAreButAreNotRead(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("f.properties");
        Files.writeString(f, "policy=observe\n");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("fairslice.properties"), "policy=share\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            ConfigSources.Merged named = ConfigSources.merge(name -> null, List.of(), Map.of(),
                    path -> new ByteArrayInputStream("policy=sleep\n".getBytes(StandardCharsets.UTF_8)), loader,
                    naming(f));
            assertThat(named.keys()).containsExactlyEntriesOf(Map.of("policy", "observe"));
            assertThat(named.passedOver()).containsExactly("/WEB-INF/fairslice.properties",
                    "classpath:fairslice.properties");
            ConfigSources.Merged own = ConfigSources.merge(name -> null, List.of(), Map.of(),
                    path -> new ByteArrayInputStream("policy=sleep\n".getBytes(StandardCharsets.UTF_8)), loader,
                    new Properties());
            assertThat(own.keys()).containsExactlyEntriesOf(Map.of("policy", "sleep"));
            assertThat(own.passedOver()).containsExactly("classpath:fairslice.properties");
            ConfigSources.Merged classPath = ConfigSources.merge(name -> null, List.of(), Map.of(), path -> null,
                    loader, new Properties());
            assertThat(classPath.file()).isEqualTo("classpath:fairslice.properties");
            assertThat(classPath.passedOver()).isEmpty();
        }
    }

    /**
     * Under the installer {@code -Dfairslice.config} always names conf/fairslice.properties, and it wins: a file an
     * application's descriptor names as its own ({@code <Parameter name="fairslice.config" .../>}) was not read, and
     * nothing said so. It is passed over as the application's WEB-INF file is, unless it is the same file.
     */
    @Test
    void shouldSayThatAFileTheContextParameterNamesIsNotReadWhenTheSystemPropertyNamesAnother(@TempDir Path dir)
            throws IOException {
        Path shared = dir.resolve("fairslice.properties");
        Files.writeString(shared, "policy=observe\n");
        Path own = dir.resolve("shop.properties");
        Files.writeString(own, "policy=sleep\n");
        ConfigSources.Merged m = ConfigSources.merge(Map.of("fairslice.config", own.toString())::get,
                List.of("fairslice.config"), Map.of(), p -> null, null, naming(shared));
        assertThat(m.keys()).containsExactlyEntriesOf(Map.of("policy", "observe"));
        assertThat(m.passedOver()).containsExactly(own + " (named by context parameter fairslice.config)");

        String sameSpeltOtherwise = dir.resolve(".").resolve("fairslice.properties").toString();
        assertThat(ConfigSources.merge(Map.of("fairslice.config", sameSpeltOtherwise)::get,
                List.of("fairslice.config"), Map.of(), p -> null, null, naming(shared)).passedOver()).isEmpty();
    }

    /**
     * Only names that start with {@code fairslice.} are read, so a context parameter or system property whose prefix
     * is misspelt set nothing and nothing said so ({@code fairslice.clas.heavy.share} is refused, naming the key it is
     * closest to; {@code fairslce.class.heavy.share} was dropped). Other libraries' names share these sources, so such
     * a name is not refused, but named, for the filter's warning.
     */
    @Test
    void shouldNameTheContextParametersAndSystemPropertiesWhosePrefixIsMisspelt() {
        Properties system = new Properties();
        system.setProperty("Fairslice.policy", "observe");
        system.setProperty("fairslice_share.quantum", "4ms");
        system.setProperty("java.vendor", "x");
        system.setProperty("fairslice.policy", "share");
        List<String> names = List.of("fairslce.class.heavy.share", "fiarslice.policy", "fairslice.jmx",
                "spring.profiles", "org.apache.catalina.x", "fairy.tale");
        ConfigSources.Merged m = ConfigSources.merge(name -> names.contains(name) ? "10" : null, names, Map.of(),
                p -> null, null, system);
        assertThat(m.misspelt()).containsExactly("context parameter fairslce.class.heavy.share",
                "context parameter fiarslice.policy", "system property -DFairslice.policy",
                "system property -Dfairslice_share.quantum");
        assertThat(m.keys()).containsOnlyKeys("jmx", "policy");
    }

    /**
     * configuration.md names the file by {@code fairslice.config}, and a filter's parameters take keys with or without
     * the prefix: given there, it was refused as the unknown key {@code config}. The file is read before any parameter,
     * so it cannot come from them; the refusal now says so.
     */
    @Test
    void shouldRefuseTheConfigurationFileAmongTheFiltersParametersSayingWhereItIsRead() {
        for (String name : List.of("fairslice.config", "config")) {
            assertThatThrownBy(() -> ConfigSources.merge(k -> null, List.of(), Map.of(name, "/opt/shop.properties"),
                    p -> null, null, new Properties()))
                    .isInstanceOf(FairsliceConfigException.class)
                    .hasMessage("fairslice configuration: filter init parameter " + name + " must be a system"
                            + " property or a context parameter: the file it names is read before any parameter, got"
                            + " '/opt/shop.properties'");
        }
    }

    @Test
    void shouldFailWhenTheNamedFileIsMissing() {
        Properties system = naming(Path.of("/no/such/fairslice.properties"));
        assertThatThrownBy(() -> fileOnly(system))
                .hasMessageContaining("fairslice.config must name a readable file")
                .hasMessageContaining("/no/such/fairslice.properties");
    }

    /**
     * The file is read before anything is merged, so no {@link ConfigSources.Merged#originOf} can say where it was
     * named: its refusal does, as merge chose it (the system property unless blank, else the context parameter), so
     * that the filter and Spring Boot need not choose again. A key the file gives twice is the file's, not the name's.
     */
    @Test
    void shouldSayInTheRefusalOfTheNamedFileWhichSourceNamedIt(@TempDir Path dir) throws IOException {
        String missing = dir.resolve("missing.properties").toString();
        Function<String, String> parameter = Map.of("fairslice.config", missing)::get;
        Properties blank = new Properties();
        blank.setProperty("fairslice.config", " ");
        for (Properties system : List.of(new Properties(), blank)) {
            assertThatThrownBy(() -> ConfigSources.merge(parameter, List.of("fairslice.config"), Map.of(), p -> null,
                    null, system)).isInstanceOfSatisfying(FairsliceConfigException.class, e -> assertThat(e.origin())
                    .isEqualTo("by context parameter fairslice.config"));
        }
        Path invalid = Files.writeString(dir.resolve("invalid.properties"), "policy=\\uZZZZ\n");
        for (Path named : List.of(Path.of(missing), invalid)) {
            assertThatThrownBy(() -> ConfigSources.merge(parameter, List.of("fairslice.config"), Map.of(), p -> null,
                    null, naming(named))).isInstanceOfSatisfying(FairsliceConfigException.class, e -> assertThat(
                    e.origin()).isEqualTo("by system property -Dfairslice.config"));
        }
        Path twice = Files.writeString(dir.resolve("twice.properties"), "policy=share\npolicy=observe\n");
        assertThatThrownBy(() -> fileOnly(naming(twice))).isInstanceOfSatisfying(FairsliceConfigException.class,
                e -> assertThat(e.origin()).isNull());
    }

    /**
     * A file fairslice found without being told (WEB-INF's, the class path's) and cannot read is named, with where it
     * was found; it was refused as "fairslice.config file must be readable", a key the user never set, and the filter
     * then looked for who set it.
     */
    @Test
    void shouldNameAFoundFileItCannotReadNotTheKeyThatNamesFiles(@TempDir Path dir) throws IOException {
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Input/output error");
            }
        };
        assertThatThrownBy(() -> ConfigSources.merge(k -> null, List.of(), Map.of(), path -> failing, null,
                new Properties()))
                .isNotInstanceOf(FairsliceConfigException.class)
                .hasMessage("fairslice configuration: the file /WEB-INF/fairslice.properties (in the web application;"
                        + " read as no fairslice.config names a file) cannot be read (Input/output error)");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path file = Files.writeString(classes.resolve("fairslice.properties"), "policy=\\uZZZZ\n");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            assertThatThrownBy(() -> ConfigSources.merge(k -> null, List.of(), Map.of(), path -> null, loader,
                    new Properties()))
                    .isNotInstanceOf(FairsliceConfigException.class)
                    .hasMessageStartingWith("fairslice configuration: the file classpath:fairslice.properties"
                            + " (found at " + file.toUri().toURL() + "; read as no fairslice.config names a file)"
                            + " must be a valid properties file (");
        }
    }

    /**
     * The file's path was read without blanks at its ends: a fairslice.config ending in a space read the file of that
     * name without it, another file. A file of the name as given is read; where there is none, the blank is taken for
     * a typing slip (a properties file keeps a value's trailing blanks, and such a value worked before) and the file
     * without it is read; with neither, the refusal names the blank.
     */
    @Test
    void shouldReadTheFileNamedWithABlankAtItsEndAsNamed(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("fairslice.properties"), "policy=observe\n");
        Path spaced = dir.resolve("fairslice.properties ");
        Files.writeString(spaced, "policy=share\n");
        assertThat(fileOnly(naming(spaced)).keys()).containsEntry("policy", "share");

        Files.writeString(dir.resolve("shop.properties"), "policy=observe\n");
        assertThat(fileOnly(naming(dir.resolve("shop.properties "))).keys()).containsEntry("policy", "observe");

        Path missing = dir.resolve("none.properties ");
        assertThatThrownBy(() -> fileOnly(naming(missing))).isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("fairslice.config must name a readable file (it starts or ends with a blank,"
                        + " which is part of the file's name), got '" + missing + "'");
    }

    /** The properties format keeps a repeated key's last value without a word: a second rule.1 replaced the first. */
    @Test
    void shouldRefuseAKeyTheFileGivesTwice(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("fairslice.properties");
        Files.writeString(f, "rule.1 = heavy path=/report/**\npolicy=share\nrule.1=heavy path=/export\n");
        Properties system = naming(f);
        assertThatThrownBy(() -> fileOnly(system))
                .isInstanceOf(FairsliceConfigException.class)
                .hasMessageContaining("rule.1 is given twice in " + f + " ('heavy path=/report/**', then"
                        + " 'heavy path=/export'): give each key once");
        Files.writeString(f, "policy=share\nfairslice.policy=observe\n");
        assertThatThrownBy(() -> fileOnly(system))
                .as("with and without the prefix: one key").hasMessageContaining("policy is given twice");
        Files.writeString(f, "policy=share\nrule.1=heavy path=/a\n");
        assertThat(fileOnly(system).keys())
                .containsExactlyInAnyOrderEntriesOf(Map.of("policy", "share", "rule.1", "heavy path=/a"));
    }

    /** A bad value's message says which source set it: the file, a context parameter, a filter or system property. */
    @Test
    void shouldTellWhereEachKeysValueCameFrom(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("fairslice.properties");
        Files.writeString(f, "policy=share\nshare.quantum=5ms\nclass.heavy.share=20\n");
        Properties system = naming(f);
        system.setProperty("fairslice.share.quantum", "4ms");
        ConfigSources.Merged m = ConfigSources.merge(Map.of("fairslice.class.heavy.share", "0")::get,
                List.of("fairslice.class.heavy.share"), Map.of("routes.max", "10"), p -> null, null, system);
        assertThat(m.originOf("policy")).isEqualTo("in " + f);
        assertThat(m.originOf("class.heavy.share")).isEqualTo("by context parameter fairslice.class.heavy.share");
        assertThat(m.originOf("routes.max")).isEqualTo("by filter init parameter routes.max");
        assertThat(m.originOf("share.quantum")).isEqualTo("by system property -Dfairslice.share.quantum");
        assertThat(m.originOf("adaptive")).isNull();
    }

    /** System properties that name {@code file} as the configuration file ({@code -Dfairslice.config}). */
    private static Properties naming(Path file) {
        Properties system = new Properties();
        system.setProperty("fairslice.config", file.toString());
        return system;
    }

    /** The merge of the file those properties name (and their own keys), without context or filter parameters. */
    private static ConfigSources.Merged fileOnly(Properties system) {
        return ConfigSources.merge(k -> null, List.of(), Map.of(), p -> null, null, system);
    }
}
