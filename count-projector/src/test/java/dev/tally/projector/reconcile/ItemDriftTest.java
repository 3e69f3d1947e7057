package dev.tally.projector.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** How far a view is from the log, item by item, and the line an operator reads. */
class ItemDriftTest {
    private static Counts counts(long up, long down, double weightedUp, double weightedDown) {
        return new Counts(up, down, weightedUp, weightedDown, new TreeMap<>());
    }

    @Test
    void weightedCountsDriftOnlyBeyondTheirTolerance() {
        ItemDrift atTolerance = new ItemDrift("post", "1", counts(1, 1, 0, 0), counts(1, 1, ItemDrift.WEIGHT_TOLERANCE,
                ItemDrift.WEIGHT_TOLERANCE), 0);
        assertThat(atTolerance.drift()).isZero();
        assertThat(atTolerance.line()).isEqualTo("post:1 up 1=1 down 1=1 reactions {}");
        ItemDrift same = new ItemDrift("post", "1", counts(2, 2, 2.5, 1.5), counts(2, 2, 2.5, 1.5), 0);
        assertThat(same.drift()).isZero();
        assertThat(same.line()).isEqualTo("post:1 up 2=2 down 2=2 reactions {}");
        ItemDrift beyond = new ItemDrift("post", "1", counts(2, 2, 2.5, 1.5), counts(2, 2, 2.0, 1.0), 0);
        assertThat(beyond.drift()).isEqualTo(2);
        assertThat(beyond.line()).isEqualTo("post:1 up 2=2 down 2=2 reactions {} weighted_up 2.5≠2.0 weighted_down 1.5≠1.0");
    }

    @Test
    void aReportSaysHowFastItReadTheLog() {
        Report.Builder builder = new Report.Builder(item -> false);
        builder.addEvents(500);
        builder.addEvents(1_500);
        assertThat(builder.events()).isEqualTo(2_000);
        assertThat(builder.build(Duration.ofSeconds(4)).eventsPerSecond()).isEqualTo(500.0);
        assertThat(builder.build(Duration.ZERO).eventsPerSecond()).isZero();
        assertThat(builder.build(Duration.ofNanos(1)).eventsPerSecond()).as("under a millisecond counts as one")
                .isEqualTo(2_000_000.0);
    }
}
