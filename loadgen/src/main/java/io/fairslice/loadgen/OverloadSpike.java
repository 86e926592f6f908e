package io.fairslice.loadgen;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.roundRobinSwitch;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.core.Simulation.SetUp;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * An open model with a heavy burst (see {@link SpikeParameters}): steady light arrivals, and for a while heavy
 * arrivals on top. Arrivals do not wait for answers, so queues build up when the server falls behind: the case
 * for admission control, and the load to watch the dashboard with.
 *
 * <pre>./mvnw -pl loadgen gatling:test -Dgatling.simulationClass=io.fairslice.loadgen.OverloadSpike \
 *     -DbaseUrl=http://127.0.0.1:8080 -DlightRate=50 -DheavyRate=30</pre>
 */
public class OverloadSpike extends Simulation {

    // a refused parameter is said in one line before Gatling's report of the crash (Parameters.readOrSay)
    private final SpikeParameters parameters = Parameters.readOrSay(SpikeParameters::fromSystemProperties);

    private final PageOutcomes outcomes = PageOutcomes.of(parameters.lightRate() > 0, parameters.lightPaths(),
            parameters.heavyRate() > 0 && !parameters.burstDuration().isZero(), parameters.heavyPath());

    public OverloadSpike() {
        // what the run goes by, before Gatling's own output: a parameter left at its default shows here
        System.out.println(parameters.describe(System::getProperty));
        HttpProtocolBuilder protocol = http.baseUrl(parameters.baseUrl()).disableWarmUp().disableFollowRedirect();
        List<PopulationBuilder> populations = new ArrayList<>();
        if (parameters.lightRate() > 0) {
            List<ChainBuilder> pages = new ArrayList<>();
            for (String path : parameters.lightPaths()) {
                pages.add(request(StudyParameters.lightRequestName(path), path));
            }
            ChainBuilder light = pages.size() == 1 ? pages.get(0) : exec(roundRobinSwitch().on(pages));
            populations.add(scenario("light").exec(light)
                    .injectOpen(constantUsersPerSec(parameters.lightRate()).during(parameters.duration())));
        }
        if (parameters.heavyRate() > 0 && !parameters.burstDuration().isZero()) {
            ChainBuilder heavy = request(StudyParameters.heavyRequestName(parameters.heavyPath()),
                    parameters.heavyPath());
            populations.add(scenario("heavy").exec(heavy).injectOpen(
                    nothingFor(parameters.burstStart()),
                    constantUsersPerSec(parameters.heavyRate()).during(parameters.burstDuration())));
        }
        SetUp setUp = setUp(populations).protocols(protocol);
        if (parameters.requireSuccess()) {
            setUp.assertions(outcomes.assertions());
        }
    }

    /** Says what a page that got no successful response got, before Gatling reports its failed assertion. */
    @Override
    public void after() {
        if (parameters.requireSuccess()) {
            outcomes.sayUnserved();
        }
    }

    private ChainBuilder request(String name, String path) {
        return exec(outcomes.request(name, path, parameters.requestTimeout()));
    }
}
