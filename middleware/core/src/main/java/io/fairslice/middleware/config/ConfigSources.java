package io.fairslice.middleware.config;

import io.fairslice.middleware.FairsliceConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Merges the configuration sources into one key map, later sources winning:
 * <ol>
 * <li>the properties file: the path in system property (or context parameter) {@code fairslice.config}; otherwise
 * {@code /WEB-INF/fairslice.properties}; otherwise {@code fairslice.properties} on the web application's class
 * path; keys without prefix;</li>
 * <li>context parameters {@code fairslice.<key>};</li>
 * <li>filter init parameters {@code <key>} (a {@code fairslice.} prefix is accepted and dropped);</li>
 * <li>system properties {@code fairslice.<key>}.</li>
 * </ol>
 * A blank value sets nothing: it does not reset what an earlier source set ({@code -Dfairslice.policy=$POLICY} with
 * {@code POLICY} unset leaves the file's policy). The file is read as UTF-8 ({@code 500µs}), or as ISO-8859-1, the
 * properties format's own encoding, when it is not valid UTF-8.
 */
public final class ConfigSources {

    /** How {@link Merged#originOf} begins for a value a filter init parameter set. */
    public static final String FILTER_PARAMETER_ORIGIN = "by filter init parameter ";
    /** How {@link Merged#originOf} begins for a value a context parameter set. */
    public static final String CONTEXT_PARAMETER_ORIGIN = "by context parameter ";
    /** How {@link Merged#originOf} begins for a value a system property set. */
    static final String SYSTEM_PROPERTY_ORIGIN = "by system property -D";
    /** {@link ConfigKeys#CONFIG_FILE_PROPERTY} without its prefix, as a filter's parameter may give it. */
    private static final String CONFIG_KEY = ConfigKeys.CONFIG_FILE_PROPERTY.substring(ConfigKeys.PREFIX.length());
    /** The application's own configuration file, read when no file is named. */
    static final String WEB_INF_FILE = "/WEB-INF/fairslice.properties";
    /** The class path's configuration file, read when no file is named and the application has none in WEB-INF. */
    static final String CLASS_PATH_FILE = "fairslice.properties";
    /** How {@link Merged#file} and {@link Merged#passedOver} name the class path's file. */
    private static final String CLASS_PATH_ORIGIN = "classpath:" + CLASS_PATH_FILE;

    private ConfigSources() {
    }

    /**
     * The merged keys, the properties file read (null: none), where each key's value came from, as a phrase
     * ("in /opt/tomcat/conf/fairslice.properties", "by context parameter fairslice.policy"), for error messages, and
     * the files present but not read because that one was (only one file is read), the keys that file set, and the
     * context parameters and system properties not read because their prefix is misspelt ({@link #misspeltPrefix}:
     * "context parameter fairslce.policy", "system property -DFairslice.policy").
     */
    public record Merged(Map<String, String> keys, String file, Map<String, String> origins, List<String> passedOver,
                         Set<String> fileKeys, List<String> misspelt) {

        /** Where {@code key}'s value came from, or null when no source set it. */
        public String originOf(String key) {
            return origins.get(key);
        }

        /**
         * Where the settings in force came from, in the order the sources are merged, each with the keys whose value
         * in force it set (a later source's value wins, so a source all of whose keys a later one set is left out):
         * {@code file /WEB-INF/fairslice.properties (classes, rule.1), context parameters (policy)}; a file read is
         * named even when it sets nothing, or only keys a later source set again (they are named, and said to be);
         * {@code defaults only} when nothing was read or set.
         */
        public String sources() {
            Map<String, Set<String>> bySource = new LinkedHashMap<>();
            if (file != null) {
                bySource.put("file " + file, new TreeSet<>());
            }
            origins.forEach((key, origin) -> bySource.computeIfAbsent(sourceOf(origin), s -> new TreeSet<>())
                    .add(key));
            StringBuilder out = new StringBuilder();
            for (String source : List.of("file " + file, "context parameters", "filter parameters",
                    "system properties")) {
                Set<String> set = bySource.get(source);
                if (set != null) {
                    // a file whose every key a later source set again did set them: "sets nothing" read as unread
                    String what = !set.isEmpty() ? String.join(", ", set) : fileKeys.isEmpty() ? "sets nothing"
                            : String.join(", ", new TreeSet<>(fileKeys)) + ": each set again later";
                    out.append(out.isEmpty() ? "" : ", ").append(source).append(" (").append(what).append(")");
                }
            }
            return out.isEmpty() ? "defaults only" : out.toString();
        }

        private String sourceOf(String origin) {
            if (origin.startsWith(CONTEXT_PARAMETER_ORIGIN)) {
                return "context parameters";
            } else if (origin.startsWith(FILTER_PARAMETER_ORIGIN)) {
                return "filter parameters";
            } else if (origin.startsWith(SYSTEM_PROPERTY_ORIGIN)) {
                return "system properties";
            }
            return "file " + file; // the only other origin: "in " and the file as named
        }
    }

    /**
     * @param contextParams context parameter names to values ({@code null} for absent)
     * @param contextParamNames all context parameter names
     * @param filterParams filter init parameters
     * @param webInfFile reads {@code /WEB-INF/fairslice.properties} or returns null
     * @param loader the web application's class loader
     * @param system the system properties
     */
    public static Merged merge(Function<String, String> contextParams, Iterable<String> contextParamNames,
                               Map<String, String> filterParams, Function<String, InputStream> webInfFile,
                               ClassLoader loader, Properties system) {
        Map<String, String> keys = new LinkedHashMap<>();
        Map<String, String> origins = new HashMap<>();
        List<String> passedOver = new ArrayList<>();
        URL classPathFile = loader == null ? null : loader.getResource(CLASS_PATH_FILE);
        boolean onClassPath = classPathFile != null;
        String file = null;
        Named named = systemPropertyOrContextParameter(ConfigKeys.CONFIG_FILE_PROPERTY, contextParams, system);
        if (named != null) {
            Path p;
            try {
                p = readNamed(named.value(), keys, origins);
            } catch (FairsliceConfigException e) {
                // read before anything is merged, so no Merged.originOf can say where the file was named: this does
                throw ConfigKeys.CONFIG_FILE_PROPERTY.equals(e.key()) ? e.withOrigin(named.origin()) : e;
            }
            file = p.toAbsolutePath().toString();
            String parameter = contextParams.apply(ConfigKeys.CONFIG_FILE_PROPERTY);
            if (parameter != null && !parameter.isBlank() && !sameFile(p, parameter)) {
                // the system property (the installer's) wins: an application's own file, named in its descriptor,
                // was passed over without a word
                passedOver.add(parameter + " (named by context parameter " + ConfigKeys.CONFIG_FILE_PROPERTY
                        + ")");
            }
            if (present(webInfFile.apply(WEB_INF_FILE))) {
                passedOver.add(WEB_INF_FILE);
            }
            if (onClassPath) {
                passedOver.add(CLASS_PATH_ORIGIN);
            }
        } else {
            InputStream in = webInfFile.apply(WEB_INF_FILE);
            String found = "in the web application";
            if (in != null) {
                file = WEB_INF_FILE;
                if (onClassPath) {
                    passedOver.add(CLASS_PATH_ORIGIN);
                }
            } else if (onClassPath && (in = loader.getResourceAsStream(CLASS_PATH_FILE)) != null) {
                file = CLASS_PATH_ORIGIN;
                found = "found at " + classPathFile;
            }
            if (in != null) {
                try (InputStream closing = in) {
                    load(closing, keys, file, found, origins);
                } catch (IOException e) {
                    throw notReadable(file, found, "cannot be read (" + e.getMessage() + ")");
                }
            }
        }
        Set<String> fileKeys = Set.copyOf(keys.keySet()); // so far, the file's only
        List<String> misspelt = new ArrayList<>();
        for (String name : contextParamNames) {
            if (name.startsWith(ConfigKeys.PREFIX) && !name.equals(ConfigKeys.CONFIG_FILE_PROPERTY)) {
                set(keys, unprefixed(name), contextParams.apply(name), origins, CONTEXT_PARAMETER_ORIGIN + name);
            } else if (misspeltPrefix(name)) {
                misspelt.add("context parameter " + name);
            }
        }
        Map<String, String> filterParamNames = new HashMap<>();
        filterParams.forEach((k, v) -> {
            if (v != null && !v.isBlank() && (k.equals(ConfigKeys.CONFIG_FILE_PROPERTY) || k.equals(CONFIG_KEY))) {
                // refused as the unknown key 'config' before, though configuration.md names fairslice.config; not
                // keyed fairslice.config, whose refusals name where the system property or context parameter is
                throw FairsliceConfigException.of("filter init parameter " + k, "must be a system property or a"
                        + " context parameter: the file it names is read before any parameter", v);
            }
            // policy and fairslice.policy are one key: Tomcat keeps a filter's parameters in a HashMap, so which of
            // two values won was the map's order, not the user's
            String other = v == null || v.isBlank() ? null : filterParamNames.put(unprefixed(k), k);
            if (other != null) {
                throw FairsliceConfigException.of(unprefixed(k), "must be set once among the filter's parameters"
                        + " (both " + other + "='" + filterParams.get(other) + "' and " + k + " are set)", v);
            }
            set(keys, unprefixed(k), v, origins, FILTER_PARAMETER_ORIGIN + k);
        });
        for (String name : new TreeSet<>(system.stringPropertyNames())) {
            if (name.startsWith(ConfigKeys.PREFIX) && !name.equals(ConfigKeys.CONFIG_FILE_PROPERTY)) {
                set(keys, unprefixed(name), system.getProperty(name), origins, SYSTEM_PROPERTY_ORIGIN + name);
            } else if (misspeltPrefix(name)) {
                misspelt.add("system property -D" + name);
            }
        }
        return new Merged(keys, file, Map.copyOf(origins), List.copyOf(passedOver), fileKeys, List.copyOf(misspelt));
    }

    /** A value that is not blank and where it came from, worded as {@link Merged#originOf} words it. */
    public record Named(String value, String origin) {
    }

    /**
     * The {@code -D} system property {@code name} if it is not blank (a blank value sets nothing, as for every key),
     * with its origin ({@code by system property -Dfairslice.enabled}); null otherwise. System properties are merged
     * last: where it is set, no other source's value of {@code name} counts.
     */
    public static Named systemProperty(String name, Properties system) {
        String value = system.getProperty(name);
        return value == null || value.isBlank() ? null : new Named(value, SYSTEM_PROPERTY_ORIGIN + name);
    }

    /**
     * Where a key read before anything is merged takes its value: {@code fairslice.config}, which names the file to
     * merge, and {@code fairslice.enabled}, by which the initializer registers the filter or not. The system property
     * ({@link #systemProperty}) if it is set, else the context parameter if it is not blank
     * ({@code by context parameter fairslice.config}); null when neither sets it.
     */
    public static Named systemPropertyOrContextParameter(String name, Function<String, String> contextParams,
                                                         Properties system) {
        Named property = systemProperty(name, system);
        if (property != null) {
            return property;
        }
        String parameter = contextParams.apply(name);
        return parameter == null || parameter.isBlank() ? null : new Named(parameter, CONTEXT_PARAMETER_ORIGIN + name);
    }

    /**
     * Reads the file {@code fairslice.config} names into {@code keys}, returning its path. As given: a blank at an end
     * can be part of the name (/srv/tomcat /conf/x.properties ); read without it first, the value named another file.
     * Only where no file has that name is it a blank typed by mistake (a properties file keeps a value's trailing
     * blanks), and the file without it is read.
     */
    private static Path readNamed(String named, Map<String, String> keys, Map<String, String> origins) {
        Path p = asGiven(named);
        Path stripped = Path.of(named.strip());
        if ((p == null || !Files.isRegularFile(p)) && Files.isRegularFile(stripped)) {
            p = stripped;
        }
        if (p == null || !Files.isRegularFile(p)) {
            throw FairsliceConfigException.of(ConfigKeys.CONFIG_FILE_PROPERTY, "must name a readable file"
                    + (named.strip().equals(named) ? "" : " (it starts or ends with a blank, which is part of the"
                            + " file's name)"), named);
        }
        try (InputStream in = Files.newInputStream(p)) {
            load(in, keys, named, null, origins);
        } catch (IOException e) {
            throw FairsliceConfigException.of(ConfigKeys.CONFIG_FILE_PROPERTY, "must name a readable file ("
                    + e.getMessage() + ")", named);
        }
        return p;
    }

    /**
     * Whether a context parameter's or system property's {@code name} looks like a fairslice key whose prefix is
     * misspelt ({@code fairslce.policy}, {@code Fairslice.policy}, {@code fairslice_policy}): only names that start
     * with {@code fairslice.} are read, so its value was dropped without a word; other libraries' names share these
     * sources, so it cannot be refused as an unknown key is, but it is worth a warning.
     */
    static boolean misspeltPrefix(String name) {
        if (name.startsWith(ConfigKeys.PREFIX)) {
            return false;
        }
        String bare = ConfigKeys.PREFIX.substring(0, ConfigKeys.PREFIX.length() - 1);
        int dot = name.indexOf('.');
        String head = (dot < 0 ? name : name.substring(0, dot)).toLowerCase(Locale.ROOT);
        return head.startsWith(bare) || dot > 0 && ConfigParser.edits(head, bare) <= 2;
    }

    /** {@code named} as a path, or null where the file system takes no such name (Windows: a blank at its end). */
    private static Path asGiven(String named) {
        try {
            return Path.of(named);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** Whether {@code other} names the file {@code read} (spelt another way: relative, with {@code ./}). */
    private static boolean sameFile(Path read, String other) {
        try {
            return read.toAbsolutePath().normalize().equals(Path.of(other).toAbsolutePath().normalize());
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** Whether a stream was there (closing it: only its presence counts). */
    private static boolean present(InputStream in) {
        if (in == null) {
            return false;
        }
        try {
            in.close();
        } catch (IOException e) {
            // present all the same
        }
        return true;
    }

    /** A later source's value wins, unless it is blank: then the earlier one (or the default) stands. */
    private static void set(Map<String, String> keys, String key, String value, Map<String, String> origins,
                            String origin) {
        if (value != null && !value.isBlank()) {
            keys.put(key, value);
            origins.put(key, origin);
        }
    }

    /**
     * Reads a properties file into {@code keys}: {@code where} names it in messages and origins; {@code found} says
     * where a file fairslice looked for was found (WEB-INF's, the class path's), null for one that
     * {@value ConfigKeys#CONFIG_FILE_PROPERTY} names.
     */
    private static void load(InputStream in, Map<String, String> keys, String where, String found,
                             Map<String, String> origins) throws IOException {
        byte[] bytes = in.readAllBytes();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException notUtf8) {
            text = new String(bytes, StandardCharsets.ISO_8859_1);
        }
        if (text.startsWith("\uFEFF")) { // a byte order mark some editors write: Properties reads it as a key's start
            text = text.substring(1);
        }
        Map<String, String> read = new LinkedHashMap<>();
        Properties p = new Properties() {
            @Override
            public synchronized Object put(Object name, Object value) {
                // the format keeps a repeated key's last value without a word: a second rule.1 pasted below the
                // first would silently replace it
                String key = unprefixed((String) name);
                String before = read.putIfAbsent(key, (String) value);
                if (before != null) {
                    throw FairsliceConfigException.of(key, "is given twice in " + where + " ('" + before
                            + "', then '" + value + "'): give each key once", (String) value);
                }
                return super.put(name, value);
            }
        };
        try {
            p.load(new StringReader(text));
        } catch (IllegalArgumentException e) {
            if (e instanceof FairsliceConfigException repeated) {
                throw repeated;
            }
            // Properties.load throws this for a malformed unicode escape: name the file, not just the JDK's words
            String rule = "must be a valid properties file (" + e.getMessage() + ")";
            throw found == null ? FairsliceConfigException.of(ConfigKeys.CONFIG_FILE_PROPERTY, "file " + rule, where)
                    : notReadable(where, found, rule);
        }
        read.forEach((key, value) -> set(keys, key, value, origins, "in " + where));
    }

    /**
     * A file fairslice looked for and found ({@code file}, {@code found} where) that it cannot read: named, and not
     * blamed on {@value ConfigKeys#CONFIG_FILE_PROPERTY}, which nobody set. No key set it, so it is no
     * {@link FairsliceConfigException}: there is no source of a key's value to look up.
     */
    private static IllegalArgumentException notReadable(String file, String found, String rule) {
        return new IllegalArgumentException("fairslice configuration: the file " + file + " (" + found + "; read as no "
                + ConfigKeys.CONFIG_FILE_PROPERTY + " names a file) " + rule);
    }

    /** A key without the {@code fairslice.} prefix it may carry ({@code fairslice.policy} is policy). */
    private static String unprefixed(String name) {
        return name.startsWith(ConfigKeys.PREFIX) ? name.substring(ConfigKeys.PREFIX.length()) : name;
    }
}
