package dev.tally.projector;

import dev.tally.schemas.Namespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.fraud.ItemWatch;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemBurst;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemProjection;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The burst rule ({@link ItemWatch}) as the count-projector applies it, beside each item's counts, with explicit
 * command times: a window of 5 minutes, a floor of 30.
 */
class BurstWatchTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, CountDeltaBatch> deltas;
    private final TestOutputTopic<String, FraudFlag> flags;

    BurstWatchTest(@TempDir Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "burst-watch-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(CountTopology.build(Namespace.DEFAULT, new ItemWatch(Duration.ofMinutes(5), 30)), props, T0);
        deltas = driver.createInputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().serializer(),
                Topics.COUNT_DELTAS.valueSerde().serializer());
        flags = driver.createOutputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().deserializer(),
                Topics.FRAUD_FLAGS.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    /** What the vote-processor's count delta of one command on {@code item} at {@code at} says. */
    private void vote(String item, Instant at) {
        delta(item, 1, at);
    }

    /** A count delta of the vote-processor summing {@code n} commands on {@code item}, the latest at {@code at}. */
    private void delta(String item, int n, Instant at) {
        deltas.pipeInput("post:" + item, Topics.batchOf(commands(item, n, at)), at);
    }

    private static CountDelta commands(String item, int n, Instant at) {
        return CountDelta.newBuilder().setItemType("post").setItemId(item).setSourcePartition(0).setThroughOffset(0)
                .setUpvotes(n).setCommands(n).setFirstReceivedAt(at).setLastReceivedAt(at).build();
    }


    @Test
    void aFreshItemHitByFortyVotersInSecondsIsABurstAtTheFloor() {
        for (int i = 0; i < 30; i++) {
            vote("fresh", T0.plusSeconds(i));
        }
        assertThat(flags.isEmpty()).as("30 is the floor").isTrue();

        vote("fresh", T0.plusSeconds(31));

        FraudFlag flag = flags.readValue();
        assertThat(flag.getKey()).isEqualTo("item:post:fresh");
        assertThat(flag.getKind()).isEqualTo(FlagKind.BURST);
        assertThat(flag.getRaisedAt()).isEqualTo(T0.plusSeconds(31));
        assertThat(flag.getExpiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        assertThat(flags.isEmpty()).as("flagged once for its two windows").isTrue();
        vote("fresh", T0.plusSeconds(32));
        assertThat(flags.isEmpty()).isTrue();
    }

    @Test
    void eachDeltaOfABatchCountsForItsOwnItemNotTheRecordsKey() {
        deltas.pipeInput("post:calm", new CountDeltaBatch(new ArrayList<>(List.of(commands("calm", 1, T0),
                commands("hot", 31, T0)))), T0);

        FraudFlag flag = flags.readValue();
        assertThat(flag.getKey()).isEqualTo("item:post:hot");
        assertThat(flags.isEmpty()).isTrue();
    }

    @Test
    void oneDeltaSummingManyCommandsCountsThemAll() {
        delta("sum", 30, T0);
        assertThat(flags.isEmpty()).as("30 is the floor").isTrue();

        delta("sum", 1, T0.plusSeconds(1));

        assertThat(flags.readValue().getKey()).isEqualTo("item:post:sum");
    }

    @Test
    void aDeltaWithoutCommandsCountsNothing() {
        for (int i = 0; i < 40; i++) {
            delta("released", 0, T0.plusSeconds(i)); // released votes and reconcile corrections
        }
        assertThat(flags.isEmpty()).isTrue();
        assertThat(state("released").getBurst()).as("no window until a delta carries a command").isNull();
    }

    @Test
    void aBusyItemIsABurstOnlyAboveItsMeanPlusThreeSigma() {
        // ten windows of 40 ± 5 votes: mean 40, sample σ ≈ 3.83 → threshold ≈ 51.5
        int[] history = {35, 45, 40, 36, 44, 40, 35, 45, 40, 40};
        for (int w = 0; w < history.length; w++) {
            for (int i = 0; i < history[w]; i++) {
                vote("busy", T0.plus(Duration.ofMinutes(5L * w)).plusSeconds(i));
            }
        }
        flags.readValuesToList(); // the first windows, with no history yet, are judged by the floor
        Instant next = T0.plus(Duration.ofMinutes(50));
        for (int i = 0; i < 51; i++) {
            vote("busy", next.plusSeconds(i));
        }
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).doesNotContain("item:post:busy");

        vote("busy", next.plusSeconds(60));

        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).contains("item:post:busy");
        ItemBurst burst = state("busy").getBurst();
        assertThat(burst.getWindows()).isEqualTo(10);
        assertThat(burst.getMean()).isEqualTo(40.0);
        assertThat(burst.getCount()).isEqualTo(52);
        assertThat(state("busy").getCounts().getUpvotes()).as("the counts beside the window").isEqualTo(400 + 52);
    }

    @Test
    void anItemStoredBeforeAsPlainCountsKeepsItsCountsAndStartsAWindow() {
        // a store written before the window moved here holds plain ItemCounts: its changelog restores them as such
        ItemCounts before = CountTopology.fold(CountTopology.empty(), commands("old", 7, T0));
        byte[] plain = AvroSerde.of(ItemCounts.class).serialize("changelog", before);

        ItemProjection read = CountTopology.STATE_SERDE.deserializer().deserialize("changelog", plain);

        assertThat(read.getCounts()).isEqualTo(before);
        assertThat(read.getBurst()).isNull();
        ItemWatch.Step step = new ItemWatch(Duration.ofMinutes(5), 30).observe(read.getBurst(),
                new ItemKey("post", "old"), commands("old", 1, T0));
        assertThat(step.burst().getCount()).isEqualTo(1);
        assertThat(step.flag()).isNull();
    }

    private ItemProjection state(String item) {
        return driver.<String, ItemProjection>getKeyValueStore(CountTopology.ITEM_COUNTS_STORE).get("post:" + item);
    }
}
