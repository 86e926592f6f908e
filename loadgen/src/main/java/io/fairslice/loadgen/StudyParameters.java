package io.fairslice.loadgen;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;

/**
 * Parameters of {@link OverloadStudy}, the study's closed model: {@code lightUsers} clients loop on the light
 * page(s) and {@code heavyUsers} on the heavy page, each sending its next request as soon as the previous one is
 * answered (plus {@code thinkTime}). A request the server sheds (503 or 429) is followed instead by the pause its
 * {@code Retry-After} asks for ({@link RejectionPause}): {@code retryAfterDefault} when it has none or an invalid
 * one, at most {@code retryAfterMax}, never past the user's end; and so is a request that got no answer at all (the
 * connection refused or dropped, or {@code requestTimeout} passed), with {@code retryAfterDefault}. Every user runs
 * for {@code warmUp + duration}; the
 * harness measures only the {@code duration} part, the Gatling report shows both.
 *
 * <p>System properties (all optional): {@code baseUrl} (default http://127.0.0.1:8080), {@code lightUsers} (30),
 * {@code heavyUsers} (10), {@code lightPaths} (/light; "/light,/light2" is the study's two-light-page variant: each
 * light user alternates between them, starting at its own), {@code heavyPath} (/heavy), {@code warmUp} (5s),
 * {@code duration} (30s), {@code thinkTime} (0ms), {@code requestTimeout} (60s), {@code retryAfterDefault} (1s),
 * {@code retryAfterMax} (60s; 0s retries a shed or unanswered request at once, as the study's clients did before
 * 2026-11-27), {@code requireSuccess} (true: the run fails when a page got no successful response, see
 * {@link PageOutcomes}; the study harness, which counts served, shed and failed requests itself, sets false).
 */
public record StudyParameters(String baseUrl, int lightUsers, int heavyUsers, List<String> lightPaths,
                              String heavyPath, Duration warmUp, Duration duration, Duration thinkTime,
                              Duration requestTimeout, Duration retryAfterDefault, Duration retryAfterMax,
                              boolean requireSuccess) {

    public static final String DEFAULT_BASE_URL = "http://127.0.0.1:8080";
    public static final int DEFAULT_LIGHT_USERS = 30;
    public static final int DEFAULT_HEAVY_USERS = 10;
    public static final List<String> DEFAULT_LIGHT_PATHS = List.of("/light");
    public static final String DEFAULT_HEAVY_PATH = "/heavy";
    public static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(5);
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /**
     * The pause after a shed request whose answer has no valid Retry-After: the shortest a Retry-After in seconds
     * can ask for (Netflix's limiter answers 429 without one).
     */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
    /** The longest pause after a shed request, whatever it asks: fairslice's own cap (retry-after.max). */
    public static final Duration DEFAULT_RETRY_AFTER_MAX = Duration.ofSeconds(60);
    /** The shortest {@code duration} a run accepts. */
    public static final Duration MIN_DURATION = Duration.ofSeconds(1);

    public StudyParameters {
        lightPaths = List.copyOf(lightPaths);
        if (lightUsers + heavyUsers == 0) {
            throw new IllegalArgumentException("lightUsers + heavyUsers must be at least 1, got 0 and 0");
        }
        if (lightUsers > 0 && lightPaths.isEmpty()) {
            throw new IllegalArgumentException("lightPaths must name at least one page when lightUsers > 0");
        }
    }

    /**
     * Reads the parameters from system properties, after refusing any whose name looks like a typo of a parameter's
     * ({@code heavyPaths}: {@link Parameters#refuseNearMisses}).
     */
    public static StudyParameters fromSystemProperties() {
        return from(System.getProperties());
    }

    static StudyParameters from(Properties properties) {
        return Parameters.read(properties, "OverloadStudy", Parameters.STUDY, StudyParameters::from);
    }

    public static StudyParameters from(UnaryOperator<String> lookup) {
        Parameters p = new Parameters(lookup);
        return new StudyParameters(
                p.baseUrl("baseUrl", DEFAULT_BASE_URL),
                p.integer("lightUsers", DEFAULT_LIGHT_USERS, 0, 10_000),
                p.integer("heavyUsers", DEFAULT_HEAVY_USERS, 0, 10_000),
                p.paths("lightPaths", DEFAULT_LIGHT_PATHS),
                p.path("heavyPath", DEFAULT_HEAVY_PATH),
                p.duration("warmUp", DEFAULT_WARM_UP, Duration.ZERO, Duration.ofHours(1)),
                p.duration("duration", DEFAULT_DURATION, MIN_DURATION, Duration.ofHours(24)),
                p.duration("thinkTime", Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10)),
                requestTimeout(p),
                p.duration("retryAfterDefault", DEFAULT_RETRY_AFTER, Duration.ZERO, Duration.ofHours(1)),
                p.duration("retryAfterMax", DEFAULT_RETRY_AFTER_MAX, Duration.ZERO, Duration.ofHours(1)),
                p.bool("requireSuccess", true));
    }

    /** {@code requestTimeout}, which both simulations take: 100ms to 30m. */
    static Duration requestTimeout(Parameters p) {
        return p.duration("requestTimeout", DEFAULT_REQUEST_TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(30));
    }

    /**
     * What the run uses, in one line for the console, each value marked "(default)" when {@code lookup} (where the
     * parameters were read from) has none for it.
     */
    public String describe(UnaryOperator<String> lookup) {
        return Parameters.describe("OverloadStudy", this, Parameters.STUDY, lookup);
    }

    /** How a user waits after a shed request. */
    public RejectionPause rejectionPause() {
        return new RejectionPause(retryAfterDefault, retryAfterMax);
    }

    /** How long every user keeps sending: the warm-up plus the measured part. */
    public Duration total() {
        return warmUp.plus(duration);
    }

    /** The name Gatling records for requests to a light page. */
    public static String lightRequestName(String path) {
        return Parameters.requestName("light", path);
    }

    /** The name Gatling records for requests to the heavy page. */
    public static String heavyRequestName(String path) {
        return Parameters.requestName("heavy", path);
    }
}
