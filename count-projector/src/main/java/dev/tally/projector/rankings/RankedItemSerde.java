package dev.tally.projector.rankings;

import dev.tally.common.ranking.RankedItem;
import dev.tally.common.ranking.RankingWindow;
import dev.tally.common.ranking.WindowedScore;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A {@link RankedItem} in the rankings' item store and its changelog: fixed-width numbers behind a version byte.
 * The store is private to the ranking topology and rebuilt from the event log by a replay, so it has no published
 * schema; a version it does not know is refused rather than misread.
 */
final class RankedItemSerde implements Serde<RankedItem>, Serializer<RankedItem>, Deserializer<RankedItem> {
    private static final byte VERSION = 1;
    private static final RankingWindow[] WINDOWS = RankingWindow.values();

    @Override
    public byte[] serialize(String topic, RankedItem item) {
        if (item == null) {
            return null;
        }
        Map<RankingWindow, SortedMap<Long, double[]>> buckets = item.scores().buckets();
        int size = 1 + 8 * 7 + 1;
        for (SortedMap<Long, double[]> b : buckets.values()) {
            size += 1 + 4 + 20 * b.size();
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(VERSION)
                .putLong(item.upvotes()).putLong(item.downvotes())
                .putDouble(item.weightedUp()).putDouble(item.weightedDown())
                .putLong(item.firstVoteAt() == null ? Long.MIN_VALUE : item.firstVoteAt().toEpochMilli())
                .putDouble(item.scores().all())
                .putLong(item.placedAt() == null ? Long.MIN_VALUE : item.placedAt().toEpochMilli());
        out.put((byte) buckets.size());
        buckets.forEach((window, b) -> {
            out.put((byte) window.ordinal()).putInt(b.size());
            b.forEach((bucket, sum) -> out.putLong(bucket).putDouble(sum[0]).putInt((int) sum[1]));
        });
        return out.array();
    }

    @Override
    public RankedItem deserialize(String topic, byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte version = in.get();
        if (version != VERSION) {
            throw new IllegalStateException("a ranked item of version " + version + " is not one this version reads ("
                    + VERSION + "): rebuild the rankings");
        }
        long up = in.getLong();
        long down = in.getLong();
        double weightedUp = in.getDouble();
        double weightedDown = in.getDouble();
        long first = in.getLong();
        double all = in.getDouble();
        long placed = in.getLong();
        Map<RankingWindow, Map<Long, double[]>> buckets = new EnumMap<>(RankingWindow.class);
        int windows = in.get();
        for (int w = 0; w < windows; w++) {
            RankingWindow window = WINDOWS[in.get()];
            int n = in.getInt();
            TreeMap<Long, double[]> b = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                b.put(in.getLong(), new double[] {in.getDouble(), in.getInt()});
            }
            buckets.put(window, b);
        }
        return new RankedItem(up, down, weightedUp, weightedDown, first == Long.MIN_VALUE ? null : Instant.ofEpochMilli(first),
                WindowedScore.of(all, buckets), placed == Long.MIN_VALUE ? null : Instant.ofEpochMilli(placed));
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
    }

    @Override
    public void close() {
    }

    @Override
    public Serializer<RankedItem> serializer() {
        return this;
    }

    @Override
    public Deserializer<RankedItem> deserializer() {
        return this;
    }
}
