package io.fairslice.loadgen;

import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.http.HttpDsl.http;

import io.gatling.javaapi.core.Assertion;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What each page's requests got in a run, counted as they are sent and answered, for {@code requireSuccess}: a page
 * (a request name, {@code light:/catalog}) that got no successful response at all fails the run. A wrong port (every
 * connection refused) or a misspelt page (every answer 404) ran to the end and left Maven with BUILD SUCCESS; the run
 * now fails by Gatling's own assertions ({@link #assertions()}, which make Gatling's and the Maven plugin's exit status
 * non-zero), and {@link #unserved()} says for each such page in one line what it got instead.
 *
 * <p>A page that was only shed (503, 429) fails too: nothing was served, which for someone checking a server is what
 * matters; the study harness, for which a point where every heavy request is shed is a result, turns this off
 * ({@code requireSuccess=false}) and counts served, shed and failed requests itself.
 *
 * <p>Thread-safe: Gatling's users count concurrently. The pages are fixed at construction, so the map is only read.
 */
final class PageOutcomes {

    private final Map<String, Page> pages = new LinkedHashMap<>();

    /** @param names the request names the simulation sends, in the order they are to be reported */
    private PageOutcomes(List<String> names) {
        names.forEach(name -> pages.put(name, new Page()));
    }

    /**
     * The pages a simulation sends requests to: each of {@code lightPaths} when {@code light} (it has light users or a
     * light rate), {@code heavyPath} when {@code heavy}; named as Gatling records them.
     */
    static PageOutcomes of(boolean light, List<String> lightPaths, boolean heavy, String heavyPath) {
        List<String> names = new ArrayList<>();
        if (light) {
            lightPaths.forEach(path -> names.add(StudyParameters.lightRequestName(path)));
        }
        if (heavy) {
            names.add(StudyParameters.heavyRequestName(heavyPath));
        }
        return new PageOutcomes(names);
    }

    /**
     * The GET of {@code path}, named {@code page}, that both simulations send: counted sent as Gatling builds its URL,
     * and answered where its response passes ({@code transformResponse} passes it on unchanged). Counted in an action
     * of its own before the request, a request the run's end cut off was counted and never sent: {@code during} looks
     * at its deadline before each action, the request's included, and the page's failure line then said "got no
     * answer (the connection refused or dropped" of a request no connection had carried (a review saw it in 1 of 2 to
     * 1 of 8 runs of 50 users for 1 s against a small Python server; 15 runs against UnservedPageTest's server did not
     * show it, so no test holds it). The URL is a function, built once per request, not Gatling's Expression Language
     * (Parameters refuses {@code #{} anyway).
     */
    HttpRequestActionBuilder request(String page, String path, Duration timeout) {
        return http(page).get(session -> {
            sent(page);
            return path;
        }).requestTimeout(timeout).transformResponse((response, session) -> {
            answered(page, response.status().code());
            return response;
        });
    }

    /** A request to {@code page} is about to be sent. */
    private void sent(String page) {
        pages.get(page).sent.increment();
    }

    /** A request to {@code page} got an answer with this status (redirects are not followed: a 3xx is its answer). */
    private void answered(String page, int status) {
        pages.get(page).statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
    }

    /**
     * What Gatling's default status check (the one the simulations keep) lets pass: {@code status.find.in([200, 209],
     * 304)}. Everything else is a failed request in Gatling's report, and these are what its assertion counts.
     */
    static boolean isSuccess(int status) {
        return status >= 200 && status <= 209 || status == 304;
    }

    /** One Gatling assertion per page: at least one successful request. */
    List<Assertion> assertions() {
        List<Assertion> assertions = new ArrayList<>();
        for (String name : pages.keySet()) {
            assertions.add(details(name).successfulRequests().count().gt(0L));
        }
        return assertions;
    }

    /** Says {@link #unserved} on stderr: a simulation's {@code after}, before Gatling reports its failed assertion. */
    void sayUnserved() {
        unserved().forEach(System.err::println);
        System.err.flush();
    }

    /**
     * One line for each page that got no successful response, saying what it got: {@code light:/catalgo got no
     * successful response: of 412 requests, 412 answered 404}, or that it was never requested. Empty when every page
     * was served.
     */
    List<String> unserved() {
        List<String> lines = new ArrayList<>();
        pages.forEach((name, page) -> {
            long sent = page.sent.sum();
            Map<Integer, Long> statuses = new LinkedHashMap<>();
            page.statuses.entrySet().stream()
                    .sorted(Map.Entry.<Integer, LongAdder>comparingByValue(Comparator.comparingLong(LongAdder::sum))
                            .reversed().thenComparing(Map.Entry.comparingByKey()))
                    .forEach(e -> statuses.put(e.getKey(), e.getValue().sum()));
            if (sent == 0) {
                // its assertion fails all the same, with Gatling's "Could not find stats matching assertion path"
                lines.add("fairslice loadgen: " + name + " was never requested: the run ended before a user reached"
                        + " it (a longer duration, more users or a higher rate reaches it)");
            } else if (statuses.keySet().stream().noneMatch(PageOutcomes::isSuccess)) {
                lines.add(describe(name, sent, statuses));
            }
        });
        return lines;
    }

    private static String describe(String name, long sent, Map<Integer, Long> statuses) {
        StringJoiner got = new StringJoiner(", ");
        long answered = 0;
        boolean onlyShed = !statuses.isEmpty();
        for (Map.Entry<Integer, Long> status : statuses.entrySet()) {
            got.add(status.getValue() + " answered " + status.getKey());
            answered += status.getValue();
            onlyShed &= RejectionPause.isRejection(status.getKey());
        }
        // every request Gatling sent ends answered or failed without an answer before the run ends
        long unanswered = Math.max(0, sent - answered);
        if (unanswered > 0) {
            got.add(unanswered + " got no answer (the connection refused or dropped, or requestTimeout passed: "
                    + "Gatling's errors say which)");
            onlyShed = false;
        }
        String line = "fairslice loadgen: " + name + " got no successful response: of " + sent + " requests, " + got;
        if (statuses.keySet().stream().anyMatch(s -> s >= 300 && s < 400 && s != 304)) {
            line += " (a redirect, which the load generator does not follow: give the path it redirects to)";
        }
        return onlyShed ? line + " (shed: the server's overload rejection; requireSuccess=false accepts it)" : line;
    }

    private static final class Page {
        private final LongAdder sent = new LongAdder();
        private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
    }
}
