package dev.tally.fraud;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.ItemBurst;
import org.junit.jupiter.api.Test;

/** The burst threshold's edge; the rule's windows run through the count-projector ({@code BurstWatchTest}). */
class ItemWatchTest {
    @Test
    void twoEqualWindowsHaveNoSpreadSoTheThresholdIsTheirMean() {
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 2L, 10.0, 0.0, 0L))).isEqualTo(10.0);
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 1L, 10.0, 0.0, 0L))).as("one window: its mean").isEqualTo(10.0);
    }
}
