package io.fairslice.experiments.harness;

/**
 * One configuration of the study: a middleware under a scheduler, written {@code middleware@scheduler}
 * ({@code share@rr-100ms}).
 */
public record Configuration(Middleware middleware, Scheduler scheduler) {

    public static Configuration parse(String text) {
        String t = text.trim();
        int at = t.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("a configuration is middleware@scheduler (e.g. share@rr-100ms), got '"
                    + text + "'");
        }
        return new Configuration(Middleware.of(t.substring(0, at)), Scheduler.of(t.substring(at + 1)));
    }

    public String id() {
        return middleware.id() + "@" + scheduler.id();
    }

    @Override
    public String toString() {
        return id();
    }
}
