package io.fairslice.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What a study server that exited before listening said decides whether its configuration is "not available" here
 * (reported as such) or failed (a real fault, reported as failed).
 */
class StudyServerRefusalTest {

    /**
     * The nice peer as an ordinary user: the kernel probe's startup check can raise a thread's nice but not lower it
     * back, and the application does not start (it was reported as a failed configuration).
     */
    @Test
    void shouldCallAPeerThisUserMayNotRunNotAvailable() {
        String log = "SEVERE: fairslice[/]: not started, so the application does not start: "
                + "kernel-probe.nice.heavy=10 cannot be applied and restored on this machine: setpriority: "
                + "Permission denied (errno 13)\n";

        StudyServerProcess.NotAvailableException refused = StudyServerProcess.refusal(log, Middleware.NICE);

        assertThat(refused).isNotNull();
        assertThat(refused.getMessage()).contains("run as root").contains("kernel-probe.nice.heavy=10 cannot be "
                + "applied and restored on this machine");
    }

    @Test
    void shouldCallAnUnknownOptionNotAvailableAndAnythingElseAFailure() {
        assertThat(StudyServerProcess.refusal("study server: unknown option '--policy'", Middleware.SHARE))
                .isNotNull();
        assertThat(StudyServerProcess.refusal("Exception in thread \"main\" java.lang.OutOfMemoryError",
                Middleware.NICE)).isNull();
    }
}
