package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PageOutcomesTest {

    /** A page no request reached failed the run with only Gatling's "Could not find stats matching assertion path". */
    @Test
    void shouldSayWhichPagesWereNeverRequested() {
        PageOutcomes outcomes = PageOutcomes.of(true, List.of("/catalog", "/search"), true, "/report");

        assertThat(outcomes.unserved()).containsExactly(
                "fairslice loadgen: light:/catalog was never requested: the run ended before a user reached it (a"
                        + " longer duration, more users or a higher rate reaches it)",
                "fairslice loadgen: light:/search was never requested: the run ended before a user reached it (a"
                        + " longer duration, more users or a higher rate reaches it)",
                "fairslice loadgen: heavy:/report was never requested: the run ended before a user reached it (a"
                        + " longer duration, more users or a higher rate reaches it)");
        assertThat(outcomes.assertions()).as("each still fails its assertion").hasSize(3);
    }
}
