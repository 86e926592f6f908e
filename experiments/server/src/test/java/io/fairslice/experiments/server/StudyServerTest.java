package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** How the study server refuses what it cannot do, instead of running without serving. */
class StudyServerTest {

    /** Tomcat logs a connector that cannot bind and starts anyway: the server said it listened on port -1. */
    @Test
    void shouldFailToStartOnAPortInUseAndLeaveNoTemporaryFolder() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long before = tomcatFolders();
            ServerOptions options = ServerOptions.parse("--port", Integer.toString(taken.getLocalPort()),
                    "--policy", "none");

            assertThatThrownBy(() -> new StudyServer(options).start()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("the port is in use");
            assertThat(tomcatFolders()).as("fairslice-tomcat-* folders in the temp folder").isEqualTo(before);
        }
    }

    @Test
    void shouldRefuseThePolicyAsAFairsliceKey() {
        assertThatThrownBy(() -> ServerOptions.parse("--fairslice", "policy=observe"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--fairslice policy=observe: set the policy with --policy observe");
    }

    private static long tomcatFolders() throws Exception {
        try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return all.filter(p -> p.getFileName().toString().startsWith("fairslice-tomcat-")).count();
        }
    }
}
