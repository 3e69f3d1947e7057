package dev.tally.processor;

import dev.tally.common.RocksDbStores;
import dev.tally.schema.CountDelta;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schema.VoterQuota;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Namespace;
import dev.tally.schemas.Topics;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.Stores;

/**
 * The vote-processor topology: reads {@code tally.vote-commands} (command batches, keyed by hashed voter) and the global
 * tables {@code tally.reaction-types} and {@code tally.item-catalog}, resolves each command in the
 * {@value #VOTER_ITEM_STORE} store (voter|item → one record: state, weight, the offset of its last change,
 * for read-your-writes, and what the voter sees while votes of theirs there are held) with idempotency keys in
 * {@value #IDEMPOTENCY_STORE} (voter|key → first answer) and per-voter limits in {@value #VOTER_QUOTAS_STORE},
 * and writes
 * {@code tally.vote-events} (keyed by item), {@code tally.count-deltas} (pre-aggregated per item, batched per
 * partition, keyed by the batch's first item), {@code tally.vote-outcomes} (to the partition the waiting API reads) and {@code tally.network-commands}
 * (the commands that carried a network, keyed by it, for the fraud-detector). All values Avro.
 */
public final class VoteTopology {
    public static final String VOTER_ITEM_STORE = "voter-item-state";
    public static final String VOTER_ITEM_WEIGHTS_STORE = "voter-item-weights";
    public static final String PENDING_DELTAS_STORE = "pending-deltas";
    public static final String IDEMPOTENCY_STORE = "idempotency-keys";
    public static final String VOTER_QUOTAS_STORE = "voter-quotas";
    public static final String REACTION_TYPES_STORE = "reaction-types";
    public static final String ITEM_CATALOG_STORE = "item-catalog";
    public static final String FRAUD_FLAGS_STORE = "fraud-flags";
    public static final String HELD_STORE = "held-commands";
    public static final String HELD_STATE_STORE = "held-voter-item-state";
    public static final String HELD_QUEUE_STORE = "held-voter-item-queue";
    static final String DECISIONS_SOURCE = "quarantine-decisions-source";
    static final String QUARANTINE_SINK = "quarantine-sink";
    static final String SOURCE = "vote-commands-source";
    static final String RESOLVER = "resolve-vote";
    static final String EVENTS_SINK = "vote-events-sink";
    static final String DELTAS_SINK = "count-deltas-sink";
    static final String OUTCOMES_SINK = "vote-outcomes-sink";
    static final String NETWORK_SINK = "network-commands-sink";

    private VoteTopology() {}

    /** @param deltaPartitions the partitions of {@code tally.count-deltas}: each delta batch holds one partition's items */
    public static Topology build(VoteProcessorConfig config, int deltaPartitions) {
        Namespace ns = config.namespace();
        var commands = ns.topic(Topics.VOTE_COMMANDS);
        Topology topology = new Topology();
        addGlobalTable(topology, ns.topic(Topics.REACTION_TYPES), REACTION_TYPES_STORE);
        addGlobalTable(topology, ns.topic(Topics.ITEM_CATALOG), ITEM_CATALOG_STORE);
        addGlobalTable(topology, ns.topic(Topics.FRAUD_FLAGS), FRAUD_FLAGS_STORE);
        topology.addSource(SOURCE, commands.keySerde().deserializer(), commands.valueSerde().deserializer(),
                commands.name());
        // decisions are keyed by voter like the commands (co-partitioned), so they reach the task holding the vote
        var decisions = ns.topic(Topics.QUARANTINE_DECISIONS);
        topology.addSource(DECISIONS_SOURCE, decisions.keySerde().deserializer(), decisions.valueSerde().deserializer(),
                decisions.name());
        topology.addProcessor(RESOLVER, () -> new VoteResolver(config, deltaPartitions), SOURCE, DECISIONS_SOURCE);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(HELD_STORE),
                Serdes.String(), AvroSerde.of(QuarantineRecord.class)), RESOLVER);
        // legacy: what voters saw of their held votes before the voter-item record held it (emptied as a task first runs)
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(HELD_STATE_STORE),
                Serdes.String(), AvroSerde.of(VoterItemState.class)), RESOLVER);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(HELD_QUEUE_STORE),
                Serdes.String(), Serdes.String()), RESOLVER);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(VOTER_QUOTAS_STORE),
                Serdes.String(), AvroSerde.of(VoterQuota.class)), RESOLVER);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(IDEMPOTENCY_STORE),
                Serdes.String(), AvroSerde.of(IdempotencyRecord.class)), RESOLVER);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(VOTER_ITEM_STORE),
                Serdes.String(), AvroSerde.of(VoterItem.class)), RESOLVER);
        // legacy: weights below 1.0 of votes stored before the voter-item record carried its weight
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(VOTER_ITEM_WEIGHTS_STORE),
                Serdes.String(), Serdes.Double()), RESOLVER);
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(PENDING_DELTAS_STORE),
                Serdes.String(), AvroSerde.of(CountDelta.class)).withCachingEnabled(), RESOLVER);
        topology.addSink(EVENTS_SINK, ns.topic(Topics.VOTE_EVENTS).name(), Serdes.String().serializer(),
                Topics.VOTE_EVENTS.valueSerde().serializer(), RESOLVER);
        topology.addSink(DELTAS_SINK, ns.topic(Topics.COUNT_DELTAS).name(), Serdes.String().serializer(),
                Topics.COUNT_DELTAS.valueSerde().serializer(), RESOLVER);
        topology.addSink(NETWORK_SINK, ns.topic(Topics.NETWORK_COMMANDS).name(), Serdes.String().serializer(),
                Topics.NETWORK_COMMANDS.valueSerde().serializer(), RESOLVER);
        topology.addSink(QUARANTINE_SINK, ns.topic(Topics.QUARANTINE).name(), Serdes.String().serializer(),
                Topics.QUARANTINE.valueSerde().serializer(), RESOLVER);
        topology.addSink(OUTCOMES_SINK, ns.topic(Topics.VOTE_OUTCOMES).name(), Serdes.String().serializer(),
                Topics.VOTE_OUTCOMES.valueSerde().serializer(), new ReplyPartitioner(), RESOLVER);
        return topology;
    }

    /**
     * A read-only copy of a compacted topic in every instance, kept by {@link GlobalStoreUpdater}. In memory:
     * registry, catalogue and flags are small and read on every vote, and are rebuilt from their topics at start.
     */
    private static <V> void addGlobalTable(Topology topology, Topic<String, V> topic, String storeName) {
        topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(storeName),
                        topic.keySerde(), topic.valueSerde()).withLoggingDisabled(),
                storeName + "-source", topic.keySerde().deserializer(), topic.valueSerde().deserializer(),
                topic.name(), storeName + "-updater", () -> new GlobalStoreUpdater<V>(storeName));
    }

    /** Sends each outcome to the partition its API instance reads. */
    static final class ReplyPartitioner implements StreamPartitioner<String, VoteOutcomeBatch> {
        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, VoteOutcomeBatch value, int numPartitions) {
            return Optional.of(Set.of(Math.floorMod(value.getOutcomes().get(0).getReplyPartition(), numPartitions)));
        }
    }
}
