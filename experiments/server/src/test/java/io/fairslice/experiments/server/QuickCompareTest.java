package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The quick comparison's command line: every option read, a wrong one named in one line, not a stack trace. */
class QuickCompareTest {

    @Test
    void shouldReadEveryOption() {
        QuickCompare.Options o = QuickCompare.Options.parse("--policies", "share, observe", "--warmup-ms", "0",
                "--window-ms", "2000", "--light", "10", "--heavy", "0", "--rr", "--fairslice", "class.heavy.share=10",
                "--jvm", "-javaagent:a.jar");
        assertThat(o).isEqualTo(new QuickCompare.Options(List.of("share", "observe"), 0, 2000, 10, 0, true,
                List.of("--fairslice", "class.heavy.share=10"), List.of("-javaagent:a.jar")));
        assertThat(QuickCompare.Options.parse()).isEqualTo(new QuickCompare.Options(List.of("none", "sleep", "share"),
                20_000, 15_000, 30, 40, false, List.of(), List.of()));
    }

    @Test
    void shouldNameTheWrongOption() {
        assertThatThrownBy(() -> QuickCompare.Options.parse("--policy", "share"))
                .hasMessage("unknown option '--policy'");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--policies", "none,shares"))
                .hasMessage("--policies must be one of [none, observe, sleep, share], got 'shares'");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--policies", "none,"))
                .hasMessage("--policies must be one of [none, observe, sleep, share], got ''");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--light"))
                .hasMessage("--light needs a value");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--heavy", "forty"))
                .hasMessage("--heavy must be a whole number, got 'forty'");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--light", "0"))
                .hasMessage("--light must be 1..10000, got 0");
        assertThatThrownBy(() -> QuickCompare.Options.parse("--window-ms", "0"))
                .hasMessage("--window-ms must be at least 1, got 0");
    }
}
