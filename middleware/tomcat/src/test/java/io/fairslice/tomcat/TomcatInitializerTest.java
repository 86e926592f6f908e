package io.fairslice.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TomcatInitializerTest {

    @TempDir
    Path base;
    private String previousBase;

    /** onStartup reads its settings under catalina.base: the temporary directory's. */
    @BeforeEach
    void setCatalinaBase() {
        previousBase = System.setProperty("catalina.base", base.toString());
    }

    @AfterEach
    void restoreCatalinaBase() {
        if (previousBase == null) {
            System.clearProperty("catalina.base");
        } else {
            System.setProperty("catalina.base", previousBase);
        }
    }

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

    /**
     * A broken conf/fairslice-tomcat.properties stops every application; Tomcat's own SEVERE line says only "Error
     * during ServletContainerInitializer processing", so the reason goes on a line of its own.
     */
    @Test
    void shouldSayOnOneLineWhyABrokenSettingsFileStopsTheApplication() throws IOException {
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve(TomcatLayout.TOMCAT_SETTINGS), "apps=shop\n");
        ServletContext context = (ServletContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getContextPath" -> "/shop";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(TomcatInitializer.class.getName());
        logger.addHandler(handler);
        try {
            assertThatThrownBy(() -> new TomcatInitializer().onStartup(null, context))
                    .isInstanceOf(ServletException.class).hasMessageContaining("apps must list context paths");
        } finally {
            logger.removeHandler(handler);
        }
        assertThat(records).filteredOn(r -> r.getLevel() == Level.SEVERE).singleElement()
                .satisfies(r -> assertThat(r.getMessage()).startsWith("fairslice[/shop]: not started")
                        .contains(TomcatLayout.TOMCAT_SETTINGS, "apps must list context paths", "got 'shop'"));
    }

    /**
     * The line for an application left out by apps= names it as the middleware's lines do ({@code fairslice[/]: }
     * for ROOT), so one search of the log finds every line of an application.
     */
    @Test
    void shouldNameTheApplicationItIsNotEnabledInAsTheMiddlewareDoes() throws Exception {
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve(TomcatLayout.TOMCAT_SETTINGS), "apps=/shop\n");
        List<String> logged = new CopyOnWriteArrayList<>();
        for (String path : List.of("", "/manager")) {
            ServletContext context = (ServletContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                        case "getContextPath" -> path;
                        case "log" -> logged.add((String) args[0]);
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
            new TomcatInitializer().onStartup(null, context);
        }
        assertThat(logged).containsExactly(
                "fairslice[/]: not enabled (apps=/shop in " + TomcatLayout.TOMCAT_SETTINGS + ")",
                "fairslice[/manager]: not enabled (apps=/shop in " + TomcatLayout.TOMCAT_SETTINGS + ")");
    }
}
