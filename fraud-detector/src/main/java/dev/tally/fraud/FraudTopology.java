package dev.tally.fraud;

import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemBurst;
import dev.tally.schema.NetworkActivity;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import java.util.List;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The fraud-detector topology, a Streams application of its own beside the vote path, fed by what the
 * vote-processor writes — never a second read of every command. It reads {@code tally.network-commands}, the
 * commands that carried a network, already keyed by hashed network ({@link NetworkWatch}: clustering and
 * network quotas, store {@value #NETWORK_STORE}); it reads {@code tally.count-deltas} (batches whose items all belong to the
 * record's partition) for bursts ({@link ItemWatch}, store {@value #ITEM_STORE}); it writes verdicts to the compacted {@code tally.fraud-flags}, which the ingest
 * API and the vote-processor read.
 */
public final class FraudTopology {
    public static final String NETWORK_STORE = "network-activity";
    public static final String ITEM_STORE = "item-bursts";

    private FraudTopology() {}

    public static Topology build(FraudDetectorConfig config) {
        var networks = Topics.NETWORK_COMMANDS;
        var flags = Topics.FRAUD_FLAGS;
        StreamsBuilder builder = new StreamsBuilder();
        // cached: a busy network is rewritten on every one of its votes, its changelog only once per commit
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(NETWORK_STORE),
                Serdes.String(), AvroSerde.of(NetworkActivity.class)).withCachingEnabled());
        // not cached: the processor pre-aggregates an item's deltas, so an item arrives here at most twice per delta
        // flush interval and partition and is written at most twice per commit (zipf: 0.605 changelog records per
        // vote against 0.390 cached), while the cache kept every recently voted item on the heap for seconds: at
        // 9,000 votes/s four fifths of what the young collections promoted (3.0 -> 0.6 MB/s), and with it the full
        // collections that made the paced p99 (README "`./tally bench`", the paced ceiling)
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ITEM_STORE),
                Serdes.String(), AvroSerde.of(ItemBurst.class)));
        KStream<String, VoteCommandBatch> source = builder.stream(networks.name(),
                Consumed.with(networks.keySerde(), networks.valueSerde()).withName("fraud-networks-source"));
        Produced<String, dev.tally.schema.FraudFlag> toFlags = Produced.with(flags.keySerde(), flags.valueSerde());
        source.flatMapValues(batch -> batch == null ? List.<VoteCommand>of() : batch.getCommands(), Named.as("commands"))
                .process(() -> new NetworkWatch(config), Named.as("watch-networks"), NETWORK_STORE)
                .to(flags.name(), toFlags.withName("network-flags-sink"));
        var deltas = Topics.COUNT_DELTAS;
        builder.stream(deltas.name(), Consumed.with(deltas.keySerde(), deltas.valueSerde()).withName("fraud-deltas-source"))
                .flatMapValues(batch -> batch == null ? List.<CountDelta>of() : batch.getDeltas(), Named.as("deltas"))
                .process(() -> new ItemWatch(config), Named.as("watch-items"), ITEM_STORE)
                .to(flags.name(), Produced.with(flags.keySerde(), flags.valueSerde()).withName("item-flags-sink"));
        return builder.build();
    }
}
