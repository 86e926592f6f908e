package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}
