package io.fairslice.tomcat;

import io.fairslice.middleware.internal.ApplicationNames;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Settings of the Tomcat glue, from {@value TomcatLayout#TOMCAT_SETTINGS} below {@code CATALINA_BASE} (written by the
 * installer). Kept apart from the middleware's own configuration, whose parser rejects keys it does not know.
 *
 * <p>{@code apps}: the context paths of the web applications that get fairslice, comma-separated ({@code /} is the
 * ROOT application), or {@code *} for all (the default, also when the file is absent). An unknown key or a bad
 * value is an error naming the file, the key and the value.
 *
 * @param apps the selected context paths, or the single element {@code *}
 */
public record TomcatSettings(List<String> apps) {

    public static final String APPS = "apps";
    public static final String ALL = "*";
    /**
     * The ROOT application as Tomcat's own tools name it (the manager's {@code path=/ROOT}); its context path is
     * {@code /}, so listed, it selected no application at all.
     */
    public static final String ROOT_BY_NAME = "/ROOT";
    /**
     * {@code /}, or non-empty segments of what Tomcat takes from a folder's name ({@code /my+app}, {@code /my app},
     * {@code /café}), but for what this file cannot carry: the list's comma, the properties escape {@code \},
     * control characters (a line break ends the line) and {@code *}, its word for every application; and {@code #},
     * which no context path holds: it is how a folder's name spells a {@code /} ({@code shop#admin} serves
     * {@code /shop/admin}) and, doubled, a version ({@code shop##2} serves {@code /shop}).
     */
    private static final Pattern APP = Pattern.compile("/|(/[^/,*#\\\\\\p{Cntrl}]+)+");
    /** What {@link #isContextPath} refuses, for the messages that refuse it. */
    public static final String PATH_RULE = "a path cannot hold a comma, a backslash, a *, a # or a control character;"
            + " webapps/shop#admin serves /shop/admin, and shop##2 serves /shop";

    public TomcatSettings {
        apps = List.copyOf(apps);
        if (apps.isEmpty()) {
            throw new IllegalArgumentException(APPS + " must name at least one context path, or *");
        }
    }

    public static TomcatSettings defaults() {
        return new TomcatSettings(List.of(ALL));
    }

    /** Reads the settings of the Tomcat instance {@code catalinaBase}; defaults when the file is absent. */
    public static TomcatSettings load(Path catalinaBase) {
        Path file = catalinaBase.resolve(TomcatLayout.TOMCAT_SETTINGS);
        if (!Files.isRegularFile(file)) {
            return defaults();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) { // a malformed unicode escape: the message alone named no file
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        for (String key : p.stringPropertyNames()) {
            if (!key.equals(APPS)) {
                throw new IllegalArgumentException(file + ": unknown key '" + key + "' (known: " + APPS + ")");
            }
        }
        String value = p.getProperty(APPS, ALL).strip();
        List<String> apps = new ArrayList<>();
        for (String part : value.split(",")) {
            String app = part.strip();
            if (app.isEmpty()) {
                continue;
            }
            if (!app.equals(ALL) && !isContextPath(app)) {
                throw new IllegalArgumentException(file + ": " + APPS + " must list context paths such as /shop (/ for"
                        + " ROOT) or *, got '" + app + "' (" + PATH_RULE + ")");
            }
            if (app.equals(ROOT_BY_NAME)) {
                throw new IllegalArgumentException(file + ": " + APPS + " lists " + ROOT_BY_NAME + ", but the ROOT"
                        + " application's context path is /; write / (" + APPS + "=" + value + ")");
            }
            apps.add(app);
        }
        if (apps.contains(ALL) && apps.size() > 1) {
            throw new IllegalArgumentException(file + ": " + APPS + " mixes * with context paths: '" + value + "'");
        }
        if (apps.isEmpty()) {
            throw new IllegalArgumentException(file + ": " + APPS + " is empty; name context paths, or *");
        }
        return new TomcatSettings(apps);
    }

    /** Whether {@code app} is a context path this file can list ({@code /} for ROOT; not {@code *}). */
    public static boolean isContextPath(String app) {
        return APP.matcher(app).matches();
    }

    /**
     * Whether the web application at {@code contextPath} ({@code ""} for ROOT, as the Servlet API gives it) gets
     * fairslice.
     */
    public boolean selects(String contextPath) {
        if (TomcatLayout.METRICS_CONTEXT.equals(contextPath)) {
            return false;
        }
        return apps.contains(ALL) || apps.contains(ApplicationNames.ofContextPath(contextPath));
    }
}
