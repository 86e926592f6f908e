package io.fairslice.tomcat.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MetricsServletTest {

    @Test
    void shouldTreatLoopbackLiteralsAsLocal() {
        assertThat(MetricsServlet.isLoopback("127.0.0.1")).isTrue();
        assertThat(MetricsServlet.isLoopback("127.8.9.10")).isTrue();
        assertThat(MetricsServlet.isLoopback("0:0:0:0:0:0:0:1")).isTrue();
        assertThat(MetricsServlet.isLoopback("[::1]")).isTrue();
        assertThat(MetricsServlet.isLoopback("::ffff:127.0.0.1")).isTrue();
    }

    @Test
    void shouldTreatOtherAddressesAndNamesAsRemote() {
        assertThat(MetricsServlet.isLoopback("10.0.0.1")).isFalse();
        assertThat(MetricsServlet.isLoopback("0.0.0.0")).isFalse();
        assertThat(MetricsServlet.isLoopback("localhost")).as("names are never resolved").isFalse();
        assertThat(MetricsServlet.isLoopback("")).isFalse();
        assertThat(MetricsServlet.isLoopback(null)).isFalse();
    }

    @Test
    void shouldRejectAPortListWithSomethingElse() {
        assertThatThrownBy(() -> MetricsServlet.parsePorts("9404,http"))
                .hasMessageContaining("metrics.ports must list TCP ports (1..65535) in digits 0-9, got 'http'");
        assertThatThrownBy(() -> MetricsServlet.parsePorts("70000")).hasMessageContaining("got '70000'");
    }

    /** Integer.parseInt read '+9404' and Arabic-Indic '٩٤٠٤' as 9404: a port is written in ASCII digits. */
    @Test
    void shouldRejectASignedPortAndDigitsOfAnotherScript() {
        assertThatThrownBy(() -> MetricsServlet.parsePorts("9405,+9404"))
                .hasMessageContaining("metrics.ports must list TCP ports (1..65535) in digits 0-9, got '+9404'"
                        + " in '9405,+9404'");
        assertThatThrownBy(() -> MetricsServlet.parsePorts("\u0669\u0664\u0660\u0664"))
                .hasMessageContaining("metrics.ports must list TCP ports (1..65535) in digits 0-9, got '"
                        + "\u0669\u0664\u0660\u0664'");
    }

    @Test
    void shouldReadAPortList() throws Exception {
        assertThat(MetricsServlet.parsePorts(" 9404 , 9405")).containsExactlyInAnyOrder(9404, 9405);
        assertThat(MetricsServlet.parsePorts("")).isEmpty();
    }

    /** The installer's --metrics-ports rule (TcpPorts): up to nine digits, where this took five and refused 009404. */
    @Test
    void shouldReadAPortWithLeadingZerosAsTheInstallerDoes() throws Exception {
        assertThat(MetricsServlet.parsePorts("009404,000000080")).containsExactlyInAnyOrder(9404, 80);
        assertThatThrownBy(() -> MetricsServlet.parsePorts("0000009404")).hasMessageContaining("got '0000009404'");
    }
}
