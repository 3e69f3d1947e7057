package dev.tally.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
    @Test
    void retriesFollowTheScheduleWithinTwentyPercentThenEveryTenHours() {
        SplittableRandom random = new SplittableRandom(7);
        long[] seconds = {5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000};
        for (int failures = 1; failures <= seconds.length; failures++) {
            for (int i = 0; i < 200; i++) {
                long ms = RetrySchedule.delay(failures, Optional.empty(), random).toMillis();
                assertThat(ms).as("after %d failures", failures)
                        .isBetween(Math.round(seconds[failures - 1] * 800.0), Math.round(seconds[failures - 1] * 1200.0));
            }
        }
    }

    @Test
    void theFirstRetryWaitsAboutFiveSecondsHoweverTheFailuresAreCounted() {
        SplittableRandom random = new SplittableRandom(3);
        assertThat(RetrySchedule.delay(0, Optional.empty(), random).toMillis()).isBetween(4_000L, 6_000L);
    }

    @Test
    void jitterSpreadsTheRetries() {
        SplittableRandom random = new SplittableRandom(1);
        long low = Long.MAX_VALUE;
        long high = 0;
        for (int i = 0; i < 1000; i++) {
            long ms = RetrySchedule.delay(1, Optional.empty(), random).toMillis();
            low = Math.min(low, ms);
            high = Math.max(high, ms);
        }
        assertThat(low).isLessThan(4_200);
        assertThat(high).isGreaterThan(5_800);
    }

    @Test
    void retryAfterIsHonouredWithinItsClamp() {
        SplittableRandom random = new SplittableRandom(1);
        assertThat(RetrySchedule.delay(1, Optional.of(Duration.ofSeconds(120)), random)).isEqualTo(Duration.ofSeconds(120));
        assertThat(RetrySchedule.delay(3, Optional.of(Duration.ofSeconds(0)), random)).isEqualTo(RetrySchedule.MIN_RETRY_AFTER);
        assertThat(RetrySchedule.delay(3, Optional.of(Duration.ofDays(3)), random)).isEqualTo(RetrySchedule.MAX_RETRY_AFTER);
        assertThat(RetrySchedule.delay(3, Optional.of(Duration.ofMinutes(-1)), random)).isEqualTo(RetrySchedule.MIN_RETRY_AFTER);
    }

    @Test
    void retryAfterReadsSecondsAndHttpDates() {
        Instant now = Instant.parse("2026-12-07T10:00:00Z");
        assertThat(RetrySchedule.retryAfter("30", now)).contains(Duration.ofSeconds(30));
        assertThat(RetrySchedule.retryAfter("Mon, 07 Dec 2026 10:02:00 GMT", now)).contains(Duration.ofMinutes(2));
        assertThat(RetrySchedule.retryAfter("soon", now)).isEmpty();
        assertThat(RetrySchedule.retryAfter(null, now)).isEmpty();
        assertThat(RetrySchedule.retryAfter(" ", now)).isEmpty();
        assertThat(RetrySchedule.retryAfter(" 7 ", now)).contains(Duration.ofSeconds(7));
        assertThat(RetrySchedule.retryAfter("Mon, 07 Dec 2026 09:59:00 GMT", now)).as("a date gone by").contains(Duration.ofMinutes(-1));
    }
}
