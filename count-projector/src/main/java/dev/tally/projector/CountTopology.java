package dev.tally.projector;

import dev.tally.common.RocksDbStores;
import dev.tally.fraud.ItemWatch;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemProjection;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Namespace;
import dev.tally.schemas.Topics;
import dev.tally.schemas.WrappingSerde;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
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
 * output record, with no record cache: absorbing repeated updates between commits would cost more on votes spread
 * over many items (each written once per commit anyway) than it saves.
 *
 * <p>The store keeps each item's burst window beside its counts ({@code ItemProjection}), and the same read and write
 * apply the fraud rule for bursts ({@link ItemWatch}), whose verdicts go to {@code tally.fraud-flags}: a store of
 * its own in the fraud-detector would cost a second read, write and changelog record of the item per delta
 * (docs/decisions/0004-fraud-flags-topic.md).
 */
public final class CountTopology {
    public static final String ITEM_COUNTS_STORE = "item-counts";
    static final String SOURCE = "count-deltas-source";
    static final String FOLD = "fold-counts";
    static final String SINK = "item-counts-sink";
    static final String FLAGS_SINK = "burst-flags-sink";
    /** The store's values: an item's counts and burst window; a value written by an older version, a plain {@code ItemCounts}, reads as counts without a window. */
    static final Serde<ItemProjection> STATE_SERDE = WrappingSerde.of(ItemProjection.class, ItemCounts.class, c -> new ItemProjection(c, null));

    private CountTopology() {}

    public static Topology build(Namespace ns, ItemWatch bursts) {
        var deltas = ns.topic(Topics.COUNT_DELTAS);
        var counts = ns.topic(Topics.ITEM_COUNTS);
        var flags = ns.topic(Topics.FRAUD_FLAGS);
        Topology topology = new Topology();
        topology.addSource(SOURCE, deltas.keySerde().deserializer(), deltas.valueSerde().deserializer(), deltas.name());
        topology.addProcessor(FOLD, () -> new FoldCounts(bursts), SOURCE);
        // the store a DSL aggregate makes (timestamped, changelogged, same name), so a node's existing state carries on
        topology.addStateStore(Stores.timestampedKeyValueStoreBuilder(RocksDbStores.persistentTimestamped(ITEM_COUNTS_STORE),
                counts.keySerde(), STATE_SERDE), FOLD);
        topology.addSink(SINK, counts.name(), counts.keySerde().serializer(), counts.valueSerde().serializer(), FOLD);
        topology.addSink(FLAGS_SINK, flags.name(), flags.keySerde().serializer(), flags.valueSerde().serializer(), FOLD);
        return topology;
    }

    /** Folds each delta of a batch into its item's counts and burst window, stores both, publishes the counts and any burst flag. */
    static final class FoldCounts extends ContextualProcessor<String, CountDeltaBatch, String, SpecificRecord> {
        private final ItemWatch bursts;
        private TimestampedKeyValueStore<String, ItemProjection> store;

        FoldCounts(ItemWatch bursts) {
            this.bursts = bursts;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            super.init(context);
            store = context.getStateStore(ITEM_COUNTS_STORE);
        }

        @Override
        public void process(Record<String, CountDeltaBatch> record) {
            if (record.value() == null) {
                return;
            }
            for (CountDelta delta : record.value().getDeltas()) {
                ItemKey item = new ItemKey(delta.getItemType(), delta.getItemId());
                String key = item.toString();
                ValueAndTimestamp<ItemProjection> before = store.get(key);
                ItemProjection state = before == null ? new ItemProjection(empty(), null) : before.value();
                ItemCounts after = fold(state.getCounts(), delta);
                ItemWatch.Step burst = bursts.observe(state.getBurst(), item, delta);
                long timestamp = before == null ? record.timestamp() : Math.max(before.timestamp(), record.timestamp());
                store.put(key, ValueAndTimestamp.make(new ItemProjection(after, burst.burst()), timestamp));
                context().forward(new Record<>(key, after, timestamp), SINK);
                FraudFlag flag = burst.flag();
                if (flag != null) {
                    context().forward(new Record<>(flag.getKey(), flag, flag.getRaisedAt().toEpochMilli()), FLAGS_SINK);
                }
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
