package io.fairslice.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

class RejectionPauseTest {

    private static final long NOW = Instant.parse("2026-11-27T12:00:00Z").toEpochMilli();
    private static final Duration LONG_LEFT = Duration.ofHours(2);
    private final RejectionPause pause = new RejectionPause(Duration.ofSeconds(1), Duration.ofSeconds(60));

    @Test
    void shouldWaitTheSecondsRetryAfterAsks() {
        assertThat(pause.after("7", NOW, LONG_LEFT)).isEqualTo(Duration.ofSeconds(7));
        assertThat(pause.after(" 2 ", NOW, LONG_LEFT)).isEqualTo(Duration.ofSeconds(2));
        assertThat(pause.after("0", NOW, LONG_LEFT)).as("the server says: now").isZero();
    }

    @Test
    void shouldWaitUntilAnHttpDate() {
        String inTenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                Instant.ofEpochMilli(NOW).plusSeconds(10).atOffset(ZoneOffset.UTC));
        assertThat(pause.after(inTenSeconds, NOW, LONG_LEFT)).isEqualTo(Duration.ofSeconds(10));
        assertThat(pause.after("Thu, 01 Jan 2026 00:00:00 GMT", NOW, LONG_LEFT)).as("a date gone by").isZero();
    }

    /** RFC 9110 5.6.7: a recipient accepts the obsolete forms too (only IMF-fixdate was read: the default waited). */
    @Test
    void shouldReadTheObsoleteHttpDateForms() {
        assertThat(pause.after("Friday, 27-Nov-26 12:00:20 GMT", NOW, LONG_LEFT)).as("RFC 850")
                .isEqualTo(Duration.ofSeconds(20));
        assertThat(pause.after("Fri Nov 27 12:00:30 2026", NOW, LONG_LEFT)).as("asctime")
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void shouldWaitTheDefaultWithoutAValidRetryAfter() {
        for (String invalid : new String[] {null, "", "  ", "soon", "-5", "1.5", "3s", "Friday",
            "Fri, 27 Nov 2026"}) {
            assertThat(pause.after(invalid, NOW, LONG_LEFT)).as("Retry-After: %s", invalid)
                    .isEqualTo(Duration.ofSeconds(1));
        }
    }

    @Test
    void shouldNeverWaitMoreThanTheMaxNorPastTheUsersEnd() {
        assertThat(pause.after("3600", NOW, LONG_LEFT)).isEqualTo(Duration.ofSeconds(60));
        assertThat(pause.after("99999999999999999999999", NOW, LONG_LEFT)).isEqualTo(Duration.ofSeconds(60));
        assertThat(pause.after("30", NOW, Duration.ofMillis(1500))).isEqualTo(Duration.ofMillis(1500));
        assertThat(pause.after("30", NOW, Duration.ofMillis(-20))).as("the end has passed").isZero();
        assertThat(new RejectionPause(Duration.ofSeconds(5), Duration.ofSeconds(2)).after(null, NOW, LONG_LEFT))
                .as("the max cuts the default too").isEqualTo(Duration.ofSeconds(2));
        assertThat(new RejectionPause(Duration.ofSeconds(1), Duration.ZERO).after("10", NOW, LONG_LEFT))
                .as("max 0: retry at once").isZero();
    }

    @Test
    void shouldTreat503And429AsRejections() {
        assertThat(RejectionPause.isRejection(503)).isTrue();
        assertThat(RejectionPause.isRejection(429)).isTrue();
        assertThat(RejectionPause.isRejection(500)).isFalse();
        assertThat(RejectionPause.isRejection(200)).isFalse();
    }
}
