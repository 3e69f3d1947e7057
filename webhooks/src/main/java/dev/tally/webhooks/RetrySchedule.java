package dev.tally.webhooks;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a failed delivery is tried again, as Svix does it: after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h,
 * each ±20 % so receivers coming back are not hit by every sender at once; after the last, every 10 h until the
 * subscription has failed for {@link #DISABLE_AFTER} and is disabled. A receiver's {@code Retry-After} (seconds or
 * an HTTP date, already turned into a delay) is honoured, clamped to {@link #MIN_RETRY_AFTER}–{@link #MAX_RETRY_AFTER}.
 */
public final class RetrySchedule {
    public static final List<Duration> DELAYS = List.of(Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofMinutes(30),
            Duration.ofHours(2), Duration.ofHours(5), Duration.ofHours(10), Duration.ofHours(10));
    public static final double JITTER = 0.2;
    public static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);
    public static final Duration MAX_RETRY_AFTER = Duration.ofHours(10);
    /** A subscription whose deliveries have all failed for this long is disabled. */
    public static final Duration DISABLE_AFTER = Duration.ofDays(5);

    private RetrySchedule() {}

    /**
     * The wait before the next attempt after {@code failures} failed attempts in a row (1 after the first), or the
     * receiver's {@code Retry-After} when it gave one.
     */
    public static Duration delay(int failures, Optional<Duration> retryAfter, RandomGenerator random) {
        if (retryAfter.isPresent()) {
            long asked = retryAfter.get().toMillis();
            return Duration.ofMillis(Math.max(MIN_RETRY_AFTER.toMillis(), Math.min(MAX_RETRY_AFTER.toMillis(), asked)));
        }
        Duration base = DELAYS.get(Math.min(Math.max(failures, 1), DELAYS.size()) - 1);
        double factor = 1 - JITTER + random.nextDouble() * 2 * JITTER;
        return Duration.ofMillis(Math.round(base.toMillis() * factor));
    }

    /** {@code Retry-After} as seconds or an HTTP date; empty when absent or unreadable. */
    public static Optional<Duration> retryAfter(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Duration.ofSeconds(Long.parseLong(value.trim())));
        } catch (NumberFormatException e) {
            try {
                Instant at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return Optional.of(Duration.between(now, at));
            } catch (RuntimeException unreadable) {
                return Optional.empty();
            }
        }
    }
}
