package io.fairslice.middleware.classify;

import java.util.Arrays;

/**
 * A glob of the rules and routes, matched without backtracking: in time proportional to the input's length times
 * the glob's, whatever a client sends. A regular expression with one greedy group per wildcard took 0.1-0.3 s on an
 * 8 KB path for {@code /files/*.*} and minutes for {@code /blog/*-*-*}, before admission control could run.
 *
 * <p>In a path glob, {@code *} matches within one segment (no {@code /}), {@code **} across segments, {@code ?} one
 * character but {@code /}; as in Ant and Spring, {@code /**}{@code /} also matches a single {@code /} and a trailing
 * {@code /**} also matches nothing, so {@code /**}{@code /export} matches {@code /export} and {@code /report/**}
 * matches {@code /report}. A path variable written as the application's framework declares it is a wildcard too:
 * {@code {id}} (also {@code {id:\d+}}) as {@code *}, {@code {*path}} as {@code **} (a trailing {@code /{*path}} also
 * matches nothing, as in Spring), so that {@code /items/{id}} is the route {@code @GetMapping("/items/{id}")}
 * serves. In a value glob (a header's), {@code *} and {@code **} match anything and {@code ?} any one character.
 * Everything else is literal, and the wildcards match line breaks too, so that no encoding slips a request past a
 * rule.
 *
 * <p>The glob is a row of tokens; matching keeps the set of positions in that row the input read so far can have
 * reached (a non-deterministic automaton run in step), one pass over the input.
 */
final class Glob {

    /** One character equal to {@link #chars}'s. */
    private static final byte LITERAL = 0;
    /** One character, {@code /} only if the token allows it. */
    private static final byte ONE = 1;
    /** Any number of characters, {@code /} only if the token allows it. */
    private static final byte MANY = 2;
    /** {@code (.*\/)?}: nothing, or anything that ends with {@code /} (the end of {@code /**}{@code /}). */
    private static final byte DIRS = 3;
    /** {@code (/.*)?}: nothing, or {@code /} and anything after it (a trailing {@code /**}). */
    private static final byte TAIL = 4;

    private final String text;
    private final byte[] kinds;
    private final char[] chars;
    private final boolean[] slash;

    private Glob(String text, byte[] kinds, char[] chars, boolean[] slash) {
        this.text = text;
        this.kinds = kinds;
        this.chars = chars;
        this.slash = slash;
    }

    /** A glob over a path inside the web application. */
    static Glob path(String glob) {
        return compile(glob, true);
    }

    /** A glob over a header's value. */
    static Glob value(String glob) {
        return compile(glob, false);
    }

    private static Glob compile(String glob, boolean path) {
        int n = glob.length();
        byte[] kinds = new byte[n];
        char[] chars = new char[n];
        boolean[] slash = new boolean[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            char c = glob.charAt(i);
            int variableEnd = path && c == '{' ? templateEnd(glob, i) : -1;
            if (path && glob.startsWith("/{*", i) && templateEnd(glob, i + 1) == n - 1) {
                kinds[m++] = TAIL; // a trailing /{*path}: Spring's capture of the rest, which may be nothing
                i = n - 1;
            } else if (path && glob.startsWith("/**/", i)) {
                kinds[m] = LITERAL;
                chars[m++] = '/';
                kinds[m++] = DIRS;
                i += 3;
            } else if (path && glob.startsWith("/**", i) && i + 3 == n) {
                kinds[m++] = TAIL;
                i += 2;
            } else if (c == '*' && i + 1 < n && glob.charAt(i + 1) == '*') {
                kinds[m] = MANY;
                slash[m++] = true;
                i++;
            } else if (variableEnd > 0) {
                // a framework's path variable, as the application declares its routes: {id} (Spring, JAX-RS, also
                // with a pattern, {id:\d+}) is one segment, {*path} (Spring's capture of the rest) any number
                kinds[m] = MANY;
                slash[m++] = glob.charAt(i + 1) == '*';
                i = variableEnd;
            } else if (c == '*' || c == '?') {
                kinds[m] = c == '*' ? MANY : ONE;
                slash[m++] = !path;
            } else {
                kinds[m] = LITERAL;
                chars[m++] = c;
            }
        }
        return new Glob(glob, Arrays.copyOf(kinds, m), Arrays.copyOf(chars, m), Arrays.copyOf(slash, m));
    }

    /**
     * Where the path variable that opens at {@code start} ({@code {}) closes: its {@code }}, or -1 when it is no
     * variable (nothing inside, or a {@code /} before the close). A URL cannot hold a bare brace (RFC 3986: Tomcat
     * refuses one in a request line), so a glob's brace was never a literal that matched.
     */
    static int templateEnd(String glob, int start) {
        int depth = 0; // braces of the variable's pattern: {id:\d{3}}
        for (int i = start + 1; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && depth > 0) {
                depth--;
            } else if (c == '}') {
                return i > start + 1 ? i : -1;
            } else if (c == '/') {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Whether {@code glob}, a path glob, holds a query string ({@code ?} then {@code =}): the path is matched without
     * it, so such a glob matches nothing. A {@code ?} alone is a wildcard, one character.
     */
    static boolean holdsQuery(String glob) {
        int q = glob.indexOf('?');
        return q >= 0 && glob.indexOf('=', q) > q;
    }

    /**
     * Why {@code glob}, a path glob, holds a brace that opens no path variable (nothing inside, a {@code /} before its
     * close, no close), or null: such a brace could only stand for itself, which a client sends as {@code %7B}
     * at most, so the glob is a mistake (a regular expression with a {@code /}, a variable left open).
     */
    static String braceProblem(String glob) {
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '{') {
                int end = templateEnd(glob, i);
                if (end < 0) {
                    return "'{' at " + i + " opens no path variable ({id}, {id:\\d+} or {*rest}, within one segment)";
                }
                i = end;
            } else if (c == '}') {
                return "'}' at " + i + " closes no path variable";
            }
        }
        return null;
    }

    /*
     * Positions: 0..m at the tokens (m: the whole glob matched); m+1+k inside token k's group (DIRS: in its
     * anything, before the closing '/'; TAIL: after its '/').
     */

    boolean matches(CharSequence input) {
        int m = kinds.length;
        boolean[] now = new boolean[2 * m + 1];
        boolean[] next = new boolean[2 * m + 1];
        int[] stack = new int[4 * m + 3]; // each position is marked once and pushes at most two others
        close(now, stack, 0);
        for (int i = 0; i < input.length(); i++) {
            char c = input.charAt(i);
            Arrays.fill(next, false);
            boolean any = false;
            for (int p = 0; p < now.length; p++) {
                if (now[p]) {
                    any |= step(p, c, next, stack);
                }
            }
            if (!any) {
                return false;
            }
            boolean[] t = now;
            now = next;
            next = t;
        }
        return now[m];
    }

    /** Reads {@code c} at position {@code p} into {@code next} (with what it reaches for free); whether any was. */
    private boolean step(int p, char c, boolean[] next, int[] stack) {
        int m = kinds.length;
        if (p == m) {
            return false; // the glob is used up: one more character does not match
        }
        if (p > m) { // inside a group
            int k = p - m - 1;
            if (kinds[k] == DIRS) {
                boolean reached = close(next, stack, p);
                return c == '/' ? close(next, stack, k + 1) | reached : reached;
            }
            return close(next, stack, p); // TAIL: anything after its '/'
        }
        return switch (kinds[p]) {
            case LITERAL -> c == chars[p] && close(next, stack, p + 1);
            case ONE -> (slash[p] || c != '/') && close(next, stack, p + 1);
            case MANY -> (slash[p] || c != '/') && close(next, stack, p);
            case TAIL -> c == '/' && close(next, stack, m + 1 + p);
            default -> false; // DIRS is left for its group or the next token by the closure
        };
    }

    /** Marks {@code p} and the positions it reaches without reading: true (so that callers can note a step). */
    private boolean close(boolean[] set, int[] stack, int p) {
        int m = kinds.length;
        int top = 0;
        stack[top++] = p;
        while (top > 0) {
            int q = stack[--top];
            if (set[q]) {
                continue;
            }
            set[q] = true;
            if (q < m && (kinds[q] == MANY || kinds[q] == DIRS || kinds[q] == TAIL)) {
                stack[top++] = q + 1; // each of them may match nothing
                if (kinds[q] == DIRS) {
                    stack[top++] = m + 1 + q;
                }
            } else if (q > m && kinds[q - m - 1] == TAIL) {
                stack[top++] = q - m; // after the tail's '/' and anything: the glob's end
            }
        }
        return true;
    }

    /** The glob as written. */
    @Override
    public String toString() {
        return text;
    }
}
