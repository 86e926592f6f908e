package io.fairslice.middleware.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The glob matcher against its specification, the regular expression the rules used until 2026-11-28 (kept here,
 * where only short inputs meet it), and against inputs that made that expression backtrack for minutes.
 */
class GlobTest {

    /** The former translation: {@code **} .*, {@code *} [^/]* in a path, {@code ?} one character, Ant's /**. */
    static Pattern reference(String glob, boolean path) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (path && glob.startsWith("/**/", i)) {
                re.append("/(?:.*/)?");
                i += 3;
            } else if (path && glob.startsWith("/**", i) && i + 3 == glob.length()) {
                re.append("(?:/.*)?");
                i += 2;
            } else if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                re.append(".*");
                i++;
            } else if (c == '*') {
                re.append(path ? "[^/]*" : ".*");
            } else if (c == '?') {
                re.append(path ? "[^/]" : ".");
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    @Provide
    Arbitrary<String> globs() {
        return Arbitraries.of("/", "a", "b", "-", "*", "**", "?", "/**/", "/**", ".", "\n").list().ofMaxSize(7)
                .map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<String> inputs() {
        return Arbitraries.of('/', 'a', 'b', '-', '.', '\n').list().ofMaxSize(12)
                .map(cs -> cs.stream().map(String::valueOf).reduce("", String::concat));
    }

    @Property(tries = 20_000)
    void pathGlobsMatchWhatTheirRegularExpressionMatched(@ForAll("globs") String glob, @ForAll("inputs") String in) {
        assertThat(Glob.path(glob).matches(in)).as("path glob '%s' on '%s'", glob, in)
                .isEqualTo(reference(glob, true).matcher(in).matches());
    }

    @Property(tries = 20_000)
    void valueGlobsMatchWhatTheirRegularExpressionMatched(@ForAll("globs") String glob, @ForAll("inputs") String in) {
        assertThat(Glob.value(glob).matches(in)).as("value glob '%s' on '%s'", glob, in)
                .isEqualTo(reference(glob, false).matcher(in).matches());
    }

    @Test
    void shouldMatchAntStylePathGlobs() {
        assertThat(Glob.path("/**/export").matches("/export")).isTrue();
        assertThat(Glob.path("/**/export").matches("/shop/a/export")).isTrue();
        assertThat(Glob.path("/**/export").matches("/shopexport")).isFalse();
        assertThat(Glob.path("/report/**").matches("/report")).isTrue();
        assertThat(Glob.path("/report/**").matches("/report/2026/q1")).isTrue();
        assertThat(Glob.path("/report/**").matches("/reports")).isFalse();
        assertThat(Glob.path("/products/*").matches("/products/blue-kettle")).isTrue();
        assertThat(Glob.path("/products/*").matches("/products/blue/kettle")).isFalse();
        assertThat(Glob.path("/p?").matches("/p/")).isFalse();
        assertThat(Glob.path("/reports/**").matches("/reports/q1\nx")).as("a decoded line break").isTrue();
        assertThat(Glob.value("*Mobile*").matches("Mozilla/5.0 (Mobile)")).isTrue();
        assertThat(Glob.value("").matches("")).isTrue();
        assertThat(Glob.value("").matches("x")).isFalse();
    }

    /** The application's route templates, as Spring and JAX-RS declare them, are globs as they are written. */
    @Test
    void shouldTakeAFrameworksPathVariablesAsWildcards() {
        assertThat(Glob.path("/api/items/{id}").matches("/api/items/42")).isTrue();
        assertThat(Glob.path("/api/items/{id}").matches("/api/items/42/reviews")).as("one segment").isFalse();
        assertThat(Glob.path("/api/items/{id}").matches("/api/items/")).as("an empty segment, as *").isTrue();
        assertThat(Glob.path("/orders/{id:\\d+}/lines").matches("/orders/7/lines")).isTrue();
        assertThat(Glob.path("/files/{*path}").matches("/files/a/b/c.txt")).as("Spring's capture of the rest")
                .isTrue();
        assertThat(Glob.path("/a/{x}-{y}.pdf").matches("/a/2026-q1.pdf")).isTrue();
        assertThat(Glob.path("/a/{}").matches("/a/{}")).as("no variable: literal").isTrue();
        assertThat(Glob.path("/a/{b/c}").matches("/a/{b/c}")).as("a slash before the close: literal").isTrue();
        assertThat(Glob.value("{id}").matches("42")).as("not in a header's value").isFalse();
        assertThat(Glob.path("/codes/{id:[a-z]{2}}/x").matches("/codes/ab/x")).as("braces in its pattern").isTrue();
        assertThat(Glob.path("/files/{*path}").matches("/files")).as("a trailing capture of the rest: also nothing")
                .isTrue();
        assertThat(Glob.path("/files/{*path}").matches("/filesx")).isFalse();
    }

    /** A brace that opens no variable could only stand for itself, which a client cannot send: a mistake to name. */
    @Test
    void shouldNameABraceThatOpensNoPathVariable() {
        assertThat(Glob.braceProblem("/api/items/{id}/x{n:\\d{2}}")).isNull();
        assertThat(Glob.braceProblem("/files/{*path}")).isNull();
        assertThat(Glob.braceProblem("/a/{}")).startsWith("'{' at 3 opens no path variable");
        assertThat(Glob.braceProblem("/a/{p:.+/.+}")).startsWith("'{' at 3 opens no path variable");
        assertThat(Glob.braceProblem("/a/{id")).startsWith("'{' at 3 opens no path variable");
        assertThat(Glob.braceProblem("/a/id}")).isEqualTo("'}' at 5 closes no path variable");
    }

    /**
     * Paths a client chooses, up to Tomcat's 8 KB request line, against globs with several wildcards: the regular
     * expression took 0.1-0.3 s for two wildcards on 8 KB, 5 s for three on 2 KB and minutes on 8 KB, before
     * admission control. The matcher reads each character once per glob position: microseconds here; the bound only
     * tells that apart from backtracking on a loaded machine.
     */
    @Test
    void shouldMatchHostileLongPathsWithoutBacktracking() {
        String dots = "/files/" + ".".repeat(8000) + "/";
        String dashes = "/blog/" + "-".repeat(8000) + "/";
        String segments = "/a".repeat(4000) + "/x";
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (int i = 0; i < 10; i++) {
                assertThat(Glob.path("/files/*.*").matches(dots)).isFalse();
                assertThat(Glob.path("/blog/*-*-*").matches(dashes)).isFalse();
                assertThat(Glob.path("/**/a/**/b/**/c").matches(segments)).isFalse();
                assertThat(Glob.value("*a*a*a*b").matches("a".repeat(8000))).isFalse();
            }
        });
    }
}
