package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tally.common.query.Scores;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ScoresTest {

    @Test
    void wilsonMatchesHandComputedCases() {
        assertThat(Scores.wilsonLowerBound(1, 1, Scores.Z95)).isCloseTo(0.2065, within(0.0005));
        assertThat(Scores.wilsonLowerBound(900, 1000, Scores.Z95)).isCloseTo(0.8797, within(0.0005));
        assertThat(Scores.wilsonLowerBound(0, 0, Scores.Z95)).isZero();
        assertThat(Scores.wilsonLowerBound(0, 10, Scores.Z95)).isCloseTo(0, within(1e-12));
    }

    @Test
    void oneLuckyVoteRanksBelowALongGoodRecord() {
        assertThat(Scores.wilsonLowerBound(1, 1, Scores.Z95)).isLessThan(Scores.wilsonLowerBound(900, 1000, Scores.Z95));
    }

    @Test
    void hotTradesTenTimesTheScoreForTwelveAndAHalfHours() {
        Instant t = Instant.parse("2026-06-01T00:00:00Z");
        double older = Scores.hot(1000, t);
        double newer = Scores.hot(100, t.plusSeconds(45_000));

        assertThat(newer).isCloseTo(older, within(1e-9));
        assertThat(Scores.hot(-50, t)).isLessThan(Scores.hot(0, t));
    }
}
