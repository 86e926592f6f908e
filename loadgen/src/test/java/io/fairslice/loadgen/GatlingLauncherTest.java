package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GatlingLauncherTest {

    @Test
    void shouldReportAndFailWhenGatlingThrowsACheckedExceptionUndeclared() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        // what Gatling does when a simulation's constructor throws: the reflective call's checked exception, rethrown
        // by Scala code that declares nothing
        InvocationTargetException thrown = new InvocationTargetException(
                new IllegalArgumentException("duration must be between 1s and 86400s, got 500ms"));

        int status = GatlingLauncher.run(() -> sneakyThrow(thrown), err);

        assertThat(status).isEqualTo(1);
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .startsWith("fairslice loadgen: Gatling failed: java.lang.reflect.InvocationTargetException")
                .contains("duration must be between 1s and 86400s, got 500ms");
    }

    @Test
    void shouldPassGatlingsOwnStatusOn() {
        assertThat(GatlingLauncher.run(() -> 0, System.err)).isZero();
        assertThat(GatlingLauncher.run(() -> 2, System.err)).isEqualTo(2);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> int sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }
}
