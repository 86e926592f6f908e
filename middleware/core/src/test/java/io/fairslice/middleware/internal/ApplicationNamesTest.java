package io.fairslice.middleware.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApplicationNamesTest {

    private final Object a = new Object();
    private final Object b = new Object();
    private final Object c = new Object();

    @Test
    void shouldGiveTheContextPathThenTheHostThenANumber() {
        try {
            assertThat(ApplicationNames.claim("/names-test", "one", a, n -> false)).isEqualTo("/names-test");
            assertThat(ApplicationNames.claim("/names-test", "two", b, n -> false)).isEqualTo("two/names-test");
            assertThat(ApplicationNames.claim("/names-test", "one", c, n -> false)).isEqualTo("/names-test#2");
        } finally {
            ApplicationNames.release("/names-test", a);
            ApplicationNames.release("two/names-test", b);
            ApplicationNames.release("/names-test#2", c);
        }
        assertThat(ApplicationNames.claim("/names-test", "one", a, n -> false)).as("released").isEqualTo("/names-test");
        ApplicationNames.release("/names-test", a);
    }

    @Test
    void shouldSkipANameInUseOutsideItsOwnClaimsAndReleaseOnlyTheOwnersName() {
        String name = ApplicationNames.claim("/names-test2", "one", a, n -> n.equals("/names-test2"));
        assertThat(name).isEqualTo("/names-test2#2");
        ApplicationNames.release(name, b); // not b's
        assertThat(ApplicationNames.claim("/names-test2", "one", c, n -> n.equals("/names-test2")))
                .isEqualTo("/names-test2#3");
        ApplicationNames.release(name, a);
        ApplicationNames.release("/names-test2#3", c);
    }
}
