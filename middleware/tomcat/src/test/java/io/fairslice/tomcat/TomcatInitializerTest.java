package io.fairslice.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TomcatInitializerTest {

    @TempDir
    Path base;

    /**
     * A Tomcat started without its scripts (a Windows service) runs fairslice from lib/ without the options of the
     * installer's setenv.sh: its conf/fairslice.properties was passed over in silence.
     */
    @Test
    void shouldSayWhenTheInstallersConfigurationIsNotRead() throws IOException {
        assertThat(TomcatInitializer.unreadConfiguration(base.toString(), null)).as("no file").isNull();

        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve(TomcatLayout.CONFIG), "policy=share\n");

        assertThat(TomcatInitializer.unreadConfiguration(base.toString(), null))
                .contains(base.resolve(TomcatLayout.CONFIG).toString(), "is not read", "-Dfairslice.config");
        assertThat(TomcatInitializer.unreadConfiguration(base.toString(), " ")).as("blank: not given").isNotNull();
        assertThat(TomcatInitializer.unreadConfiguration(base.toString(), base.resolve(TomcatLayout.CONFIG)
                .toString())).as("read").isNull();
        assertThat(TomcatInitializer.unreadConfiguration(null, null)).as("no catalina.base").isNull();
    }
}
