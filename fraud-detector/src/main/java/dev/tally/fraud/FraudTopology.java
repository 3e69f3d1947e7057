package dev.tally.fraud;

import dev.tally.schemas.Topics;
import java.time.Duration;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The fraud-detector topology, a Streams application of its own beside the vote path. It reads
 * {@code tally.vote-commands} (keyed by hashed voter) and keeps per-voter one-minute activity windows in
 * {@value #VOTER_ACTIVITY_STORE}. It writes nothing yet: verdicts (flags, quarantine) come with the
 * fraud work, and read these windows.
 */
public final class FraudTopology {
    public static final String VOTER_ACTIVITY_STORE = "voter-activity";

    private FraudTopology() {}

    public static Topology build() {
        var commands = Topics.VOTE_COMMANDS;
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(commands.name(), Consumed.with(commands.keySerde(), commands.valueSerde())
                        .withName("fraud-commands-source"))
                .groupByKey(Grouped.with("by-voter", commands.keySerde(), commands.valueSerde()))
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
                .count(Named.as("count-voter-activity"),
                        Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(VOTER_ACTIVITY_STORE)
                                .withKeySerde(commands.keySerde()).withRetention(Duration.ofHours(1)));
        return builder.build();
    }
}
