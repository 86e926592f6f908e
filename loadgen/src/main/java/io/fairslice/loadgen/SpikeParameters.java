package io.fairslice.loadgen;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;

/**
 * Parameters of {@link OverloadSpike}, an open model: light requests arrive at a steady {@code lightRate} per
 * second for {@code duration}; from {@code burstStart} on, heavy requests also arrive at {@code heavyRate} per
 * second for {@code burstDuration}. Each arrival is one user sending one request, so a slow server does not slow
 * the arrivals down (unlike the closed model): this is what admission control and the dashboard are tested with.
 *
 * <p>System properties (all optional): {@code baseUrl}, {@code lightPaths}, {@code heavyPath} as in
 * {@link StudyParameters}; {@code lightRate} (50/s), {@code heavyRate} (20/s), {@code duration} (60s),
 * {@code burstStart} (20s), {@code burstDuration} (20s), {@code requestTimeout} (60s), {@code requireSuccess} (true:
 * the run fails when a page got no successful response, see {@link PageOutcomes}).
 */
public record SpikeParameters(String baseUrl, List<String> lightPaths, String heavyPath, double lightRate,
                              double heavyRate, Duration duration, Duration burstStart, Duration burstDuration,
                              Duration requestTimeout, boolean requireSuccess) {

    public SpikeParameters {
        lightPaths = List.copyOf(lightPaths);
        if (lightPaths.isEmpty()) {
            throw new IllegalArgumentException("lightPaths must name at least one page");
        }
        if (heavyRate > 0 && !burstDuration.isZero() && burstStart.plus(burstDuration).compareTo(duration) > 0) {
            throw new IllegalArgumentException("burstStart + burstDuration must fit in duration, got "
                    + Parameters.format(burstStart) + " + " + Parameters.format(burstDuration) + " > "
                    + Parameters.format(duration));
        }
        if (lightRate == 0 && (heavyRate == 0 || burstDuration.isZero())) {
            throw new IllegalArgumentException("lightRate and heavyRate cannot both be 0 (nor lightRate 0 with "
                    + "burstDuration 0s): nothing would be sent");
        }
        // Gatling injects a rate's arrivals over whole seconds, rate x seconds rounded: 500ms injected none, 1.9s
        // one second's worth
        // the light arrivals go to the light paths in turn: each path needs one, or its assertion fails unsent
        arrivals("lightRate", lightRate, "duration", duration, lightPaths.size());
        if (heavyRate > 0 && !burstDuration.isZero()) {
            arrivals("heavyRate", heavyRate, "burstDuration", burstDuration, 1);
        }
    }

    /**
     * Refuses a rate's period that is not whole seconds, or one in which the rate makes fewer arrivals than
     * {@code pages}.
     */
    private static void arrivals(String rateName, double rate, String periodName, Duration period, int pages) {
        if (rate == 0) {
            return;
        }
        if (period.toMillis() % 1000 != 0) {
            throw new ParameterException(periodName, "must be whole seconds (Gatling spreads " + rateName
                    + "'s arrivals over whole seconds), got " + Parameters.format(period));
        }
        if (Math.round(rate * period.toSeconds()) < pages) {
            throw new ParameterException(rateName, "must make at least " + (pages == 1 ? "one arrival"
                    : "one arrival per light path (" + pages + ")") + " in " + periodName + " ("
                    + Parameters.format(period) + "), got " + rate + "/s");
        }
    }

    /** Reads the parameters from system properties, as {@link StudyParameters#fromSystemProperties()} does. */
    public static SpikeParameters fromSystemProperties() {
        return from(System.getProperties());
    }

    static SpikeParameters from(Properties properties) {
        return Parameters.read(properties, "OverloadSpike", Parameters.SPIKE, SpikeParameters::from);
    }

    /** What the run uses, in one line, as {@link StudyParameters#describe}. */
    public String describe(UnaryOperator<String> lookup) {
        return Parameters.describe("OverloadSpike", this, Parameters.SPIKE, lookup);
    }

    public static SpikeParameters from(UnaryOperator<String> lookup) {
        Parameters p = new Parameters(lookup);
        return new SpikeParameters(
                p.baseUrl("baseUrl", StudyParameters.DEFAULT_BASE_URL),
                p.paths("lightPaths", StudyParameters.DEFAULT_LIGHT_PATHS),
                p.path("heavyPath", StudyParameters.DEFAULT_HEAVY_PATH),
                p.decimal("lightRate", 50, 0, 100_000),
                p.decimal("heavyRate", 20, 0, 100_000),
                p.duration("duration", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(24)),
                p.duration("burstStart", Duration.ofSeconds(20), Duration.ZERO, Duration.ofHours(24)),
                p.duration("burstDuration", Duration.ofSeconds(20), Duration.ZERO, Duration.ofHours(24)),
                StudyParameters.requestTimeout(p),
                p.bool("requireSuccess", true));
    }
}
