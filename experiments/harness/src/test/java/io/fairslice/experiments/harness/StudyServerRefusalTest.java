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
                + "kernel-probe.nice.heavy=10 cannot be applied and restored on this machine: setpriority("
                + "PRIO_PROCESS, 4242, 0) failed (error 13): [13] Permission denied (lowering a thread's nice needs "
                + "CAP_SYS_NICE or a sufficient RLIMIT_NICE, ulimit -e)\n";

        StudyServerProcess.NotAvailableException refused = StudyServerProcess.refusal(log, Middleware.NICE);

        assertThat(refused).isNotNull();
        assertThat(refused.getMessage()).contains("run as root").contains("kernel-probe.nice.heavy=10 cannot be "
                + "applied and restored on this machine");
    }

    /** A slice the kernel refuses for another reason is a fault to see, not a privilege to lack. */
    @Test
    void shouldCallAnActuatorFaultAFailure() {
        String log = "SEVERE: fairslice[/]: not started, so the application does not start: "
                + "kernel-probe.slice.heavy cannot be applied on this machine: sched_setattr(4242) failed (error 22): "
                + "[22] Invalid argument\n";

        assertThat(StudyServerProcess.refusal(log, Middleware.SLICE)).isNull();
    }

    @Test
    void shouldCallAnUnknownOptionNotAvailableAndAnythingElseAFailure() {
        assertThat(StudyServerProcess.refusal("study server: unknown option '--policy'", Middleware.SHARE))
                .isNotNull();
        assertThat(StudyServerProcess.refusal("Exception in thread \"main\" java.lang.OutOfMemoryError",
                Middleware.NICE)).isNull();
    }
}
