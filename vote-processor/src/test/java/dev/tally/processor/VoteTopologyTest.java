package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.CountDelta;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VoteTopologyTest {
    private static final Duration FLUSH = Duration.ofMillis(100);
    static final VoteProcessorConfig CONFIG =
            new VoteProcessorConfig("test", Duration.ofMillis(100), FLUSH, Duration.ofHours(24), 1, false);
    private TopologyTestDriver driver;
    private TestInputTopic<String, VoteCommand> commands;
    private TestOutputTopic<String, VoteEvent> events;
    private TestOutputTopic<String, CountDelta> deltas;
    private TestOutputTopic<String, VoteOutcome> outcomes;

    @BeforeEach
    void setUp() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "vote-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(VoteTopology.build(CONFIG), props, Instant.parse("2026-11-30T00:00:00Z"));
        commands = driver.createInputTopic(Topics.VOTE_COMMANDS.name(), Topics.VOTE_COMMANDS.keySerde().serializer(),
                Topics.VOTE_COMMANDS.valueSerde().serializer());
        events = driver.createOutputTopic(Topics.VOTE_EVENTS.name(), Topics.VOTE_EVENTS.keySerde().deserializer(),
                Topics.VOTE_EVENTS.valueSerde().deserializer());
        deltas = driver.createOutputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().deserializer(),
                Topics.COUNT_DELTAS.valueSerde().deserializer());
        outcomes = driver.createOutputTopic(Topics.VOTE_OUTCOMES.name(),
                Topics.VOTE_OUTCOMES.keySerde().deserializer(), Topics.VOTE_OUTCOMES.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    static VoteCommand vote(String voter, String item, int value, VoteMode mode) {
        return VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                .setItemType("post").setItemId(item).setAction(CommandAction.VOTE).setVoteValue(value)
                .setMode(mode).setReplyPartition(0).setReceivedAt(Instant.parse("2026-11-30T00:00:00Z")).build();
    }

    private VoteOutcome send(VoteCommand c) {
        commands.pipeInput(c.getVoter(), c);
        return outcomes.readValue();
    }

    @Test
    void shouldAcceptAFirstVoteAndEmitEventOutcomeAndDelta() {
        VoteOutcome outcome = send(vote("v1", "1", 1, VoteMode.TOGGLE));

        assertThat(outcome.getOutcome()).isEqualTo(Outcome.ACCEPTED);
        assertThat(outcome.getAfter().getVote()).isEqualTo(1);
        VoteEvent event = events.readValue();
        assertThat(event.getBefore().getVote()).isZero();
        assertThat(event.getAfter().getVote()).isEqualTo(1);
        assertThat(event.getSourceOffset()).isEqualTo(outcome.getSourceOffset());
        assertThat(deltas.isEmpty()).as("deltas wait for the flush").isTrue();

        driver.advanceWallClockTime(FLUSH);

        var delta = deltas.readKeyValue();
        assertThat(delta.key).isEqualTo("post:1");
        assertThat(delta.value.getUpvotes()).isEqualTo(1);
        assertThat(delta.value.getThroughOffset()).isEqualTo(outcome.getSourceOffset());
    }

    @Test
    void shouldRetractWhenSameVoteRepeatedInToggleMode() {
        send(vote("v1", "1", 1, VoteMode.TOGGLE));
        VoteOutcome second = send(vote("v1", "1", 1, VoteMode.TOGGLE));

        assertThat(second.getOutcome()).isEqualTo(Outcome.RETRACTED);
        assertThat(second.getAfter().getVote()).isZero();
        driver.advanceWallClockTime(FLUSH);
        CountDelta delta = deltas.readValue();
        assertThat(delta.getUpvotes()).as("on and off within one batch nets to zero").isZero();
        assertThat(deltas.isEmpty()).isTrue();
    }

    @Test
    void shouldChangeDirectionMovingBothCountersInOneDelta() {
        send(vote("v1", "1", 1, VoteMode.TOGGLE));
        driver.advanceWallClockTime(FLUSH);
        deltas.readValue();

        VoteOutcome changed = send(vote("v1", "1", -1, VoteMode.TOGGLE));
        driver.advanceWallClockTime(FLUSH);

        assertThat(changed.getOutcome()).isEqualTo(Outcome.CHANGED);
        CountDelta delta = deltas.readValue();
        assertThat(delta.getUpvotes()).isEqualTo(-1);
        assertThat(delta.getDownvotes()).isEqualTo(1);
    }

    @Test
    void shouldLeaveStateAndCountsAloneWhenSameVoteRepeatedInSetMode() {
        send(vote("v1", "1", 1, VoteMode.SET));
        events.readValue();
        VoteOutcome again = send(vote("v1", "1", 1, VoteMode.SET));

        assertThat(again.getOutcome()).isEqualTo(Outcome.UNCHANGED);
        assertThat(again.getAfter().getVote()).isEqualTo(1);
        assertThat(events.isEmpty()).as("an unchanged vote is not a change").isTrue();
    }

    @Test
    void shouldPreAggregateManyVotersOnOneItemIntoOneDeltaPerFlush() {
        for (int i = 0; i < 500; i++) {
            send(vote("voter-" + i, "viral", 1, VoteMode.TOGGLE));
        }
        driver.advanceWallClockTime(FLUSH);

        List<CountDelta> flushed = deltas.readValuesToList();
        assertThat(flushed).hasSize(1);
        assertThat(flushed.get(0).getUpvotes()).isEqualTo(500);
        KeyValueStore<String, CountDelta> pending = driver.getKeyValueStore(VoteTopology.PENDING_DELTAS_STORE);
        try (var it = pending.all()) {
            assertThat(it.hasNext()).as("a flush empties the pending deltas").isFalse();
        }
    }

    @Test
    void shouldKeepEachVotersStateInTheStoreKeyedByVoterAndItem() {
        send(vote("v1", "1", -1, VoteMode.TOGGLE));

        KeyValueStore<String, VoterItemState> store = driver.getKeyValueStore(VoteTopology.VOTER_ITEM_STORE);
        assertThat(store.get("v1|post:1").getVote()).isEqualTo(-1);
        assertThat(store.get("v2|post:1")).isNull();
    }

    @Test
    void shouldNotAnswerWhenNobodyWaits() {
        VoteCommand c = vote("v1", "1", 1, VoteMode.TOGGLE);
        c.setReplyPartition(-1);
        commands.pipeInput(c.getVoter(), c);

        assertThat(outcomes.isEmpty()).isTrue();
        assertThat(events.readValue().getOutcome()).isEqualTo(Outcome.ACCEPTED);
    }

    @Test
    void topologyNamesItsStoresAndSinks() {
        String description = VoteTopology.build(CONFIG).describe().toString();
        assertThat(description).contains(VoteTopology.VOTER_ITEM_STORE, VoteTopology.PENDING_DELTAS_STORE,
                Topics.VOTE_EVENTS.name(), Topics.COUNT_DELTAS.name(), Topics.VOTE_OUTCOMES.name());
    }
}
