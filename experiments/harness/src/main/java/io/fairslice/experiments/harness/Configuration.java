package io.fairslice.experiments.harness;

/**
 * One configuration of the study: a middleware under a scheduler, written {@code middleware@scheduler}
 * ({@code share@rr-100ms}). Combinations that cannot act are refused: the kernel probe's peers ({@code nice},
 * {@code slice}) change fair-class threads, and a realtime server has none, so they would measure the baseline under
 * a peer's name.
 */
public record Configuration(Middleware middleware, Scheduler scheduler) {

    public Configuration {
        if (!applies(middleware, scheduler)) {
            throw new IllegalArgumentException(middleware.id() + "@" + scheduler.id() + " does not apply: "
                    + middleware.id() + " acts through the kernel probe on SCHED_OTHER threads, and under "
                    + scheduler.id() + " every server thread is SCHED_RR (nice does not apply to realtime threads and "
                    + "the probe's slice actuator refuses them)");
        }
    }

    /** Whether the middleware can act under the scheduler: the kernel probe's peers need fair-class threads. */
    public static boolean applies(Middleware middleware, Scheduler scheduler) {
        return !(middleware.kernelProbe() && scheduler.realtime());
    }

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
