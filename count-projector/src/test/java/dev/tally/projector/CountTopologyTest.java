package dev.tally.projector;

import dev.tally.schemas.Namespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.common.Env;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemProjection;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CountTopologyTest {
    static final CountProjectorConfig DEFAULTS = CountProjectorConfig.from(Env.of(Map.of()));
    private TopologyTestDriver driver;
    private TestInputTopic<String, CountDeltaBatch> deltas;
    private TestOutputTopic<String, ItemCounts> counts;

    @TempDir
    Path stateDir;

    @BeforeEach
    void setUp() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "count-topology-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(CountTopology.build(Namespace.DEFAULT, DEFAULTS.bursts()), props);
        deltas = driver.createInputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().serializer(),
                Topics.COUNT_DELTAS.valueSerde().serializer());
        counts = driver.createOutputTopic(Topics.ITEM_COUNTS.name(), Topics.ITEM_COUNTS.keySerde().deserializer(),
                Topics.ITEM_COUNTS.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    /** The counts the store holds for an item. */
    private ItemCounts stored(String key) {
        return driver.<String, ItemProjection>getKeyValueStore(CountTopology.ITEM_COUNTS_STORE).get(key).getCounts();
    }

    private static CountDelta delta(int up, int down, Map<String, Long> reactions, int partition, long offset) {
        return CountDelta.newBuilder().setItemType("post").setItemId("1").setUpvotes(up).setDownvotes(down)
                .setReactions(reactions).setSourcePartition(partition).setThroughOffset(offset).build();
    }

    @Test
    void shouldFoldDeltasFromSeveralPartitionsIntoOneView() {
        deltas.pipeInput("post:1", Topics.batchOf(delta(3, 1, Map.of("like", 2L), 0, 10)));
        deltas.pipeInput("post:1", Topics.batchOf(delta(-1, 2, Map.of("like", -2L, "wow", 1L), 5, 7)));
        deltas.pipeInput("post:1", Topics.batchOf(delta(1, 0, Map.of(), 0, 12)));

        ItemCounts c = stored("post:1");
        assertThat(c.getUpvotes()).isEqualTo(3);
        assertThat(c.getDownvotes()).isEqualTo(3);
        assertThat(c.getReactions()).containsExactly(Map.entry("wow", 1L));
        assertThat(c.getWatermarks()).containsOnly(Map.entry("0", 12L), Map.entry("5", 7L));
        assertThat(ItemCountsView.of(c, false).reflects(0, 12)).isTrue();
        assertThat(ItemCountsView.of(c, false).reflects(0, 13)).isFalse();
    }

    @Test
    void timesComeFromTheVotesNotTheProjectorsClockSoAReplayGivesTheSameView() {
        Instant first = Instant.parse("2026-11-01T10:00:00Z");
        CountDelta d1 = delta(1, 0, Map.of(), 0, 1);
        d1.setFirstReceivedAt(first);
        d1.setLastReceivedAt(first.plusSeconds(5));
        CountDelta late = delta(1, 0, Map.of(), 1, 1); // another partition's older votes arrive later
        late.setFirstReceivedAt(first.minusSeconds(60));
        late.setLastReceivedAt(first.minusSeconds(30));
        CountDelta correction = delta(0, 1, Map.of(), -1, -1); // a reconcile correction carries no times

        deltas.pipeInput("post:1", Topics.batchOf(d1));
        deltas.pipeInput("post:1", Topics.batchOf(late));
        deltas.pipeInput("post:1", Topics.batchOf(correction));

        ItemCounts c = stored("post:1");
        assertThat(c.getFirstVoteAt()).isEqualTo(first.minusSeconds(60));
        assertThat(c.getUpdatedAt()).isEqualTo(first.plusSeconds(5));
    }

    @Test
    void shouldPublishLatestCountsToTheCompactedTopic() {
        deltas.pipeInput("post:1", Topics.batchOf(delta(2, 0, Map.of(), 0, 1)));

        var published = counts.readKeyValuesToMap();
        assertThat(published.get("post:1").getUpvotes()).isEqualTo(2);
        assertThat(published.get("post:1").getItemId()).isEqualTo("1");
    }

    @Test
    void shouldFoldEveryDeltaOfABatchIntoItsOwnItemAndPublishEach() {
        CountDelta a = delta(2, 0, Map.of(), 0, 4);
        CountDelta b = CountDelta.newBuilder(delta(0, 1, Map.of("wow", 1L), 0, 4)).setItemId("2").build();
        deltas.pipeInput("post:1", new CountDeltaBatch(new ArrayList<>(List.of(a, b))));

        assertThat(stored("post:1").getUpvotes()).isEqualTo(2);
        assertThat(stored("post:2").getDownvotes()).isEqualTo(1);
        assertThat(stored("post:2").getReactions()).containsExactly(Map.entry("wow", 1L));
        var published = counts.readKeyValuesToList();
        assertThat(published).extracting(kv -> kv.key).containsExactly("post:1", "post:2");
        assertThat(published.get(1).value.getItemId()).isEqualTo("2");
    }

    @Test
    void aDeltaWrittenAloneBeforeBatchesIsFoldedAsABatchOfOne() {
        TestInputTopic<String, CountDelta> single = driver.createInputTopic(Topics.COUNT_DELTAS.name(),
                Topics.COUNT_DELTAS.keySerde().serializer(), AvroSerde.of(CountDelta.class).serializer());
        single.pipeInput("post:1", delta(1, 0, Map.of(), 0, 3));

        assertThat(stored("post:1").getUpvotes())
                .isEqualTo(1);
    }

    @Test
    void topologyNamesItsStore() {
        assertThat(CountTopology.build(Namespace.DEFAULT, DEFAULTS.bursts()).describe().toString())
                .contains(CountTopology.ITEM_COUNTS_STORE, "fold-counts", Topics.ITEM_COUNTS.name());
    }
}
