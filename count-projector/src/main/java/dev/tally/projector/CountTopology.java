package dev.tally.projector;

import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The count-projector topology: folds {@code tally.count-deltas} (keyed by item) into the
 * {@value #ITEM_COUNTS_STORE} store, which interactive queries read, and publishes the latest counts to
 * the compacted {@code tally.item-counts}. The record cache absorbs repeated updates of an item between
 * commits, so a hot item costs one store write and one output record per commit.
 */
public final class CountTopology {
    public static final String ITEM_COUNTS_STORE = "item-counts";

    private CountTopology() {}

    public static Topology build() {
        var deltas = Topics.COUNT_DELTAS;
        var counts = Topics.ITEM_COUNTS;
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(deltas.name(), Consumed.with(deltas.keySerde(), deltas.valueSerde()).withName("count-deltas-source"))
                .groupByKey(Grouped.with("by-item", deltas.keySerde(), deltas.valueSerde()))
                .aggregate(CountTopology::empty, (item, delta, total) -> fold(total, delta), Named.as("fold-counts"),
                        Materialized.<String, ItemCounts, KeyValueStore<Bytes, byte[]>>as(ITEM_COUNTS_STORE)
                                .withKeySerde(counts.keySerde()).withValueSerde(counts.valueSerde()))
                .toStream(Named.as("item-counts-changes"))
                .to(counts.name(), Produced.with(counts.keySerde(), counts.valueSerde()).withName("item-counts-sink"));
        return builder.build();
    }

    static ItemCounts empty() {
        return ItemCounts.newBuilder().setItemType("").setItemId("").setReactions(new HashMap<>())
                .setWatermarks(new HashMap<>()).setFirstVoteAt(Instant.EPOCH).setUpdatedAt(Instant.EPOCH).build();
    }

    /**
     * Adds one delta to the running counts and advances the watermark of the delta's source partition.
     * Times come from the delta's commands, never from this clock, so a replay of the deltas gives the same
     * view (and the same hot ranks); a delta without times (a reconcile correction) leaves them as they are.
     */
    static ItemCounts fold(ItemCounts total, CountDelta delta) {
        Map<String, Long> reactions = new HashMap<>(total.getReactions());
        delta.getReactions().forEach((code, n) -> reactions.merge(code, n, Long::sum));
        reactions.values().removeIf(n -> n == 0);
        Map<String, Long> watermarks = new HashMap<>(total.getWatermarks());
        if (delta.getSourcePartition() >= 0) { // a reconcile correction (-1) reflects no command offset
            watermarks.merge(Integer.toString(delta.getSourcePartition()), delta.getThroughOffset(), Math::max);
        }
        Instant first = delta.getFirstReceivedAt();
        Instant firstVoteAt = total.getFirstVoteAt().equals(Instant.EPOCH)
                || (!first.equals(Instant.EPOCH) && first.isBefore(total.getFirstVoteAt())) ? first : total.getFirstVoteAt();
        Instant updatedAt = delta.getLastReceivedAt().isAfter(total.getUpdatedAt()) ? delta.getLastReceivedAt()
                : total.getUpdatedAt();
        return ItemCounts.newBuilder()
                .setItemType(delta.getItemType()).setItemId(delta.getItemId())
                .setUpvotes(total.getUpvotes() + delta.getUpvotes())
                .setDownvotes(total.getDownvotes() + delta.getDownvotes())
                .setWeightedUp(total.getWeightedUp() + delta.getWeightedUp())
                .setWeightedDown(total.getWeightedDown() + delta.getWeightedDown())
                .setReactions(reactions).setWatermarks(watermarks)
                .setFirstVoteAt(firstVoteAt).setUpdatedAt(updatedAt)
                .build();
    }
}
