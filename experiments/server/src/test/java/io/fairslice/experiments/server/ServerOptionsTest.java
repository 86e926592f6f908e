package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code ./fairslice serve}'s options: each bad one refused as it is parsed, naming the option and the value. */
class ServerOptionsTest {

    /**
     * Tomcat's connector ignored an address it could not resolve and listened on every interface; the loopback check
     * after it then threw out of main, the server still serving.
     */
    @Test
    void shouldRefuseAnAddressThatDoesNotResolve() {
        assertThatThrownBy(() -> ServerOptions.parse("--address", "no-such-host.invalid"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--address 'no-such-host.invalid' does not resolve");
    }

    @Test
    void shouldRefuseABlankAddress() {
        assertThatThrownBy(() -> ServerOptions.parse("--address", " "))
                .hasMessage("--address must be a host name or an IP address, got ' '");
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
}
