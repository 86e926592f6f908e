package io.fairslice.loadgen;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The study's closed model (see {@link StudyParameters} for the parameters): a fixed population of light and heavy
 * clients, each looping request after request with no think time, as in the 2005 study's 30 light + 0..40 heavy
 * client threads. Every population is started at once and loops for warm-up + duration, so the number of
 * clients stays constant: a slow server slows the clients down instead of piling up arrivals.
 *
 * <pre>./mvnw -pl loadgen gatling:test -Dgatling.simulationClass=io.fairslice.loadgen.OverloadStudy \
 *     -DbaseUrl=http://127.0.0.1:8080 -DheavyUsers=40 -Dduration=30s</pre>
 */
public class OverloadStudy extends Simulation {

    private final StudyParameters parameters = StudyParameters.fromSystemProperties();

    public OverloadStudy() {
        // one connection pool for all users, kept alive: the study's clients reused their connections
        HttpProtocolBuilder protocol = http.baseUrl(parameters.baseUrl()).disableWarmUp().shareConnections();
        List<PopulationBuilder> populations = new ArrayList<>();
        if (parameters.lightUsers() > 0) {
            List<ChainBuilder> steps = new ArrayList<>();
            for (String path : parameters.lightPaths()) {
                steps.add(request(StudyParameters.lightRequestName(path), path));
            }
            populations.add(closedLoop("light", steps).injectOpen(atOnceUsers(parameters.lightUsers())));
        }
        if (parameters.heavyUsers() > 0) {
            ChainBuilder heavy = request(StudyParameters.heavyRequestName(parameters.heavyPath()),
                    parameters.heavyPath());
            populations.add(closedLoop("heavy", List.of(heavy)).injectOpen(atOnceUsers(parameters.heavyUsers())));
        }
        setUp(populations).protocols(protocol);
    }

    private ChainBuilder request(String name, String path) {
        ChainBuilder chain = exec(http(name).get(path).requestTimeout(parameters.requestTimeout()));
        return parameters.thinkTime().isZero() ? chain : chain.exec(pause(parameters.thinkTime()));
    }

    private ScenarioBuilder closedLoop(String name, List<ChainBuilder> steps) {
        return scenario(name).during(parameters.total()).on(exec(steps));
    }
}
