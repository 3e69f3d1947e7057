package dev.tally.projector.reconcile;

import dev.tally.schemas.Namespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.Env;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.projector.CountTopology;
import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemProjection;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fold and the comparison, without Kafka. */
class LedgerTest {
    private static final VoterItemState NONE = state(0, null);

    private static VoterItemState state(int vote, String reaction) {
        return new VoterItemState(vote, reaction, 1.0);
    }

    private static VoteEvent event(String item, VoterItemState before, VoterItemState after, int partition, long offset) {
        return VoteEvent.newBuilder().setCommandId("c-" + partition + "-" + offset).setVoter("v")
                .setItemType("post").setItemId(item).setOutcome(Outcome.ACCEPTED).setBefore(before).setAfter(after)
                .setReceivedAt(Instant.EPOCH).setResolvedAt(Instant.EPOCH)
                .setSourcePartition(partition).setSourceOffset(offset).build();
    }

    private static ItemCounts view(String item, long up, long down, Map<String, Long> reactions, Map<String, Long> watermarks) {
        return ItemCounts.newBuilder().setItemType("post").setItemId(item).setUpvotes(up).setDownvotes(down)
                .setWeightedUp(up).setWeightedDown(down).setReactions(new HashMap<>(reactions))
                .setWatermarks(new HashMap<>(watermarks)).setFirstVoteAt(Instant.EPOCH).setUpdatedAt(Instant.EPOCH)
                .build();
    }

    private static Report reconcile(Map<String, ItemCounts> views, List<VoteEvent> events) {
        Ledger ledger = new Ledger(views);
        events.forEach(ledger::accept);
        assertThat(ledger.eventsRead()).isEqualTo(events.size());
        return ledger.report(Duration.ofMillis(1));
    }

    @TempDir
    Path stateDir;

    @Test
    void eventsBeyondTheWatermarkAreNotYetProjectedAndAreNotDrift() {
        List<VoteEvent> events = List.of(
                event("1", NONE, state(1, null), 0, 10),
                event("1", NONE, state(1, null), 3, 4),
                event("1", NONE, state(-1, null), 0, 11), // beyond watermark 0:10
                event("1", NONE, state(1, null), 5, 0));  // partition 5 not in the view at all
        Map<String, ItemCounts> views = Map.of("post:1", view("1", 2, 0, Map.of(), Map.of("0", 10L, "3", 4L)));

        Report report = reconcile(views, events);

        ItemDrift item = report.item("post:1").orElseThrow();
        assertThat(item.expected().up()).isEqualTo(2);
        assertThat(item.expected().down()).isZero();
        assertThat(item.unprojected()).isEqualTo(2);
        assertThat(item.drift()).isZero();
        assertThat(report.summary()).isEqualTo("items=1 drift=0");
    }

    @Test
    void aReactionChangeMovesTwoCounters() {
        List<VoteEvent> events = List.of(
                event("1", NONE, state(0, "like"), 0, 1),
                event("1", state(0, "like"), state(0, "wow"), 0, 2));
        Map<String, ItemCounts> views = Map.of("post:1", view("1", 0, 0, Map.of("like", 1L), Map.of("0", 2L)));

        Report report = reconcile(views, events);

        ItemDrift item = report.item("post:1").orElseThrow();
        assertThat(item.expected().reactions()).containsExactly(Map.entry("wow", 1L));
        assertThat(item.drift()).as("like 1≠0 and wow 0≠1").isEqualTo(2);
        assertThat(item.line()).isEqualTo("post:1 up 0=0 down 0=0 reactions {like:1≠0 wow:0≠1}");
        assertThat(item.correction().getReactions()).containsOnly(Map.entry("like", -1L), Map.entry("wow", 1L));
    }

    @Test
    void aVoteChangeMovesBothCountersAndRetractionsSubtract() {
        List<VoteEvent> events = List.of(
                event("1", NONE, state(1, null), 0, 1),
                event("1", state(1, null), state(-1, null), 0, 2),
                event("1", NONE, state(1, "sad"), 1, 7),
                event("1", state(1, "sad"), state(0, "sad"), 1, 8));
        Map<String, ItemCounts> views = Map.of("post:1", view("1", 0, 1, Map.of("sad", 1L), Map.of("0", 2L, "1", 8L)));

        assertThat(reconcile(views, events).drift()).isZero();
    }

    @Test
    void anItemWithEventsButNoViewExpectsZeros() {
        List<VoteEvent> events = List.of(event("new", NONE, state(1, "like"), 0, 1));

        Report report = reconcile(Map.of(), events);

        ItemDrift item = report.item("post:new").orElseThrow();
        assertThat(item.expected()).isEqualTo(Counts.ZERO);
        assertThat(item.actual()).isEqualTo(Counts.ZERO);
        assertThat(item.unprojected()).isEqualTo(1);
        assertThat(report.summary()).isEqualTo("items=1 drift=0");
    }

    @Test
    void aViewWithoutEventsExpectsZerosAndDriftsByItsCounts() {
        Map<String, ItemCounts> views = Map.of("post:ghost", view("ghost", 5, 1, Map.of("like", 2L), Map.of()));

        Report report = reconcile(views, List.of());

        // 5 + 1 + 2, plus 1 for each weighted count
        assertThat(report.drift()).isEqualTo(10);
        assertThat(report.drifting()).extracting(ItemDrift::line).containsExactly(
                "post:ghost up 5≠0 down 1≠0 reactions {like:2≠0} weighted_up 5.0≠0.0 weighted_down 1.0≠0.0");
    }

    @Test
    void aWeightedCountOffByMoreThanTheToleranceIsOneUnitOfDrift() {
        ItemCounts v = view("1", 1, 0, Map.of(), Map.of("0", 1L));
        v.setWeightedUp(1.5);
        Report report = reconcile(Map.of("post:1", v), List.of(event("1", NONE, state(1, null), 0, 1)));
        assertThat(report.drift()).isEqualTo(1);

        v.setWeightedUp(1.0 + 1e-12);
        assertThat(reconcile(Map.of("post:1", v), List.of(event("1", NONE, state(1, null), 0, 1))).drift()).isZero();
    }

    @Test
    void eventsWithoutAPositionPredateWatermarksAndCountAsProjected() {
        Report report = reconcile(Map.of("post:1", view("1", 1, 0, Map.of(), Map.of())),
                List.of(event("1", NONE, state(1, null), -1, -1)));
        assertThat(report.drift()).isZero();
    }

    /** Through the real count topology: the deltas of the log, one bogus delta, then the correction. */
    @Test
    void aCorrectionFoldedByTheProjectorRestoresEqualityAndMovesNoWatermark() {
        List<VoteEvent> events = List.of(
                event("1", NONE, state(1, "like"), 0, 1),
                event("1", NONE, state(-1, null), 2, 5),
                event("1", state(0, "like"), state(0, "haha"), 0, 3),
                event("1", NONE, state(1, "like"), 2, 6));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ledger-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        try (var driver = new TopologyTestDriver(CountTopology.build(Namespace.DEFAULT, CountProjectorConfig.from(Env.of(Map.of())).bursts()), props)) {
            var deltas = driver.createInputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().serializer(),
                    Topics.COUNT_DELTAS.valueSerde().serializer());
            for (VoteEvent e : events) {
                deltas.pipeInput("post:1", Topics.batchOf(deltaOf(e)));
            }
            deltas.pipeInput("post:1", Topics.batchOf(CountDelta.newBuilder().setItemType("post").setItemId("1").setUpvotes(5)
                    .setReactions(Map.of("wow", 2L)).setSourcePartition(-1).setThroughOffset(-1).build()));
            var states = driver.<String, ItemProjection>getKeyValueStore(CountTopology.ITEM_COUNTS_STORE);
            java.util.function.Function<String, ItemCounts> store = key -> states.get(key).getCounts();

            Report drifted = reconcile(Map.of("post:1", store.apply("post:1")), events);
            assertThat(drifted.drift()).isEqualTo(5 + 2); // up and wow; the bogus delta left weighted_up alone
            Map<String, Long> watermarks = new TreeMap<>(store.apply("post:1").getWatermarks());

            deltas.pipeInput("post:1", Topics.batchOf(drifted.drifting().get(0).correction()));

            ItemCounts repaired = store.apply("post:1");
            assertThat(reconcile(Map.of("post:1", repaired), events).drift()).isZero();
            assertThat(repaired.getWatermarks()).isEqualTo(watermarks);
            assertThat(repaired.getUpvotes()).isEqualTo(2);
            assertThat(repaired.getReactions()).containsOnly(Map.entry("haha", 1L), Map.entry("like", 1L));
        }
    }

    /** What the vote-processor sends for one event alone. */
    private static CountDelta deltaOf(VoteEvent e) {
        int up = (e.getAfter().getVote() == 1 ? 1 : 0) - (e.getBefore().getVote() == 1 ? 1 : 0);
        int down = (e.getAfter().getVote() == -1 ? 1 : 0) - (e.getBefore().getVote() == -1 ? 1 : 0);
        Map<String, Long> reactions = new HashMap<>();
        if (e.getBefore().getReaction() != null) {
            reactions.merge(e.getBefore().getReaction(), -1L, Long::sum);
        }
        if (e.getAfter().getReaction() != null) {
            reactions.merge(e.getAfter().getReaction(), 1L, Long::sum);
        }
        return CountDelta.newBuilder().setItemType("post").setItemId(e.getItemId()).setUpvotes(up).setDownvotes(down)
                .setWeightedUp(up).setWeightedDown(down).setReactions(reactions)
                .setSourcePartition(e.getSourcePartition()).setThroughOffset(e.getSourceOffset()).build();
    }

    @Test
    void reportCountsEveryItemInTheViewOrTheLogOnce() {
        List<VoteEvent> events = new ArrayList<>(List.of(event("a", NONE, state(1, null), 0, 1),
                event("b", NONE, state(1, null), 0, 2)));
        Report report = reconcile(Map.of("post:a", view("a", 1, 0, Map.of(), Map.of("0", 1L)),
                "post:c", view("c", 0, 0, Map.of(), Map.of())), events);
        assertThat(report.items().keySet()).containsExactly("post:a", "post:b", "post:c");
        assertThat(report.summary()).isEqualTo("items=3 drift=0");
        assertThat(report.eventsRead()).isEqualTo(2);
    }

    @Test
    void aRunOfSeveralPartitionsCountsEveryItemButKeepsOnlyTheDriftingAndTheAskedFor() {
        Ledger first = new Ledger(Map.of("post:a", view("a", 1, 0, Map.of(), Map.of("0", 1L)),
                "post:b", view("b", 5, 0, Map.of(), Map.of("0", 2L)))); // b: 5 up in the view, 1 in the log
        first.accept(event("a", NONE, state(1, null), 0, 1));
        first.accept(event("b", NONE, state(1, null), 0, 2));
        Ledger second = new Ledger(Map.of("post:c", view("c", 1, 0, Map.of(), Map.of("1", 7L))));
        second.accept(event("c", NONE, state(1, null), 1, 7));
        second.accept(event("d", NONE, state(1, null), 1, 8)); // no view yet: unprojected

        Report.Builder builder = new Report.Builder(key -> key.equals("post:c"));
        first.compareInto(builder);
        second.compareInto(builder);
        Report report = builder.build(Duration.ofMillis(1));

        assertThat(report.summary()).as("b: 4 up, and its weighted up").isEqualTo("items=4 drift=5");
        assertThat(report.eventsRead()).isEqualTo(4);
        assertThat(report.unprojected()).isEqualTo(1);
        assertThat(report.items().keySet()).as("the drifting b and the asked-for c").containsExactly("post:b", "post:c");
        assertThat(report.drifting()).extracting(ItemDrift::item).containsExactly("post:b");
    }

    @Test
    void weightedVotesAreFoldedAtTheWeightTheirEventsCarry() {
        VoterItemState anonymousUp = new VoterItemState(1, null, 0.1);
        List<VoteEvent> events = List.of(
                event("w", NONE, anonymousUp, 0, 1),
                event("w", NONE, state(1, null), 0, 2),
                event("w", NONE, state(1, null), 0, 3),
                event("w", NONE, state(1, null), 0, 4));
        ItemCounts view = view("w", 4, 0, Map.of(), Map.of("0", 4L));
        view.setWeightedUp(3.1); // what the projector holds: three known voters and one anonymous

        Report report = reconcile(Map.of("post:w", view), events);

        assertThat(report.drift()).as("a weighted vote is not drift").isZero();
    }
}
