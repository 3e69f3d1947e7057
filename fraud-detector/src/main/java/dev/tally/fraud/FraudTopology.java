package dev.tally.fraud;

import dev.tally.common.RocksDbStores;
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
 * network quotas, store {@value #NETWORK_STORE}), and writes verdicts to the compacted {@code tally.fraud-flags},
 * which the ingest API and the vote-processor read. Bursts on an item ({@link ItemWatch}) are watched by the
 * count-projector, which reads every count delta and keeps each item's state anyway.
 */
public final class FraudTopology {
    public static final String NETWORK_STORE = "network-activity";

    private FraudTopology() {}

    public static Topology build(FraudDetectorConfig config) {
        var networks = config.namespace().topic(Topics.NETWORK_COMMANDS);
        var flags = config.namespace().topic(Topics.FRAUD_FLAGS);
        StreamsBuilder builder = new StreamsBuilder();
        // cached: a busy network is rewritten on every one of its votes, its changelog only once per commit
        builder.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(NETWORK_STORE),
                Serdes.String(), AvroSerde.of(NetworkActivity.class)).withCachingEnabled());
        KStream<String, VoteCommandBatch> source = builder.stream(networks.name(),
                Consumed.with(networks.keySerde(), networks.valueSerde()).withName("fraud-networks-source"));
        Produced<String, dev.tally.schema.FraudFlag> toFlags = Produced.with(flags.keySerde(), flags.valueSerde());
        source.flatMapValues(batch -> batch == null ? List.<VoteCommand>of() : batch.getCommands(), Named.as("commands"))
                .process(() -> new NetworkWatch(config), Named.as("watch-networks"), NETWORK_STORE)
                .to(flags.name(), toFlags.withName("network-flags-sink"));
        return builder.build();
    }
}
