package dev.tally.fraud;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;

class FraudTopologyTest {

    @Test
    void shouldCountEachVotersCommandsPerMinuteWindow() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fraud-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        try (TopologyTestDriver driver = new TopologyTestDriver(FraudTopology.build(), props)) {
            var in = driver.createInputTopic(Topics.VOTE_COMMANDS.name(), Topics.VOTE_COMMANDS.keySerde().serializer(),
                    Topics.VOTE_COMMANDS.valueSerde().serializer());
            Instant t0 = Instant.parse("2026-11-30T10:00:00Z");
            for (int i = 0; i < 3; i++) {
                in.pipeInput("v1", command("v1", t0), t0.plusSeconds(i));
            }
            in.pipeInput("v2", command("v2", t0), t0.plusSeconds(5));
            in.pipeInput("v1", command("v1", t0), t0.plusSeconds(61));
            in.pipeInput("v3", command("v3", t0), t0.plusSeconds(10)); // its window closed: dropped, no grace

            WindowStore<String, Long> store = driver.getWindowStore(FraudTopology.VOTER_ACTIVITY_STORE);
            assertThat(store.fetch("v1", t0.toEpochMilli())).isEqualTo(3L);
            assertThat(store.fetch("v1", t0.plusSeconds(60).toEpochMilli())).isEqualTo(1L);
            assertThat(store.fetch("v2", t0.toEpochMilli())).isEqualTo(1L);
            assertThat(store.fetch("v3", t0.toEpochMilli())).isNull();
        }
    }

    private static VoteCommand command(String voter, Instant at) {
        return VoteCommand.newBuilder().setCommandId("c").setVoter(voter).setItemType("post").setItemId("1")
                .setAction(CommandAction.VOTE).setVoteValue(1).setReceivedAt(at).build();
    }
}
