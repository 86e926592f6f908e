package io.fairslice.loadgen;

import io.netty.handler.codec.DateFormatter;
import java.time.Duration;
import java.util.Date;

/**
 * How long a closed-loop client waits after the server shed its request, before it sends the next one: what the
 * answer's {@code Retry-After} asks (RFC 9110 section 10.2.3: whole seconds, or an HTTP date in any of its three
 * forms), {@code fallback} when it has none or one that is not valid, never more than {@code max}, and never past the
 * client's own end. A client that retried at once would turn a server's shedding into a hot loop of cheap rejections,
 * which is neither what a well-behaved client does nor a load worth measuring.
 *
 * @param fallback the pause when the answer has no valid Retry-After ({@code retryAfterDefault})
 * @param max      the longest pause, whatever the server asks ({@code retryAfterMax}); 0 retries at once
 */
public record RejectionPause(Duration fallback, Duration max) {

    /** The statuses a shedding server answers: 503 (fairslice, with Retry-After) and 429 (Netflix's limiter). */
    public static boolean isRejection(int status) {
        return status == 503 || status == 429;
    }

    public RejectionPause {
        if (fallback.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("pauses must not be negative, got " + fallback + " and " + max);
        }
    }

    /**
     * The pause after a rejection.
     *
     * @param retryAfter the answer's Retry-After, or null when it had none
     * @param nowMillis  the wall clock (an HTTP date is read against it)
     * @param left       how long the client still runs (never waited past)
     */
    public Duration after(String retryAfter, long nowMillis, Duration left) {
        Duration asked = parse(retryAfter, nowMillis);
        Duration pause = asked == null ? fallback : asked;
        pause = pause.compareTo(max) > 0 ? max : pause;
        pause = pause.compareTo(left) > 0 ? left : pause;
        return pause.isNegative() ? Duration.ZERO : pause;
    }

    /** Retry-After's delay, or null when {@code value} is absent or neither whole seconds nor an HTTP date. */
    static Duration parse(String value, long nowMillis) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.isEmpty()) {
            return null;
        }
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // more digits than a long holds is still "a long time": the caller's max cuts it
            return v.length() > 12 ? Duration.ofSeconds(999_999_999_999L) : Duration.ofSeconds(Long.parseLong(v));
        }
        // IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept too (RFC 9110 5.6.7)
        Date at = DateFormatter.parseHttpDate(v);
        return at == null ? null : Duration.ofMillis(Math.max(0, at.getTime() - nowMillis));
    }
}
