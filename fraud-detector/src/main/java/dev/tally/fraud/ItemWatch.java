package dev.tally.fraud;

import dev.tally.schema.CountDelta;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemBurst;
import dev.tally.schemas.FlagKey;
import dev.tally.schemas.ItemKey;
import java.time.Duration;
import java.time.Instant;

/**
 * The burst rule, per item, fed by the vote-processor's count deltas ({@code tally.count-deltas}; each delta is
 * one item's change from one command batch or flush): counts the commands each delta sums, at the delta's latest
 * command time, per {@code burstWindow} and keeps the running mean and variance of past windows (Welford; empty
 * windows in between count as zeros, up to 12). A window whose count exceeds {@code max(burstFloor, mean + 3σ)}
 * raises a burst flag ({@code item:<type>:<id>}) for two windows: the vote-processor then holds votes from voters
 * without history. The floor catches a fresh item hit by 40 new voters within seconds, which has no
 * history to have a mean.
 *
 * <p>No store of its own: it changes the {@link ItemBurst} it is given, which the count-projector — reading every
 * delta and keeping each item's state anyway — keeps beside the item's counts, in the same read and write; a store
 * of its own in the fraud-detector would cost a second read, write and changelog record of every item per delta
 * (docs/decisions/0004-fraud-flags-topic.md).
 */
public final class ItemWatch {
    private static final int MAX_EMPTY_WINDOWS = 12;
    private final Duration window;
    private final int floor;

    public ItemWatch(Duration window, int floor) {
        this.window = window;
        this.floor = floor;
    }

    public static ItemWatch of(FraudDetectorConfig config) {
        return new ItemWatch(config.burstWindow(), config.burstFloor());
    }

    /** The item's burst window after a delta, and the flag the delta raised (null if none). */
    public record Step(ItemBurst burst, FraudFlag flag) {}

    /**
     * Counts one delta of {@code item} into its window.
     *
     * @param burst the item's window before (changed in place), or null if it has none yet
     * @return the window after ({@code burst} itself unless it was null; null if it was null and the delta carries no
     *     new command: a released vote or a reconcile correction) and the flag the delta raised, if any
     */
    public Step observe(ItemBurst burst, ItemKey item, CountDelta d) {
        if (d.getCommands() <= 0) { // a released vote or a reconcile correction: no new command
            return new Step(burst, null);
        }
        long now = d.getLastReceivedAt().toEpochMilli();
        long windowMs = window.toMillis();
        long windowStart = Math.floorDiv(now, windowMs) * windowMs;
        ItemBurst b = burst != null ? burst : new ItemBurst(windowStart, 0, 0L, 0.0, 0.0, 0L);
        if (windowStart > b.getWindowStart()) {
            close(b, b.getCount());
            long empty = Math.min(MAX_EMPTY_WINDOWS, (windowStart - b.getWindowStart()) / windowMs - 1);
            for (long i = 0; i < empty; i++) {
                close(b, 0);
            }
            b.setWindowStart(windowStart);
            b.setCount(0);
        }
        b.setCount(b.getCount() + d.getCommands());
        double threshold = Math.max(floor, threshold(b));
        if (b.getCount() <= threshold || b.getFlaggedUntil() > now) {
            return new Step(b, null);
        }
        long until = windowStart + 2 * windowMs;
        b.setFlaggedUntil(until);
        String key = FlagKey.burst(item).toString();
        return new Step(b, new FraudFlag(key, FlagKind.BURST, b.getCount() + " votes in " + window.toSeconds()
                + " s (threshold " + Math.round(threshold) + ")", Instant.ofEpochMilli(now), Instant.ofEpochMilli(until)));
    }

    /** mean + 3σ of the closed windows. */
    static double threshold(ItemBurst b) {
        if (b.getWindows() < 2) {
            return b.getMean();
        }
        double variance = b.getM2() / (b.getWindows() - 1);
        return b.getMean() + 3 * Math.sqrt(variance);
    }

    /** Adds a closed window's count to the running mean and variance. */
    private static void close(ItemBurst b, int count) {
        long n = b.getWindows() + 1;
        double delta = count - b.getMean();
        double mean = b.getMean() + delta / n;
        b.setM2(b.getM2() + delta * (count - mean));
        b.setMean(mean);
        b.setWindows(n);
    }
}
