package dev.tally.fraud;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CountDelta;
import dev.tally.schema.FlagKind;
import dev.tally.schema.ItemBurst;
import dev.tally.schemas.ItemKey;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The burst rule exactly: a window raises a flag when its count exceeds max(floor, mean + 3σ) of the closed windows
 * (Welford's running mean and sample variance, empty windows counted as zeros up to 12), for two windows, once. The
 * same rule through the count-projector's topology: {@code BurstWatchTest}.
 */
class ItemWatchTest {
    private static final Duration WINDOW = Duration.ofMinutes(5);
    private static final long W = WINDOW.toMillis();
    private static final long T0 = Instant.parse("2026-11-30T10:00:00Z").toEpochMilli(); // a window boundary
    private static final ItemKey ITEM = new ItemKey("post", "x");
    private final ItemWatch watch = new ItemWatch(WINDOW, 30);

    @Test
    void twoEqualWindowsHaveNoSpreadSoTheThresholdIsTheirMean() {
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 2L, 10.0, 0.0, 0L))).isEqualTo(10.0);
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 1L, 10.0, 0.0, 0L))).as("one window: its mean").isEqualTo(10.0);
    }

    @Test
    void theThresholdIsTheMeanPlusThreeSampleStandardDeviations() {
        // windows 10, 20, 30: mean 20, squared deviations 100 + 0 + 100 = 200, sample variance 200 / 2 = 100, σ 10
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 3L, 20.0, 200.0, 0L))).isEqualTo(50.0);
        // windows 0, 0, 0, 40: mean 10, squared deviations 100 · 3 + 900 = 1200, variance 400, σ 20
        assertThat(ItemWatch.threshold(new ItemBurst(0L, 0, 4L, 10.0, 1200.0, 0L))).isEqualTo(70.0);
    }

    @Test
    void closingWindowsKeepsTheRunningMeanAndVarianceOfTheirCounts() {
        ItemWatch low = new ItemWatch(WINDOW, 1_000);
        ItemBurst b = null;
        int[] counts = {10, 20, 30};
        for (int i = 0; i < counts.length; i++) {
            b = low.observe(b, ITEM, delta(counts[i], T0 + i * W + 1)).burst();
        }
        b = low.observe(b, ITEM, delta(1, T0 + 3 * W + 1)).burst(); // opens the fourth window, closing the third
        assertThat(b.getWindows()).isEqualTo(3);
        assertThat(b.getMean()).isEqualTo(20.0);
        assertThat(b.getM2()).isEqualTo(200.0);
        assertThat(b.getCount()).isEqualTo(1);
        assertThat(b.getWindowStart()).isEqualTo(T0 + 3 * W);
    }

    @Test
    void aWindowAtTheThresholdIsNoBurstAndOneVoteMoreIs() {
        ItemWatch low = new ItemWatch(WINDOW, 1);
        ItemBurst history = history(low, 10, 20, 30); // threshold 50 for the fourth window
        ItemWatch.Step at = low.observe(copy(history), ITEM, delta(50, T0 + 3 * W + 2));
        assertThat(at.flag()).as("50 votes: at the threshold").isNull();
        ItemWatch.Step over = low.observe(at.burst(), ITEM, delta(1, T0 + 3 * W + 3));
        assertThat(over.flag()).as("51 votes: over it").isNotNull();
        assertThat(over.flag().getKey()).isEqualTo("item:post:x");
        assertThat(over.flag().getKind()).isEqualTo(FlagKind.BURST);
        assertThat(over.flag().getReason()).isEqualTo("51 votes in 300 s (threshold 50)");
        assertThat(over.flag().getExpiresAt()).as("two windows from the window's start")
                .isEqualTo(Instant.ofEpochMilli(T0 + 5 * W));
        assertThat(over.flag().getRaisedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 3 * W + 3));
        assertThat(low.observe(over.burst(), ITEM, delta(100, T0 + 3 * W + 4)).flag()).as("flagged already").isNull();
        assertThat(low.observe(copy(over.burst()), ITEM, delta(1_000, T0 + 5 * W - 1)).flag())
                .as("a burst in the flag's last millisecond: still flagged").isNull();
        assertThat(low.observe(copy(over.burst()), ITEM, delta(1_000, T0 + 5 * W)).flag())
                .as("a burst as the flag ends: flagged again").isNotNull();
    }

    @Test
    void theFloorHoldsWhereTheHistoryIsThin() {
        ItemWatch.Step at = watch.observe(null, ITEM, delta(30, T0 + 1));
        assertThat(at.flag()).as("a fresh item at the floor").isNull();
        assertThat(at.burst().getCount()).isEqualTo(30);
        assertThat(watch.observe(at.burst(), ITEM, delta(1, T0 + 2)).flag()).as("one over the floor").isNotNull();
        ItemBurst quiet = history(watch, 1, 1, 1); // mean + 3σ is 1: the floor of 30 decides
        assertThat(watch.observe(copy(quiet), ITEM, delta(30, T0 + 3 * W + 1)).flag()).isNull();
        assertThat(watch.observe(copy(quiet), ITEM, delta(31, T0 + 3 * W + 1)).flag()).isNotNull();
    }

    @Test
    void emptyWindowsCountAsZerosUpToTwelve() {
        ItemWatch low = new ItemWatch(WINDOW, 1_000);
        ItemBurst b = low.observe(null, ITEM, delta(12, T0 + 1)).burst();
        b = low.observe(b, ITEM, delta(1, T0 + 4 * W + 1)).burst(); // windows 1–3 passed empty
        assertThat(b.getWindows()).isEqualTo(4);
        assertThat(b.getMean()).isEqualTo(3.0);
        b = low.observe(b, ITEM, delta(1, T0 + 100 * W + 1)).burst(); // 95 empty windows: twelve of them count
        assertThat(b.getWindows()).isEqualTo(4 + 1 + 12);
        assertThat(b.getMean()).isCloseTo(13.0 / 17, org.assertj.core.api.Assertions.within(1e-12));
    }

    @Test
    void aDeltaWithoutNewCommandsChangesNothing() {
        assertThat(watch.observe(null, ITEM, delta(0, T0)).burst()).isNull();
        ItemBurst b = watch.observe(null, ITEM, delta(5, T0 + 1)).burst();
        ItemWatch.Step none = watch.observe(b, ITEM, delta(0, T0 + 10 * W));
        assertThat(none.burst().getCount()).isEqualTo(5);
        assertThat(none.burst().getWindowStart()).isEqualTo(T0);
        assertThat(none.flag()).isNull();
        assertThat(watch.observe(b, ITEM, delta(-1, T0 + 2)).burst().getCount()).isEqualTo(5);
    }

    /** Windows of these counts, closed: the state as the next window opens. */
    private static ItemBurst history(ItemWatch watch, int... counts) {
        ItemBurst b = null;
        for (int i = 0; i < counts.length; i++) {
            b = watch.observe(b, ITEM, delta(counts[i], T0 + i * W + 1)).burst();
        }
        return b;
    }

    private static ItemBurst copy(ItemBurst b) {
        return ItemBurst.newBuilder(b).build();
    }

    private static CountDelta delta(int commands, long at) {
        return CountDelta.newBuilder().setItemType(ITEM.type()).setItemId(ITEM.id()).setSourcePartition(0).setThroughOffset(0)
                .setCommands(commands).setFirstReceivedAt(Instant.ofEpochMilli(at)).setLastReceivedAt(Instant.ofEpochMilli(at))
                .build();
    }
}
