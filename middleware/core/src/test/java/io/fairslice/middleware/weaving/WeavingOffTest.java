package io.fairslice.middleware.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The startup line without the weaving agent (this module's tests run without it). */
class WeavingOffTest {

    @TempDir
    Path dir;

    /**
     * An application whose aop.xml names its packages, on a JVM started without the agent: nothing is woven and the
     * scope is not checked. It was logged as information, "off", like a deliberate choice.
     */
    @Test
    void shouldWarnWhenAnAopXmlAsksForWeavingThatTheAbsentAgentCannotDo() throws IOException {
        Path app = Files.createDirectories(dir.resolve("classes/META-INF"));
        Files.writeString(app.resolve("aop.xml"), "<aspectj><weaver><include within=\"com.acme..*\"/>"
                + "<include within=\"com.acne..*\"/></weaver></aspectj>");
        Files.write(Files.createDirectories(dir.resolve("classes/com/acme")).resolve("Shop.class"), new byte[] {1});
        try (URLClassLoader application = new URLClassLoader(new URL[] {dir.resolve("classes").toUri().toURL()},
                getClass().getClassLoader())) {
            WeavingScope scope = WeavingScope.inspect(application, "META-INF/aop.xml");

            assertThat(scope.agentActive()).isFalse();
            assertThat(scope.worthAWarning()).as(scope.toString()).isTrue();
            assertThat(scope.summary()).startsWith("weaving off (").contains("ask(s) to weave [com.acme..*]",
                    "needs the agent", "problems the agent would refuse", "com.acne..*");
        }
    }

    /** No agent and no scope: the application calls its yield points itself, or has none; information only. */
    @Test
    void shouldOnlyInformWithoutAgentOrScope() throws IOException {
        try (URLClassLoader application = new URLClassLoader(new URL[0], getClass().getClassLoader())) {
            WeavingScope scope = WeavingScope.inspect(application, "META-INF/aop-none.xml");

            assertThat(scope.worthAWarning()).as(scope.summary()).isFalse();
            assertThat(scope.summary()).doesNotContain("ask(s) to weave");
        }
    }
}
