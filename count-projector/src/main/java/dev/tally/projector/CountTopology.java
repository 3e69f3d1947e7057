package dev.tally.projector;

import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The count-projector topology: folds {@code tally.count-deltas} (batches of deltas, each batch's items all of
 * the record's partition) into the {@value #ITEM_COUNTS_STORE} store, which interactive queries read, and
 * publishes each item's new counts to the compacted {@code tally.item-counts}. The processor pre-aggregates
 * deltas per item (a hot item sends two per flush interval and task), so each delta is one store write and one
 * output record; the record cache that used to absorb repeated updates between commits cost more on votes spread
 * over many items (each written once per commit anyway) than it saved.
 */
public final class CountTopology {
    public static final String ITEM_COUNTS_STORE = "item-counts";
    static final String SOURCE = "count-deltas-source";
    static final String FOLD = "fold-counts";
    static final String SINK = "item-counts-sink";

    private CountTopology() {}

    public static Topology build() {
        var deltas = Topics.COUNT_DELTAS;
        var counts = Topics.ITEM_COUNTS;
        Topology topology = new Topology();
        topology.addSource(SOURCE, deltas.keySerde().deserializer(), deltas.valueSerde().deserializer(), deltas.name());
        topology.addProcessor(FOLD, FoldCounts::new, SOURCE);
        // the store the DSL's aggregate made before (timestamped, changelogged, same name): a node's existing state carries on
        topology.addStateStore(Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore(ITEM_COUNTS_STORE),
                counts.keySerde(), counts.valueSerde()), FOLD);
        topology.addSink(SINK, counts.name(), counts.keySerde().serializer(), counts.valueSerde().serializer(), FOLD);
        return topology;
    }

    /** Folds each delta of a batch into its item's counts, stores them and publishes them. */
    static final class FoldCounts extends ContextualProcessor<String, CountDeltaBatch, String, ItemCounts> {
        private TimestampedKeyValueStore<String, ItemCounts> store;

        @Override
        public void init(ProcessorContext<String, ItemCounts> context) {
            super.init(context);
            store = context.getStateStore(ITEM_COUNTS_STORE);
        }

        @Override
        public void process(Record<String, CountDeltaBatch> record) {
            if (record.value() == null) {
                return;
            }
            for (CountDelta delta : record.value().getDeltas()) {
                String key = Topics.itemKey(delta.getItemType(), delta.getItemId());
                ValueAndTimestamp<ItemCounts> before = store.get(key);
                ItemCounts after = fold(before == null ? empty() : before.value(), delta);
                long timestamp = before == null ? record.timestamp() : Math.max(before.timestamp(), record.timestamp());
                store.put(key, ValueAndTimestamp.make(after, timestamp));
                context().forward(new Record<>(key, after, timestamp));
            }
        }
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
