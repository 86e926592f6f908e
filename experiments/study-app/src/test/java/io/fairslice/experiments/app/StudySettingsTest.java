package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StudySettingsTest {

    @Test
    void shouldDefaultToTheStudysPages() {
        StudySettings settings = StudySettings.from(name -> null);
        assertThat(settings.fibonacciN()).isEqualTo(25);
        assertThat(settings.documentBytes()).isEqualTo(2L * 1024 * 1024);
        assertThat(settings.documentDir()).as("no fixed folder: the application's private one").isNull();
        assertThat(StudySettings.defaults().documentDir()).isNull();
    }

    @Test
    void shouldUseTheDocumentFolderItIsGiven() {
        assertThat(StudySettings.from(Map.of("study.heavy.dir", " /srv/study ")::get).documentDir())
                .isEqualTo(Path.of("/srv/study"));
    }

    @Test
    void shouldParseSizesWithBinaryUnits() {
        assertThat(StudySettings.from(Map.of("study.heavy.bytes", "10MB")::get).documentBytes())
                .isEqualTo(10L * 1024 * 1024);
        assertThat(StudySettings.from(Map.of("study.heavy.bytes", "512kb")::get).documentBytes())
                .isEqualTo(512L * 1024);
        assertThat(StudySettings.from(Map.of("study.heavy.bytes", "4096")::get).documentBytes()).isEqualTo(4096);
    }

    @Test
    void shouldNameTheSettingOfABadValue() {
        assertThatThrownBy(() -> StudySettings.from(Map.of("study.heavy.bytes", "2 megs")::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("study.heavy.bytes").hasMessageContaining("2 megs");
        assertThatThrownBy(() -> StudySettings.from(Map.of("study.light.fibonacci", "99")::get))
                .hasMessageContaining("study.light.fibonacci").hasMessageContaining("1..40").hasMessageContaining("99");
        assertThatThrownBy(() -> StudySettings.from(Map.of("study.heavy.seed", "x")::get))
                .hasMessageContaining("study.heavy.seed");
        // 2^32 + 10 wrapped to 10, a valid n, when cast before the range check
        assertThatThrownBy(() -> StudySettings.from(Map.of("study.light.fibonacci", "4294967306")::get))
                .hasMessageContaining("study.light.fibonacci").hasMessageContaining("4294967306");
        assertThatThrownBy(() -> StudySettings.from(Map.of("study.light2.primes", "4294987296")::get))
                .hasMessageContaining("study.light2.primes").hasMessageContaining("4294987296");
    }

    /**
     * Long.parseLong took non-ASCII digits: {@code ٢٥} (Arabic-Indic) ran /light as fib(25). Whole numbers and sizes
     * are ASCII digits, as the server module's Numbers reads the experiments' other settings.
     */
    @Test
    void shouldRefuseNonAsciiDigitsNamingTheSetting() {
        for (String name : List.of("study.light.fibonacci", "study.light2.primes", "study.heavy.seed")) {
            assertThatThrownBy(() -> StudySettings.from(Map.of(name, "٢٥")::get)).as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(name + " must be a whole number, got '٢٥'");
        }
        for (String size : List.of("٢٠٤٨", "٢MB")) {
            assertThatThrownBy(() -> StudySettings.from(Map.of("study.heavy.bytes", size)::get)).as(size)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("study.heavy.bytes must be a size such as 2097152, 512KB or 2MB, got '" + size + "'");
        }
        assertThatThrownBy(() -> StudySettings.checkDocumentSize("documentSize", "٢MB"))
                .hasMessage("documentSize must be a size such as 2097152, 512KB or 2MB, got '٢MB'");
        assertThat(StudySettings.from(Map.of("study.heavy.seed", "-7")::get).seed()).isEqualTo(-7);
    }

    /**
     * A setting given empty ({@code -Dstudy.heavy.bytes=$SIZE} with the variable unset) was taken for its default, and
     * as a system property it hid the context parameter of the same name: the run measured another page than asked.
     */
    @Test
    void shouldRefuseASettingGivenEmpty() {
        for (String name : List.of("study.light.fibonacci", "study.light2.primes", "study.heavy.bytes",
                "study.heavy.seed", "study.heavy.dir")) {
            assertThatThrownBy(() -> StudySettings.from(Map.of(name, " ")::get)).as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(name + " is set but empty: give it a value, or leave it out for its default");
        }
    }
}
