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

    @Test
    void hotCountsFreshnessFromTheStartOf2026() {
        Instant epoch = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(Scores.hot(1, epoch)).isZero();
        assertThat(Scores.hot(10, epoch.plusSeconds(45_000))).isCloseTo(2.0, within(1e-12));
        assertThat(Scores.hot(-100, epoch)).isCloseTo(-2.0, within(1e-12));
        assertThat(Scores.hot(0.5, epoch.minusSeconds(90_000))).as("a score under 1 counts as 1").isCloseTo(-2.0, within(1e-12));
    }

    @Test
    void controversyIsTheVotesRaisedToTheirBalanceAndZeroWithoutBothKinds() {
        assertThat(Scores.controversy(50, 50)).isCloseTo(100, within(1e-9));
        assertThat(Scores.controversy(100, 1)).isCloseTo(Math.pow(101, 0.01), within(1e-12));
        assertThat(Scores.controversy(1, 100)).as("symmetric").isCloseTo(Scores.controversy(100, 1), within(1e-12));
        assertThat(Scores.controversy(30, 20)).isCloseTo(Math.pow(50, 20.0 / 30), within(1e-9));
        assertThat(Scores.controversy(10, 0)).isZero();
        assertThat(Scores.controversy(0, 10)).isZero();
        assertThat(Scores.controversy(0.1, 0.1)).as("weighted votes count by their weight").isCloseTo(0.2, within(1e-12));
        assertThat(Scores.controversy(50, 50)).as("an even split of many beats a lopsided larger pile")
                .isGreaterThan(Scores.controversy(1000, 10));
    }
}
