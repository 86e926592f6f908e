package io.fairslice.middleware.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code fairslice.*} keys of a web application's own Spring Boot property files, which the filter does not read:
 * in a WAR only fairslice-spring-boot's {@code FairsliceWarAutoConfiguration} hands them to it (as context parameters).
 * Without that module in the WAR they were ignored without a word, and the filter ran with other settings than the
 * ones written there. Looked for where Boot looks on the application's own class path, through the servlet context's
 * resources: {@code application.properties}, {@code .yml}, {@code .yaml} and their profile variants
 * ({@code application-prod.yml}) in {@code /WEB-INF/classes/} and {@code /WEB-INF/classes/config/}.
 *
 * <p>A heuristic, so the filter warns rather than fails: a key may be for a profile that is not active, and a file
 * that cannot be read is skipped. Properties files are read as properties; YAML is not parsed (the bundle carries no
 * YAML library): a line-based look at block mappings gives the dotted name of each key below a top-level
 * {@code fairslice:} or written as {@code fairslice.policy:}, which is what the warning needs.
 */
public final class BootPropertyFiles {

    /**
     * fairslice-spring-boot's WAR auto-configuration, by name: the middleware does not depend on that module. Its
     * presence on the application's class path means the properties are handed over (FairsliceWarDeploymentTest
     * deploys it and expects no warning, so a rename cannot pass unnoticed).
     */
    public static final String WAR_AUTO_CONFIGURATION = "io.fairslice.spring.FairsliceWarAutoConfiguration";
    /** The folders searched, as Boot's {@code classpath:/} and {@code classpath:/config/}. */
    static final List<String> FOLDERS = List.of("/WEB-INF/classes/", "/WEB-INF/classes/config/");
    /** How many keys of a file the warning names before "and N more". */
    static final int KEYS_NAMED = 3;

    private static final Pattern FILE = Pattern.compile("application(-[^/]+)?\\.(properties|yml|yaml)");
    private static final Pattern YAML_KEY = Pattern.compile("(\"[^\"]*\"|'[^']*'|[^\\s#'\"\\-][^:#]*?|-[^\\s:#][^:#]*?)"
            + "\\s*:(?:\\s+(.*))?");
    private static final String FAIRSLICE = "fairslice";

    private BootPropertyFiles() {
    }

    /**
     * The warning for a web application whose Boot property files set {@code fairslice.*} keys while
     * fairslice-spring-boot is not on its class path, without the log's prefix; null when there is nothing to say.
     *
     * @param loader the web application's class loader
     * @param resourcePaths the servlet context's {@code getResourcePaths}
     * @param resources the servlet context's {@code getResourceAsStream}
     */
    public static String unreadWarning(ClassLoader loader, Function<String, Set<String>> resourcePaths,
                                       Function<String, InputStream> resources) {
        if (loader != null && loader.getResource(WAR_AUTO_CONFIGURATION.replace('.', '/') + ".class") != null) {
            return null;
        }
        Map<String, List<String>> found = fairsliceKeys(resourcePaths, resources);
        if (found.isEmpty()) {
            return null;
        }
        List<String> files = new ArrayList<>();
        String example = null;
        for (Map.Entry<String, List<String>> e : found.entrySet()) {
            List<String> keys = e.getValue();
            example = example == null ? keys.get(0) : example;
            files.add(e.getKey() + " sets " + String.join(", ", keys.subList(0, Math.min(KEYS_NAMED, keys.size())))
                    + (keys.size() > KEYS_NAMED ? " and " + (keys.size() - KEYS_NAMED) + " more" : ""));
        }
        String setting = example.startsWith(ConfigKeys.PREFIX) ? example : ConfigKeys.PREFIX + ConfigKeys.POLICY;
        return String.join(", and ", files) + ", but fairslice does not read Spring Boot's properties: only"
                + " fairslice-spring-boot (" + WAR_AUTO_CONFIGURATION + ") hands them to the filter, and this"
                + " application does not have it, so the filter runs without them (as intended only if they belong"
                + " to a profile that is not active). Add io.fairslice:fairslice-spring-boot to the WAR, or move"
                + " the settings to fairslice's own configuration: conf/fairslice.properties (the file"
                + " -Dfairslice.config names; /WEB-INF/fairslice.properties without the installer) or context"
                + " parameters (<Parameter name=\"" + setting + "\" value=\"...\"/> in the context's descriptor);"
                + " docs/user-guide.md, \"Spring Boot\"";
    }

    /** The Boot property files that set {@code fairslice.*} keys, each with its keys in the file's order. */
    static Map<String, List<String>> fairsliceKeys(Function<String, Set<String>> resourcePaths,
                                                   Function<String, InputStream> resources) {
        Map<String, List<String>> found = new LinkedHashMap<>();
        for (String folder : FOLDERS) {
            Set<String> paths = resourcePaths.apply(folder);
            if (paths == null) {
                continue;
            }
            for (String path : new TreeSet<>(paths)) {
                if (!FILE.matcher(path.substring(folder.length())).matches()) {
                    continue;
                }
                String text;
                try (InputStream in = resources.apply(path)) {
                    if (in == null) {
                        continue;
                    }
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    continue; // only a warning hangs on it: the application's start does not
                }
                List<String> keys = path.endsWith(".properties") ? propertiesKeys(text) : yamlKeys(text);
                if (!keys.isEmpty()) {
                    found.put(path, keys);
                }
            }
        }
        return found;
    }

    /** The {@code fairslice.*} keys of a properties file, in the file's order; none when it is malformed. */
    static List<String> propertiesKeys(String text) {
        Set<String> keys = new LinkedHashSet<>();
        Properties p = new Properties() {
            @Override
            public synchronized Object put(Object name, Object value) {
                if (((String) name).startsWith(ConfigKeys.PREFIX)) { // as fairslice-spring-boot selects them
                    keys.add((String) name);
                }
                return super.put(name, value);
            }
        };
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) { // a malformed escape: Boot will say so itself
            return List.of();
        }
        return List.copyOf(keys);
    }

    /**
     * The {@code fairslice.*} keys of a YAML file as Boot flattens it ({@code fairslice.class.heavy.share}), from the
     * indentation of block mappings: a key with nothing below it is a setting, whatever its value (a list, a flow
     * mapping, a block scalar). Other documents of the file ({@code ---}) start from the top level again.
     */
    static List<String> yamlKeys(String text) {
        List<Integer> indents = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Set<String> all = new LinkedHashSet<>();
        Set<String> parents = new LinkedHashSet<>();
        int scalarAbove = -1; // the indentation of a key whose block scalar (| or >) the next lines may be
        for (String line : text.lines().toList()) {
            String content = line.strip();
            int indent = line.length() - line.stripLeading().length();
            if (content.isEmpty() || content.startsWith("#")) {
                continue;
            }
            if (scalarAbove >= 0 && indent > scalarAbove) {
                continue;
            }
            scalarAbove = -1;
            if (indent == 0 && (content.startsWith("---") || content.equals("..."))) {
                indents.clear();
                names.clear();
                continue;
            }
            Matcher key = YAML_KEY.matcher(content);
            if (!key.matches()) {
                continue; // a list item, a flow collection's continuation: not a key
            }
            while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
                indents.remove(indents.size() - 1);
                names.remove(names.size() - 1);
            }
            String name = unquoted(key.group(1).strip());
            String path = names.isEmpty() ? name : names.get(names.size() - 1) + "." + name;
            if (!names.isEmpty()) {
                parents.add(names.get(names.size() - 1));
            }
            indents.add(indent);
            names.add(path);
            all.add(path);
            String value = key.group(2) == null ? "" : key.group(2).strip();
            if (value.startsWith("|") || value.startsWith(">")) {
                scalarAbove = indent;
            }
        }
        List<String> keys = new ArrayList<>();
        for (String path : all) {
            if (!parents.contains(path) && (path.startsWith(ConfigKeys.PREFIX) || path.equals(FAIRSLICE))) {
                keys.add(path);
            }
        }
        return keys;
    }

    private static String unquoted(String name) {
        boolean quoted = name.length() >= 2 && (name.charAt(0) == '"' || name.charAt(0) == '\'')
                && name.charAt(name.length() - 1) == name.charAt(0);
        return quoted ? name.substring(1, name.length() - 1) : name;
    }
}
