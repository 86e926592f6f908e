package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PagesComputeTest {

    @Test
    void shouldComputeFibonacciByRecursion() {
        assertThat(LightServlet.fibonacci(0)).isZero();
        assertThat(LightServlet.fibonacci(1)).isEqualTo(1);
        assertThat(LightServlet.fibonacci(10)).isEqualTo(55);
        assertThat(LightServlet.fibonacci(25)).isEqualTo(75025);
    }

    @Test
    void shouldCountPrimesByTrialDivision() {
        assertThat(Light2Servlet.countPrimesBelow(2)).isZero();
        assertThat(Light2Servlet.countPrimesBelow(3)).isEqualTo(1);
        assertThat(Light2Servlet.countPrimesBelow(100)).isEqualTo(25);
        assertThat(Light2Servlet.countPrimesBelow(20_000)).isEqualTo(2262);
        assertThat(Light2Servlet.countPrimesBelow(40_000)).isEqualTo(4203);
    }

    /** The heavy page's text length is in UTF-16 code units, as docs/study-app.md says (it said characters). */
    @Test
    void shouldCountTheHeavyPagesTextInUtf16CodeUnits(@TempDir Path dir) throws Exception {
        Path document = Files.writeString(dir.resolve("c.xml"),
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a x=\"1\">\u00e9\ud83d\ude00<![CDATA[ab]]></a>");

        HeavyServlet.Summary summary = new HeavyServlet(document).parseAndTraverse();

        // e-acute 1, the emoji (one character, U+1F600) 2, the CDATA section's "ab" 2
        assertThat(summary.textLength()).isEqualTo(5);
        assertThat(summary.elements()).isEqualTo(1);
        assertThat(summary.attributes()).isEqualTo(1);
    }
}
