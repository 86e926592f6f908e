package io.fairslice.middleware.classify;

import io.fairslice.middleware.FairsliceConfigException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One classification rule: {@code <class> <condition>...}; a request matches when every condition holds.
 * Conditions: {@code path=<glob>} (the path inside the web application; {@code *} matches within one segment,
 * {@code **} across segments), {@code method=GET|POST} (alternatives), {@code header:<Name>=<glob>} (any of the
 * header's values, one per field line it came in; {@code *} matches anything), {@code header:<Name>} (present), and
 * the same for a parameter of the query string:
 * {@code query:<name>=<glob>} (any of its values, decoded) and {@code query:<name>} (present). The query string is
 * read as it came, never a form body: reading that would take the body from the application. Example:
 * {@code rule.10 = heavy path=/reports/** method=GET}; {@code rule.11 = heavy path=/search query:scope=all}.
 */
public final class Rule {

    private final int order;
    private final String className;
    private final int classIndex;
    private final Glob path;
    private final Set<String> methods;
    private final List<String> headerNames;
    private final List<Glob> headerValues;
    private final List<String> queryNames;
    private final List<Glob> queryValues;
    private final String text;

    private Rule(int order, String className, int classIndex, Glob path, Set<String> methods,
                 List<String> headerNames, List<Glob> headerValues, List<String> queryNames, List<Glob> queryValues,
                 String text) {
        this.order = order;
        this.className = className;
        this.classIndex = classIndex;
        this.path = path;
        this.methods = methods;
        this.headerNames = headerNames;
        this.headerValues = headerValues;
        this.queryNames = queryNames;
        this.queryValues = queryValues;
        this.text = text;
    }

    /** Parses the value of key {@code rule.<order>}; {@code classes} are the configured class names. */
    public static Rule parse(String key, int order, String value, List<String> classes) {
        String[] words = value == null ? new String[0] : value.trim().split("\\s+");
        if (words.length < 2 || words[0].isEmpty()) {
            throw FairsliceConfigException.of(key, "must be '<class> <condition>...' with at least one condition "
                    + "(path=<glob>, method=<M>|<M>, header:<Name>[=<glob>], query:<name>[=<glob>])", value);
        }
        int classIndex = classes.indexOf(words[0]);
        if (classIndex < 0) {
            throw FairsliceConfigException.of(key, "must start with a configured class " + classes, value);
        }
        Glob path = null;
        Set<String> methods = null;
        List<String> headerNames = new ArrayList<>();
        List<Glob> headerValues = new ArrayList<>();
        List<String> queryNames = new ArrayList<>();
        List<Glob> queryValues = new ArrayList<>();
        for (int i = 1; i < words.length; i++) {
            String w = words[i];
            if (w.startsWith("path=") && path == null) {
                String glob = w.substring(5);
                if (!glob.startsWith("/")) {
                    throw FairsliceConfigException.of(key, "path glob must start with '/'", value);
                }
                if (Glob.holdsQuery(glob)) {
                    throw FairsliceConfigException.of(key, "path glob must not hold a query string ('?' then '='):"
                            + " the path is matched without it; use query:<name>=<glob> for a parameter", value);
                }
                String brace = Glob.braceProblem(glob);
                if (brace != null) {
                    throw FairsliceConfigException.of(key, "path glob: " + brace, value);
                }
                path = Glob.path(glob);
            } else if (w.startsWith("method=") && methods == null) {
                // -1: an empty alternative (GET|) is a mistake to report, not one to drop
                String[] ms = w.substring(7).toUpperCase(Locale.ROOT).split("\\|", -1);
                for (String m : ms) {
                    // letters, and the hyphens of extension methods such as M-SEARCH and VERSION-CONTROL
                    if (!m.matches("[A-Z][A-Z_-]{0,31}")) {
                        throw FairsliceConfigException.of(key, "method must be names like GET|POST", value);
                    }
                }
                methods = Set.copyOf(Arrays.asList(ms)); // GET|get names GET once: not an error
            } else if (w.startsWith("header:") && w.length() > 7) {
                String h = w.substring(7);
                int eq = h.indexOf('=');
                String name = eq < 0 ? h : h.substring(0, eq);
                if (!name.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) {
                    throw FairsliceConfigException.of(key, "header name must be an HTTP token", value);
                }
                headerNames.add(name);
                headerValues.add(eq < 0 ? null : Glob.value(h.substring(eq + 1)));
            } else if (w.startsWith("query:") && w.length() > 6) {
                String q = w.substring(6);
                int eq = q.indexOf('=');
                String name = eq < 0 ? q : q.substring(0, eq);
                if (name.isEmpty() || name.indexOf('&') >= 0) {
                    throw FairsliceConfigException.of(key, "query parameter name must be non-empty, without '&'",
                            value);
                }
                queryNames.add(name);
                queryValues.add(eq < 0 ? null : Glob.value(q.substring(eq + 1)));
            } else {
                throw FairsliceConfigException.of(key, "has an unknown or repeated condition '" + w
                        + "' (use path=<glob>, method=<M>|<M>, header:<Name>[=<glob>], query:<name>[=<glob>])", value);
            }
        }
        return new Rule(order, words[0], classIndex, path, methods, List.copyOf(headerNames),
                Collections.unmodifiableList(headerValues), List.copyOf(queryNames),
                Collections.unmodifiableList(queryValues), value.trim());
    }

    /**
     * The path condition, on the path with and without one trailing {@code /}, as routes ({@code RouteTable.key}):
     * {@code /export/} is the page of {@code path=/export} for the servlet mapped to {@code /export/*} (and for
     * frameworks that match a trailing slash); matched as sent only, the request escaped the rule.
     */
    private boolean matchesPath(String requestPath) {
        String bare = RouteTable.withoutTrailingSlash(requestPath);
        return path.matches(requestPath) || bare != requestPath && path.matches(bare);
    }

    /**
     * Whether a request with this path (inside the application), method and headers, and no query string, matches;
     * {@code headers} gives a header's values by name, as {@code HttpServletRequest.getHeaders} does (null or none:
     * not sent).
     */
    public boolean matches(String requestPath, String method, Function<String, Enumeration<String>> headers) {
        return matches(requestPath, method, headers, () -> null);
    }

    /**
     * Whether a request with this path (inside the application), method, headers (by name, as
     * {@code HttpServletRequest.getHeaders} gives them) and query string (as sent, without the '?'; null: none)
     * matches. The query string is asked for only by a rule with a {@code query:} condition whose other conditions
     * hold.
     */
    public boolean matches(String requestPath, String method, Function<String, Enumeration<String>> headers,
                           Supplier<String> queryString) {
        if (methods != null && !methods.contains(method)) {
            return false;
        }
        if (path != null && !matchesPath(requestPath)) {
            return false;
        }
        for (int i = 0; i < headerNames.size(); i++) {
            if (!hasHeader(headers.apply(headerNames.get(i)), headerValues.get(i))) {
                return false;
            }
        }
        String query = queryNames.isEmpty() ? null : queryString.get();
        for (int i = 0; i < queryNames.size(); i++) {
            if (!hasParameter(query, queryNames.get(i), queryValues.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether one of a header's values (null or none: not sent) is one the glob matches (null: any value). A header
     * sent on several lines has a value per line, and a client may repeat it as it likes: matching only the first,
     * a rule was escaped by sending a harmless value before the one it names.
     */
    private static boolean hasHeader(Enumeration<String> values, Glob value) {
        if (values == null) {
            return false;
        }
        while (values.hasMoreElements()) {
            String v = values.nextElement();
            if (value == null || value.matches(v)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the query string has the parameter, with a value the glob matches (null: any value, or none). */
    private static boolean hasParameter(String query, String name, Glob value) {
        if (query == null || query.isEmpty()) {
            return false;
        }
        int start = 0;
        while (start <= query.length()) {
            int end = query.indexOf('&', start);
            if (end < 0) {
                end = query.length();
            }
            int eq = start;
            while (eq < end && query.charAt(eq) != '=') { // within this parameter: linear in the query string
                eq++;
            }
            boolean hasValue = eq < end;
            String n = decode(query.substring(start, hasValue ? eq : end));
            if (n.equals(name) && (value == null || value.matches(hasValue ? decode(query.substring(eq + 1, end))
                    : ""))) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    /** A query string's part decoded as a form's (+ is a space, %XX a UTF-8 byte); as sent where it is malformed. */
    private static String decode(String part) {
        if (part.indexOf('%') < 0 && part.indexOf('+') < 0) {
            return part;
        }
        try {
            return URLDecoder.decode(part, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return part;
        }
    }

    /**
     * Method names a rule's {@code method=} may hold without a warning: IANA's HTTP method registry (RFC 9110's, PATCH,
     * WebDAV's and its extensions', QUERY), and a few in wide use outside it (SSDP's and GENA's, caches' PURGE and
     * BAN).
     */
    private static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT",
            "OPTIONS", "TRACE", "PATCH", "QUERY", "ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "COPY",
            "LABEL", "LINK", "LOCK", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE",
            "MOVE", "ORDERPATCH", "PRI", "PROPFIND", "PROPPATCH", "REBIND", "REPORT", "SEARCH", "UNBIND", "UNCHECKOUT",
            "UNLINK", "UNLOCK", "UPDATE", "UPDATEREDIRECTREF", "VERSION-CONTROL", "M-SEARCH", "NOTIFY", "SUBSCRIBE",
            "UNSUBSCRIBE", "PURGE", "BAN");

    /**
     * The names in the rule's {@code method=} that no registry or common use knows ({@code GTE}, {@code PSOT}): most
     * likely a typo, and the rule then never matches those requests. Accepted all the same, as an application may
     * serve a method of its own; the filter warns of them at startup.
     */
    public SortedSet<String> unknownMethods() {
        SortedSet<String> unknown = new TreeSet<>();
        if (methods != null) {
            for (String m : methods) {
                if (!KNOWN_METHODS.contains(m)) {
                    unknown.add(m);
                }
            }
        }
        return unknown;
    }

    /** The rule's {@code path=} glob as written, or null when it has none. */
    public String pathGlob() {
        return path == null ? null : path.toString();
    }

    public int order() {
        return order;
    }

    public String className() {
        return className;
    }

    public int classIndex() {
        return classIndex;
    }

    @Override
    public String toString() {
        return "rule." + order + "=" + text;
    }
}
