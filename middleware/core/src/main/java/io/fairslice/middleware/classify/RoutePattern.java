package io.fairslice.middleware.classify;

import io.fairslice.middleware.FairsliceConfigException;

/**
 * One configured route: {@code route.<n> = <glob>} makes every path the glob matches one route, named by the glob
 * itself. It names the instances the built-in normalisation cannot tell from pages, such as slugs
 * ({@code /products/*} for {@code /products/blue-kettle}) and user names ({@code /users/*}/{@code **}), so that a
 * catalogue of ten thousand products is one route that learns, not ten thousand that fill the table. The glob is the
 * rules' path glob ({@link Glob}): {@code *} within one segment, {@code **} across segments, {@code ?} one character.
 */
public final class RoutePattern {

    private final int order;
    private final Glob glob;

    private RoutePattern(int order, Glob glob) {
        this.order = order;
        this.glob = glob;
    }

    /** Parses the value of key {@code route.<order>}. */
    public static RoutePattern parse(String key, int order, String value) {
        String glob = value == null ? "" : value.trim();
        if (!glob.startsWith("/") || glob.chars().anyMatch(Character::isWhitespace)) {
            throw FairsliceConfigException.of(key, "must be one path glob starting with '/' (e.g. /products/*)",
                    value);
        }
        if (Glob.holdsQuery(glob)) {
            throw FairsliceConfigException.of(key, "must be a path glob without a query string ('?' then '='): the"
                    + " path is matched without it", value);
        }
        String brace = Glob.braceProblem(glob);
        if (brace != null) {
            throw FairsliceConfigException.of(key, "must be a path glob: " + brace, value);
        }
        return new RoutePattern(order, Glob.path(glob));
    }

    /** Whether {@code path} (inside the web application) belongs to this route. */
    boolean matches(String path) {
        return glob.matches(path);
    }

    public int order() {
        return order;
    }

    /** The glob as configured: the route's key and, while page tags last, its {@code page} tag. */
    public String glob() {
        return glob.toString();
    }

    @Override
    public String toString() {
        return "route." + order + "=" + glob();
    }
}
