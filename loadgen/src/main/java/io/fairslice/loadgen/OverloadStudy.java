package io.fairslice.loadgen;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.onCase;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.Choice;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.core.Simulation.SetUp;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The study's closed model (see {@link StudyParameters} for the parameters): a fixed population of light and heavy
 * clients, each looping request after request (with no think time by default), as in the 2005 study's 30 light + 0..40
 * heavy client threads. With several light paths each light user requests them in turn, starting at its own. Every
 * population is started at once and loops for warm-up + duration, so the number of clients stays constant: a slow
 * server slows the clients down instead of piling up arrivals.
 *
 * <p>A request the server sheds (503, 429) stays a failed request in Gatling's log, with Gatling's own status message
 * ({@code status.find.in([200, 209], 304), found 503}, which the study harness counts as rejected), and the user then
 * waits what the answer's Retry-After asks ({@link RejectionPause}) before its next request, instead of its think time:
 * retrying at once would make a shedding server's clients a hot loop of cheap rejections. A request that got no answer
 * at all (the connection refused or dropped: a server that stopped or restarts) is failed too and followed by the
 * default pause ({@code retryAfterDefault}): with no think time the clients looped on a dead port as fast as they
 * could, a core busy with nothing and a log growing by tens of thousands of lines a second. An answer that is an error
 * (500, 404) is the server's work and is followed by the think time as any answer.
 *
 * <pre>./mvnw -pl loadgen gatling:test -Dgatling.simulationClass=io.fairslice.loadgen.OverloadStudy \
 *     -DbaseUrl=http://127.0.0.1:8080 -DheavyUsers=40 -Dduration=30s</pre>
 */
public class OverloadStudy extends Simulation {

    /**
     * Session attributes: a shed request's Retry-After ("" when it had none), when the user's loop ends, and the pause
     * after a rejection with whether it reaches that end.
     */
    private static final String RETRY_AFTER = "fairslice.retryAfter";
    private static final String END_MILLIS = "fairslice.endMillis";
    private static final String PAUSE_MILLIS = "fairslice.pauseMillis";
    private static final String PAUSE_TO_END = "fairslice.pauseToEnd";
    /** Set when the request got an answer, whatever its status: a check that needs one. */
    private static final String ANSWERED = "fairslice.answered";
    /** The index of the light page a user requests next (several light paths). */
    private static final String NEXT_PAGE = "fairslice.nextPage";

    // a refused parameter is said in one line before Gatling's report of the crash (Parameters.readOrSay)
    private final StudyParameters parameters = Parameters.readOrSay(StudyParameters::fromSystemProperties);
    private final RejectionPause rejectionPause = parameters.rejectionPause();
    private final PageOutcomes outcomes = PageOutcomes.of(parameters.lightUsers() > 0, parameters.lightPaths(),
            parameters.heavyUsers() > 0, parameters.heavyPath());

    public OverloadStudy() {
        // what the run goes by, before Gatling's own output: a parameter left at its default shows here
        System.out.println(parameters.describe(System::getProperty));
        // one connection pool for all users, kept alive: the study's clients reused their connections. A redirect is
        // not followed: a page is one request and one answer (followed, the 302 hop passed Gatling's status check
        // whatever its target answered, and each request counted twice)
        HttpProtocolBuilder protocol = http.baseUrl(parameters.baseUrl()).disableWarmUp().disableFollowRedirect()
                .shareConnections();
        List<PopulationBuilder> populations = new ArrayList<>();
        if (parameters.lightUsers() > 0) {
            List<ChainBuilder> steps = new ArrayList<>();
            for (String path : parameters.lightPaths()) {
                steps.add(request(StudyParameters.lightRequestName(path), path));
            }
            populations.add(closedLoop("light", inTurn(steps)).injectOpen(atOnceUsers(parameters.lightUsers())));
        }
        if (parameters.heavyUsers() > 0) {
            ChainBuilder heavy = request(StudyParameters.heavyRequestName(parameters.heavyPath()),
                    parameters.heavyPath());
            populations.add(closedLoop("heavy", heavy).injectOpen(atOnceUsers(parameters.heavyUsers())));
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
        // no status check of our own: Gatling's default one keeps a 503 failed, with the message the harness reads;
        // the header check only runs on a rejection, and saves "" when there is no Retry-After
        // (a response-time check, not a status check: a status check of our own would replace Gatling's default)
        ChainBuilder chain = exec(session -> session.remove(ANSWERED))
                .exec(outcomes.request(name, path, parameters.requestTimeout())
                        .check(responseTimeInMillis().saveAs(ANSWERED))
                        .checkIf((response, session) -> RejectionPause.isRejection(response.status().code()))
                        .then(header("Retry-After").withDefault("").saveAs(RETRY_AFTER)));
        ChainBuilder afterRejection = pauseUpToEnd((session, left) -> {
            String retryAfter = session.getString(RETRY_AFTER);
            return rejectionPause.after(retryAfter == null || retryAfter.isEmpty() ? null : retryAfter,
                    System.currentTimeMillis(), left);
        });
        // the think time too stops at the user's end (a 5-minute think time kept a 30 s run going for 5 minutes)
        ChainBuilder afterAnswer = parameters.thinkTime().isZero() ? null
                : pauseUpToEnd((session, left) -> parameters.thinkTime());
        return afterAnswer == null
                ? chain.doIf(OverloadStudy::waitsAfter).then(afterRejection)
                : chain.doIfOrElse(OverloadStudy::waitsAfter).then(afterRejection).orElse(afterAnswer);
    }

    /** Whether the user waits before its next request: shed (503, 429), or no answer at all. */
    private static boolean waitsAfter(Session session) {
        return session.contains(RETRY_AFTER) || !session.contains(ANSWERED);
    }

    /**
     * The pause {@code wanted} asks for, given the session and the time the user has left, cut at the user's end: a
     * pause Gatling has started runs out in full, past the end. One that lasts to the end stops the user there rather
     * than send one more request as the loop closes. A Retry-After read for the pause is used once.
     */
    private static ChainBuilder pauseUpToEnd(BiFunction<Session, Duration, Duration> wanted) {
        return exec(session -> {
            Duration left = Duration.ofMillis(Math.max(0, session.getLong(END_MILLIS) - System.currentTimeMillis()));
            Duration pause = wanted.apply(session, left);
            pause = pause.compareTo(left) > 0 ? left : pause;
            return session.remove(RETRY_AFTER).set(PAUSE_MILLIS, pause.toMillis())
                    .set(PAUSE_TO_END, pause.compareTo(left) >= 0);
        })
                .pause(session -> Duration.ofMillis(session.getLong(PAUSE_MILLIS)))
                .exitHereIf(session -> session.getBoolean(PAUSE_TO_END));
    }

    private ScenarioBuilder closedLoop(String name, ChainBuilder step) {
        return scenario(name)
                .exec(session -> session.set(END_MILLIS, System.currentTimeMillis() + parameters.total().toMillis()))
                .during(parameters.total()).on(step);
    }

    /**
     * One page a turn of the loop, each user going through the pages in order from the one its id gives. Every user
     * used to start at the first page and request all of them each turn, so a run that ended before the users
     * reached the last page (a slow first page, a short run) never requested it, and its assertion failed with only
     * Gatling's "Could not find stats matching assertion path".
     */
    private static ChainBuilder inTurn(List<ChainBuilder> steps) {
        if (steps.size() == 1) {
            return steps.get(0);
        }
        int n = steps.size();
        List<Choice.WithKey> choices = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            choices.add(onCase(i).then(steps.get(i)));
        }
        return exec(session -> session.contains(NEXT_PAGE) ? session
                : session.set(NEXT_PAGE, (int) Math.floorMod(session.userId(), (long) n)))
                .doSwitch(session -> session.getInt(NEXT_PAGE)).on(choices)
                .exec(session -> session.set(NEXT_PAGE, (session.getInt(NEXT_PAGE) + 1) % n));
    }
}
