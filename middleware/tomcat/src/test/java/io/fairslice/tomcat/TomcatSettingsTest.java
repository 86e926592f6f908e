package io.fairslice.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TomcatSettingsTest {

    @TempDir
    Path base;

    private TomcatSettings load(String content) throws Exception {
        Files.createDirectories(base.resolve("conf"));
        Files.writeString(base.resolve(TomcatLayout.TOMCAT_SETTINGS), content);
        return TomcatSettings.load(base);
    }

    @Test
    void shouldSelectEveryApplicationButTheMetricsOneWhenTheFileIsAbsent() {
        TomcatSettings settings = TomcatSettings.load(base);
        assertThat(settings.selects("/shop")).isTrue();
        assertThat(settings.selects("")).isTrue();
        assertThat(settings.selects(TomcatLayout.METRICS_CONTEXT)).isFalse();
    }

    @Test
    void shouldSelectOnlyTheNamedApplications() throws Exception {
        TomcatSettings settings = load("apps=/shop, /\n");
        assertThat(settings.selects("/shop")).isTrue();
        assertThat(settings.selects("")).as("ROOT").isTrue();
        assertThat(settings.selects("/manager")).isFalse();
    }

    /** Tomcat deploys webapps/my+app at /my+app, and takes any character of a folder's name into the path. */
    @Test
    void shouldSelectAContextPathOfAnyCharactersTomcatTakesFromAFolderName() throws Exception {
        TomcatSettings settings = load("apps=/my+app,/my app,/caf\u00e9,/a/b\n");
        assertThat(settings.apps()).containsExactly("/my+app", "/my app", "/caf\u00e9", "/a/b");
        assertThat(settings.selects("/my+app")).isTrue();
        assertThat(settings.selects("/my")).isFalse();
    }

    /**
     * What the file cannot carry: its escape character, its word for every application, an empty segment; and a #,
     * which no context path holds (a folder's spelling of / or of a version) and which selected nothing.
     */
    @Test
    void shouldRejectAPathThisFileCannotCarry() {
        for (String app : new String[] {"/my\\\\app", "/*", "/shop/", "//shop", "/shop#admin", "/shop##2"}) {
            assertThatThrownBy(() -> load("apps=" + app + "\n")).as(app)
                    .hasMessageContaining("apps must list context paths")
                    .hasMessageContaining("webapps/shop#admin serves /shop/admin, and shop##2 serves /shop");
        }
    }

    /**
     * The installer refuses --apps /ROOT, naming /, but a hand-edited apps=/ROOT was taken and selected no application,
     * ROOT included: refused where it is read, naming the file, the key and /.
     */
    @Test
    void shouldRejectTheRootApplicationWrittenAsTomcatsManagerNamesIt() {
        assertThatThrownBy(() -> load("apps=/shop, /ROOT\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(base.resolve(TomcatLayout.TOMCAT_SETTINGS) + ": apps lists /ROOT, but the ROOT"
                        + " application's context path is /; write / (apps=/shop, /ROOT)");
    }

    @Test
    void shouldRejectAnUnknownKey() {
        assertThatThrownBy(() -> load("app=/shop\n")).hasMessageContaining("unknown key 'app'");
    }

    @Test
    void shouldRejectSomethingThatIsNotAContextPath() {
        assertThatThrownBy(() -> load("apps=shop\n")).hasMessageContaining("got 'shop'");
    }

    /** A malformed escape stopped every application with "Malformed \\uxxxx encoding.", naming no file. */
    @Test
    void shouldNameTheFileWhenAnEscapeIsMalformed() {
        assertThatThrownBy(() -> load("apps=/\\u00zz\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(base.resolve(TomcatLayout.TOMCAT_SETTINGS) + ": Malformed \\uxxxx encoding.");
    }

    @Test
    void shouldRejectAllMixedWithPaths() {
        assertThatThrownBy(() -> load("apps=*,/shop\n")).hasMessageContaining("mixes * with context paths");
    }
}
