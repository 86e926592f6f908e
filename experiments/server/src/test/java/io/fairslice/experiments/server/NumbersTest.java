package io.fairslice.experiments.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The experiments' settings read numbers as people write them, not as Java's literals or other scripts' digits. */
class NumbersTest {

    @Test
    void shouldReadDecimalsAndRefuseJavaLiteralForms() {
        assertThat(Numbers.decimal("k", "0.9")).isEqualTo(0.9);
        assertThat(Numbers.decimal("k", ".5")).isEqualTo(0.5);
        assertThat(Numbers.decimal("k", "-12.")).isEqualTo(-12.0);
        for (String literal : new String[] {"1d", "2f", "0x1p-3", "NaN", "Infinity", "1e", "e3", ".e1", ".", ""}) {
            assertThatThrownBy(() -> Numbers.decimal("light-share", literal)).as(literal)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("light-share must be a number such as 0.9 or 12.5, got '" + literal + "'");
        }
    }

    /**
     * As the middleware's configuration reads a decimal (adaptive.alpha=5e-2): with an exponent, which was refused
     * here; one beyond a double (400 digits) was read as Infinity.
     */
    @Test
    void shouldReadAnExponentAsTheMiddlewareDoesAndRefuseANumberBeyondADouble() {
        assertThat(Numbers.decimal("k", "5e-2")).isEqualTo(0.05);
        assertThat(Numbers.decimal("k", "1E3")).isEqualTo(1000.0);
        assertThat(Numbers.decimal("k", "+2.5e+1")).isEqualTo(25.0);
        assertThat(Numbers.decimal("k", ".5E0")).isEqualTo(0.5);
        for (String beyond : new String[] {"1e999", "-1e999", "1" + "0".repeat(400)}) {
            assertThatThrownBy(() -> Numbers.decimal("light-share", beyond)).as(beyond)
                    .hasMessage("light-share must be a number such as 0.9 or 12.5, got '" + beyond + "'");
        }
    }

    @Test
    void shouldReadWholeNumbersAndRefuseOtherForms() {
        assertThat(Numbers.whole("k", "42")).isEqualTo(42);
        assertThat(Numbers.whole("k", "-7")).isEqualTo(-7);
        assertThat(Numbers.wholeInt("k", "+3")).isEqualTo(3);
        // Arabic-Indic digits were read as 20 by Long.parseLong; hex and exponents were refused already
        for (String other : new String[] {"\u0662\u0660", "0x14", "1e3", "2.0", "99999999999999999999", ""}) {
            assertThatThrownBy(() -> Numbers.whole("--port", other)).as(other)
                    .hasMessage("--port must be a whole number, got '" + other + "'");
        }
        assertThatThrownBy(() -> Numbers.wholeInt("maxThreads", "3000000000"))
                .hasMessage("maxThreads must be a whole number, got '3000000000'");
    }
}
