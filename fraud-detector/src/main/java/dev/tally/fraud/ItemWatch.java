package dev.tally.fraud;

import dev.tally.schemas.ItemKey;
import dev.tally.schemas.FlagKey;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemBurst;
import dev.tally.schema.CountDelta;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per item, fed by the vote-processor's count deltas ({@code tally.count-deltas}, batched per partition of
 * the items, so no command is read or repartitioned a second time; each delta's own item is its key here): counts the commands each delta sums, at the
 * delta's latest command time, per {@code burstWindow} and keeps the running
 * mean and variance of past windows (Welford; empty windows in between count as zeros, up to 12). A
 * window whose count exceeds {@code max(burstFloor, mean + 3σ)} raises a burst flag
 * ({@code item:<type>:<id>}) for two windows: the vote-processor then holds votes from voters without
 * history (seed 000). The floor catches a fresh item hit by 40 new voters within seconds, which has no
 * history to have a mean.
 */
final class ItemWatch extends ContextualProcessor<String, CountDelta, String, FraudFlag> {
    private static final int MAX_EMPTY_WINDOWS = 12;
    private final FraudDetectorConfig config;
    private KeyValueStore<String, ItemBurst> store;

    ItemWatch(FraudDetectorConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<String, FraudFlag> context) {
        super.init(context);
        store = context.getStateStore(FraudTopology.ITEM_STORE);
    }

    @Override
    public void process(Record<String, CountDelta> record) {
        CountDelta d = record.value();
        if (d == null || d.getCommands() <= 0) { // a released vote or a reconcile correction: no new command
            return;
        }
        long now = d.getLastReceivedAt().toEpochMilli();
        long windowMs = config.burstWindow().toMillis();
        long windowStart = Math.floorDiv(now, windowMs) * windowMs;
        ItemKey item = new ItemKey(d.getItemType(), d.getItemId());
        String itemKey = item.toString();
        ItemBurst b = store.get(itemKey);
        if (b == null) {
            b = new ItemBurst(windowStart, 0, 0L, 0.0, 0.0, 0L);
        }
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
        double threshold = Math.max(config.burstFloor(), threshold(b));
        if (b.getCount() > threshold && b.getFlaggedUntil() <= now) {
            long until = windowStart + 2 * windowMs;
            b.setFlaggedUntil(until);
            String key = FlagKey.burst(item).toString();
            context().forward(new Record<>(key, new FraudFlag(key, FlagKind.BURST, b.getCount() + " votes in "
                    + config.burstWindow().toSeconds() + " s (threshold " + Math.round(threshold) + ")",
                    Instant.ofEpochMilli(now), Instant.ofEpochMilli(until)), now));
        }
        store.put(itemKey, b);
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
