package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ./fairslice serve}'s options: each bad one refused as it is parsed, naming the option and the value. */
class ServerOptionsTest {

    /**
     * Tomcat's connector ignored an address it could not resolve and listened on every interface; the loopback check
     * after it then threw out of main, the server still serving.
     */
    @Test
    void shouldRefuseAnAddressThatDoesNotResolve() {
        assertThatThrownBy(() -> ServerOptions.parse("--address", "no-such-host.invalid."))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--address 'no-such-host.invalid.' does not resolve");
    }

    /** Resolved once, as it is parsed: Tomcat binds, and the loopback check reads, the same address. */
    @Test
    void shouldResolveAHostNameToTheAddressTomcatBinds() {
        ServerOptions options = ServerOptions.parse("--address", "localhost");

        assertThat(options.address()).doesNotContainIgnoringCase("localhost");
        assertThat(options.loopback()).isTrue();
        assertThat(ServerOptions.parse("--address", "0.0.0.0").loopback()).isFalse();
        assertThat(ServerOptions.defaults().address()).isEqualTo("127.0.0.1");
    }

    @Test
    void shouldRefuseAPortOutOfRange() {
        assertThatThrownBy(() -> ServerOptions.parse("--port", "65536"))
                .hasMessage("--port must be 0..65535, got 65536");
        assertThatThrownBy(() -> ServerOptions.parse("--port", "-1")).hasMessage("--port must be 0..65535, got -1");
    }

    @Test
    void shouldRefuseMaxThreadsOutOfBounds() {
        assertThatThrownBy(() -> ServerOptions.parse("--max-threads", "0"))
                .hasMessage("--max-threads must be 1..10000, got 0");
        assertThatThrownBy(() -> ServerOptions.parse("--max-threads", "10001"))
                .hasMessage("--max-threads must be 1..10000, got 10001");
        assertThat(ServerOptions.parse("--max-threads", "10000").maxThreads()).isEqualTo(10_000);
    }

    @Test
    void shouldRefuseAnUnknownPolicy() {
        assertThatThrownBy(() -> ServerOptions.parse("--policy", "fair"))
                .hasMessage("--policy must be one of [none, observe, sleep, share], got 'fair'");
    }

    @Test
    void shouldRefuseMiddlewareKeysWithoutTheMiddleware() {
        assertThatThrownBy(() -> ServerOptions.parse("--policy", "none", "--fairslice", "class.heavy.share=10"))
                .hasMessage("--fairslice needs a policy other than none, got [class.heavy.share]");
    }

    @Test
    void shouldRefuseAFairsliceSettingWithoutAValue() {
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "class.heavy.share"))
                .hasMessage("--fairslice needs key=value, got 'class.heavy.share'");
    }

    /** The last one won without a word, with or without the {@code fairslice.} prefix. */
    @Test
    void shouldRefuseAFairsliceKeyGivenTwiceNamingBothValues() {
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "class.heavy.share=10",
                "--fairslice", "fairslice.class.heavy.share=30"))
                .hasMessage("--fairslice class.heavy.share given twice, '10' and '30'");
    }

    /** The last one won without a word: --port 8080 ... --port 9090 (a script's default, then the operator's). */
    @Test
    void shouldRefuseAnOptionGivenTwiceNamingBothValues() {
        assertThatThrownBy(() -> ServerOptions.parse("--port", "8080", "--port", "9090"))
                .isInstanceOf(ServerOptions.UsageException.class)
                .hasMessage("--port given twice, '8080' and '9090'");
        assertThatThrownBy(() -> ServerOptions.parse("--policy", "none", "--max-threads", "50", "--policy", "share"))
                .hasMessage("--policy given twice, 'none' and 'share'");
        assertThatThrownBy(() -> ServerOptions.parse("--address", "127.0.0.1", "--address", "::1"))
                .hasMessage("--address given twice, '127.0.0.1' and '::1'");
        assertThatThrownBy(() -> ServerOptions.parse("--max-threads", "50", "--max-threads", "50"))
                .hasMessage("--max-threads given twice, '50' and '50'");
        assertThatThrownBy(() -> ServerOptions.parse("--document-size", "2MB", "--document-size", "10MB"))
                .hasMessage("--document-size given twice, '2MB' and '10MB'");
    }

    /**
     * An empty or blank value (an unset shell variable) is a command line of the wrong form, worded as the launcher
     * words it: run directly, the server said "--port must be a whole number, got ''" without the usage.
     */
    @Test
    void shouldRefuseAnEmptyValueAsTheLauncherDoes() {
        for (String option : List.of("--port", "--address", "--policy", "--fairslice", "--max-threads")) {
            for (String empty : List.of("", " ")) {
                assertThatThrownBy(() -> ServerOptions.parse(option, empty)).as(option)
                        .isInstanceOf(ServerOptions.UsageException.class)
                        .hasMessage(option + " needs a value, got '" + empty + "'");
            }
        }
    }

    /** Checked by the application's rule as the options are parsed: the web application checked it as it started. */
    @Test
    void shouldRefuseABadDocumentSize() {
        assertThatThrownBy(() -> ServerOptions.parse("--document-size", "2XB"))
                .hasMessage("--document-size must be a size such as 2097152, 512KB or 2MB, got '2XB'");
        assertThatThrownBy(() -> ServerOptions.parse("--document-size", "2GB"))
                .hasMessage("--document-size must be a size in 1KB..1GB such as 2MB, got '2GB'");
        assertThat(ServerOptions.parse("--document-size", "10MB").appSettings())
                .containsEntry("study.heavy.bytes", "10MB");
    }

    /**
     * Checked by the middleware's own parser as the options are parsed, naming the key, the rule, the value and the
     * option that set it: Tomcat's start failed with a stack trace and "the study web application failed to start".
     */
    @Test
    void shouldRefuseAMiddlewareSettingByTheMiddlewaresRules() {
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "class.heavy.share=abc"))
                .isInstanceOf(ServerOptions.MiddlewareSettingException.class)
                .hasMessage("fairslice configuration: class.heavy.share must be a whole number 1..1000, got 'abc'"
                        + " (set by --fairslice class.heavy.share)");
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "bogus.key=1"))
                .isInstanceOf(ServerOptions.MiddlewareSettingException.class)
                .hasMessageStartingWith("fairslice configuration: bogus.key ")
                .hasMessageEndingWith(", got '1' (set by --fairslice bogus.key)");
        assertThat(ServerOptions.parse("--policy", "sleep", "--fairslice", "fairslice.class.heavy.share=10")
                .fairslice()).containsEntry("class.heavy.share", "10");
    }

    /** A request listener's settings (the kernel probe's, on the server's class path) by the listener's own rules. */
    @Test
    void shouldRefuseARequestListenersSettingByItsRules() {
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "kernel-probe.enabled=false",
                "--fairslice", "kernel-probe.nice.heavy=5"))
                .isInstanceOf(ServerOptions.MiddlewareSettingException.class)
                .hasMessageContaining("kernel-probe.enabled is false");
    }
}
