package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tally.common.StreamsService;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schema.VoterQuota;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VoteTopologyTest {
    private static final Duration FLUSH = ProcessorDriver.FLUSH;
    private ProcessorDriver fixture;
    private TopologyTestDriver driver;
    private TestOutputTopic<String, VoteEvent> events;
    private TestOutputTopic<String, VoteOutcomeBatch> outcomes;
    private TestInputTopic<String, VoteCommandBatch> commands;

    @BeforeEach
    void setUp() {
        fixture = new ProcessorDriver();
        driver = fixture.driver;
        events = fixture.events;
        outcomes = fixture.outcomes;
        commands = fixture.commands;
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    static VoteCommand vote(String voter, String item, int value, VoteMode mode) {
        return ProcessorDriver.vote(voter, item, value, mode);
    }

    private VoteOutcome send(VoteCommand c) {
        return fixture.send(c);
    }

    @Test
    void advertisesThatItReadsEveryRecordedCommandFormatAndTheOneTheApiWrites() {
        var reads = StreamsService.reads(VoteTopology.build(ProcessorDriver.CONFIG, ProcessorDriver.DELTA_PARTITIONS));
        var commandFormats = Topics.VOTE_COMMANDS.fingerprints().orElseThrow();
        assertThat(reads.get(Topics.VOTE_COMMANDS.name()))
                .contains(commandFormats.writtenFingerprint())
                .containsExactlyInAnyOrderElementsOf(commandFormats.readableFingerprints());
        assertThat(reads).containsKeys(Topics.QUARANTINE_DECISIONS.name(), Topics.REACTION_TYPES.name());
        assertThat(reads.keySet()).allMatch(name -> name.startsWith("tally."), "Tally topics only, no changelogs");
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
        List<CountDelta> sent = fixture.deltas(); // the item's first change of the interval: at once, no flush
        assertThat(sent).hasSize(1);
        assertThat(ProcessorDriver.itemKey(sent.get(0))).isEqualTo("post:1");
        assertThat(sent.get(0).getUpvotes()).isEqualTo(1);
        assertThat(sent.get(0).getThroughOffset()).isEqualTo(outcome.getSourceOffset());
    }

    @Test
    void shouldRetractWhenSameVoteRepeatedInToggleMode() {
        send(vote("v1", "1", 1, VoteMode.TOGGLE));
        VoteOutcome second = send(vote("v1", "1", 1, VoteMode.TOGGLE));

        assertThat(second.getOutcome()).isEqualTo(Outcome.RETRACTED);
        assertThat(second.getAfter().getVote()).isZero();
        assertThat(fixture.flushedSum().getUpvotes()).as("on and off within one interval nets to zero").isZero();
    }

    @Test
    void shouldChangeDirectionMovingBothCountersInOneDelta() {
        send(vote("v1", "1", 1, VoteMode.TOGGLE));
        driver.advanceWallClockTime(FLUSH);
        fixture.deltas();

        VoteOutcome changed = send(vote("v1", "1", -1, VoteMode.TOGGLE));
        driver.advanceWallClockTime(FLUSH);

        assertThat(changed.getOutcome()).isEqualTo(Outcome.CHANGED);
        CountDelta delta = fixture.deltas().get(0);
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
    void shouldSendAnItemsFirstChangeAtOnceAndPreAggregateTheRestIntoOneDeltaPerFlush() {
        for (int i = 0; i < 500; i++) {
            send(vote("voter-" + i, "viral", 1, VoteMode.TOGGLE));
        }
        assertThat(fixture.deltas()).as("the first vote, at once").extracting(CountDelta::getUpvotes).containsExactly(1L);
        driver.advanceWallClockTime(FLUSH);

        List<CountDelta> flushed = fixture.deltas();
        assertThat(flushed).hasSize(1);
        assertThat(flushed.get(0).getUpvotes()).isEqualTo(499);
        assertThat(flushed.get(0).getCommands()).isEqualTo(499);

        send(vote("voter-500", "viral", 1, VoteMode.TOGGLE));
        assertThat(fixture.deltas()).as("a new interval: the first change at once again").hasSize(1);
        KeyValueStore<String, CountDelta> pending = driver.getKeyValueStore(VoteTopology.PENDING_DELTAS_STORE);
        try (var it = pending.all()) {
            assertThat(it.hasNext()).as("a flush empties the pending deltas").isFalse();
        }
    }

    /**
     * The projector moves an item's watermark to a delta's through-offset, and the API and the bench take a view at
     * or past a command's offset to hold that command's votes. So the delta that leaves with a batch holds every
     * change the batch made to its item; before, the first left at once and the others waited for the flush while
     * the view already claimed the batch's offset (a crash drill once saw a view at 1 up-vote whose log had 2).
     */
    @Test
    void theDeltaThatLeavesWithABatchHoldsEveryChangeTheBatchMadeToItsItem() {
        fixture.sendBatch(List.of(vote("v1", "hot", 1, VoteMode.SET), vote("v2", "hot", 1, VoteMode.SET),
                vote("v3", "hot", -1, VoteMode.SET)));

        List<CountDelta> sent = fixture.deltas();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).getThroughOffset()).isZero();
        assertThat(sent.get(0).getUpvotes()).isEqualTo(2);
        assertThat(sent.get(0).getDownvotes()).isEqualTo(1);
        assertThat(sent.get(0).getCommands()).isEqualTo(3);
        driver.advanceWallClockTime(FLUSH);
        assertThat(fixture.deltas()).as("nothing of the batch was left for the flush").isEmpty();

        fixture.sendBatch(List.of(vote("v4", "hot", 1, VoteMode.SET), vote("v5", "hot", 1, VoteMode.SET)));
        assertThat(fixture.deltas()).as("the item's first batch of a new interval leaves whole")
                .extracting(CountDelta::getUpvotes).containsExactly(2L);
        fixture.sendBatch(List.of(vote("v6", "hot", 1, VoteMode.SET), vote("v7", "hot", 1, VoteMode.SET),
                vote("v8", "hot", -1, VoteMode.SET)));
        assertThat(fixture.deltas()).as("a later batch of the same interval waits for the flush").isEmpty();
        KeyValueStore<String, CountDelta> pending = driver.getKeyValueStore(VoteTopology.PENDING_DELTAS_STORE);
        assertThat(pending.get("post:hot")).as("the batch's pending changes, stored with the batch")
                .extracting(CountDelta::getUpvotes, CountDelta::getDownvotes, CountDelta::getCommands)
                .containsExactly(2L, 1L, 3);
        driver.advanceWallClockTime(FLUSH);
        assertThat(fixture.deltas()).extracting(CountDelta::getUpvotes, CountDelta::getThroughOffset)
                .containsExactly(tuple(2L, 2L));
    }

    @Test
    void shouldSendABatchsDeltasAsOneRecordPerPartitionOfTheirItems() {
        List<VoteCommand> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            batch.add(vote("v1", "item-" + i, 1, VoteMode.SET));
        }
        fixture.sendBatch(batch);

        long partitions = batch.stream().map(c -> Topics.partition(Topics.itemKey("post", c.getItemId()),
                ProcessorDriver.DELTA_PARTITIONS)).distinct().count();
        List<KeyValue<String, CountDeltaBatch>> records = fixture.deltaBatches.readKeyValuesToList();
        assertThat(records).as("one record per partition the items fall in").hasSize((int) partitions);
        assertThat(records.stream().mapToInt(r -> r.value.getDeltas().size()).sum()).isEqualTo(40);
        for (KeyValue<String, CountDeltaBatch> r : records) {
            int partition = Topics.partition(r.key, ProcessorDriver.DELTA_PARTITIONS);
            assertThat(r.value.getDeltas()).allMatch(d -> d.getUpvotes() == 1
                    && Topics.partition(ProcessorDriver.itemKey(d), ProcessorDriver.DELTA_PARTITIONS) == partition);
        }
    }

    @Test
    void shouldKeepEachVotersStateInTheStoreKeyedByVoterAndItem() {
        send(vote("v1", "1", -1, VoteMode.TOGGLE));

        KeyValueStore<String, VoterItem> store = driver.getKeyValueStore(VoteTopology.VOTER_ITEM_STORE);
        assertThat(store.get("v1|post:1").getVote()).isEqualTo(-1);
        assertThat(store.get("v2|post:1")).isNull();
    }

    @Test
    void aVoterWithNoQuotaRecordHoldsNoVoterItemSoTheirFirstVoteIsResolvedWithoutLookingOneUp() {
        VoteOutcome first = send(vote("v1", "1", 1, VoteMode.SET));
        VoteOutcome again = send(vote("v1", "1", 1, VoteMode.SET));

        KeyValueStore<String, VoterQuota> quotas = driver.getKeyValueStore(VoteTopology.VOTER_QUOTAS_STORE);
        assertThat(quotas.get(VoterQuotas.COVERAGE_KEY)).as("a task that began with no voter-items says it covers them").isNotNull();
        assertThat(quotas.get("v1")).as("the voter, recorded by their first change").isNotNull();
        assertThat(first.getOutcome()).isEqualTo(Outcome.ACCEPTED);
        assertThat(again.getOutcome()).as("the second vote finds the first").isEqualTo(Outcome.UNCHANGED);
    }

    @Test
    void aModeratorsChangeRecordsTheVoterWithoutChargingThemSoTheirOwnVoteFindsIt() {
        VoteCommand byModerator = vote("m1", "1", 1, VoteMode.SET);
        byModerator.setModeration(true); // exempt from the voter's limits: nothing charged
        send(byModerator);
        VoteOutcome own = send(vote("m1", "1", 1, VoteMode.SET));

        assertThat(own.getOutcome()).as("the voter's vote finds the moderator's").isEqualTo(Outcome.UNCHANGED);
        assertThat(fixture.flushedSum().getUpvotes()).isEqualTo(1);
        VoterQuota recorded = driver.<String, VoterQuota>getKeyValueStore(
                VoteTopology.VOTER_QUOTAS_STORE).get("m1");
        assertThat(recorded.getRecent()).as("recorded, not charged").isEmpty();
        assertThat(recorded.getDayCount()).isZero();
    }

    @Test
    void voterItemsKeptBeforeTheQuotasCoveredThemAreAlwaysLookedUp() {
        // a node's data from before every voter-item had a quota record: a vote, and no record of its voter
        driver.<String, VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE)
                .put("old|post:1", new VoterItem(1, null, 1.0, 7L, null, null, null));

        VoteOutcome again = send(vote("old", "1", 1, VoteMode.SET));

        assertThat(again.getOutcome()).as("the stored vote is found").isEqualTo(Outcome.UNCHANGED);
        assertThat(driver.getKeyValueStore(VoteTopology.VOTER_QUOTAS_STORE).get(VoterQuotas.COVERAGE_KEY))
                .as("nor does the store claim to cover it").isNull();
    }

    @Test
    void shouldNotAnswerWhenNobodyWaits() {
        VoteCommand c = vote("v1", "1", 1, VoteMode.TOGGLE);
        c.setReplyPartition(-1);
        commands.pipeInput(c.getVoter(), Topics.batchOf(c));

        assertThat(outcomes.isEmpty()).isTrue();
        assertThat(events.readValue().getOutcome()).isEqualTo(Outcome.ACCEPTED);
    }

    @Test
    void aBatchIsResolvedInOrderAndAnsweredWithOneRecord() {
        VoteCommand up = vote("v1", "1", 1, VoteMode.TOGGLE);
        VoteCommand again = vote("v1", "1", 1, VoteMode.TOGGLE); // the same voter later in the batch: a toggle off
        VoteCommand other = vote("v2", "1", -1, VoteMode.TOGGLE);
        commands.pipeInput("v1", new VoteCommandBatch(new java.util.ArrayList<>(java.util.List.of(up, again, other))));

        java.util.List<VoteOutcomeBatch> records = outcomes.readValuesToList();
        assertThat(records).hasSize(1);
        assertThat(records.get(0).getOutcomes()).extracting(VoteOutcome::getCommandId)
                .containsExactly(up.getCommandId(), again.getCommandId(), other.getCommandId());
        assertThat(records.get(0).getOutcomes()).extracting(VoteOutcome::getOutcome)
                .containsExactly(Outcome.ACCEPTED, Outcome.RETRACTED, Outcome.ACCEPTED);
        assertThat(events.readValuesToList()).hasSize(3).allSatisfy(e ->
                assertThat(e.getSourceOffset()).as("every vote of a batch is at the batch's offset").isZero());
    }

    @Test
    void theCommandsThatCarryANetworkGoToTheFraudDetectorOneRecordPerNetworkWhateverWasDecided() {
        var networks = driver.createOutputTopic(Topics.NETWORK_COMMANDS.name(),
                Topics.NETWORK_COMMANDS.keySerde().deserializer(), Topics.NETWORK_COMMANDS.valueSerde().deserializer());
        VoteCommand a1 = net(vote("v1", "1", 1, VoteMode.SET), "netA");
        VoteCommand plain = vote("v2", "1", 1, VoteMode.SET);
        VoteCommand b = net(vote("v3", "2", 1, VoteMode.SET), "netB");
        VoteCommand a2 = net(vote("v1", "1", 1, VoteMode.SET), "netA"); // unchanged: still what reached Kafka
        fixture.sendBatch(List.of(a1, plain, b, a2));

        var records = networks.readKeyValuesToList();
        assertThat(records).extracting(r -> r.key).containsExactly("netA", "netB");
        assertThat(records.get(0).value.getCommands()).extracting(VoteCommand::getCommandId)
                .containsExactly(a1.getCommandId(), a2.getCommandId());
        assertThat(records.get(1).value.getCommands()).extracting(VoteCommand::getCommandId).containsExactly(b.getCommandId());

        fixture.sendBatch(List.of(vote("v4", "3", 1, VoteMode.SET)));
        assertThat(networks.isEmpty()).as("a batch without networks writes nothing for them").isTrue();
    }

    private static VoteCommand net(VoteCommand c, String network) {
        c.setNetwork(network);
        return c;
    }

    @Test
    void everyAnswerOfABatchIsRelativeToTheVoterItemAsTheBatchFoundIt() {
        // twenty identical set votes in one batch: one accepted, nineteen unchanged; the counts view may not
        // reflect the batch yet, so each answer's "before" is the state the view then holds (none), and the
        // API's own-vote correction makes every answer count the vote once
        java.util.List<VoteCommand> same = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            same.add(vote("greta", "1", 1, VoteMode.SET));
        }
        java.util.List<VoteOutcome> answers = fixture.sendBatch(same);

        assertThat(answers).extracting(VoteOutcome::getOutcome).containsOnlyOnce(Outcome.ACCEPTED);
        assertThat(answers).allSatisfy(a -> {
            assertThat(a.getBefore().getVote()).isZero();
            assertThat(a.getAfter().getVote()).isEqualTo(1);
        });
        assertThat(events.readValuesToList()).as("the log has the one change, exact").hasSize(1)
                .allSatisfy(e -> assertThat(e.getBefore().getVote()).isZero());
    }

    @Test
    void everyAnswerNamesTheChangeItsBeforeCameFromSoTheApiCanTellWhetherTheViewHoldsIt() {
        VoteOutcome first = fixture.send(vote("greta", "1", 1, VoteMode.SET)); // batch at offset 0
        VoteOutcome repeat = fixture.send(vote("greta", "1", 1, VoteMode.SET)); // offset 1: changes nothing
        java.util.List<VoteOutcome> third = fixture.sendBatch(java.util.List.of( // offset 2: a flip, then back up
                vote("greta", "1", -1, VoteMode.SET), vote("greta", "1", 1, VoteMode.SET)));

        assertThat(first.getPreviousOffset()).as("no earlier change").isEqualTo(-1);
        assertThat(repeat.getOutcome()).isEqualTo(Outcome.UNCHANGED);
        assertThat(repeat.getSourceOffset()).isEqualTo(1);
        assertThat(repeat.getPreviousOffset()).as("the up-vote it repeats; a view short of offset 0 lacks it").isZero();
        assertThat(third).allSatisfy(a -> {
            assertThat(a.getPreviousOffset()).as("the repeat changed nothing: the up-vote is still the last change").isZero();
            assertThat(a.getBefore().getVote()).as("as the batch found it").isEqualTo(1);
        });
    }

    @Test
    void aCommandWrittenAloneBeforeBatchesIsStillResolved() {
        VoteCommand c = vote("v1", "1", 1, VoteMode.TOGGLE);
        var legacy = fixture.driver.createInputTopic(Topics.VOTE_COMMANDS.name(), Topics.VOTE_COMMANDS.keySerde().serializer(),
                dev.tally.schemas.AvroSerde.of(VoteCommand.class).serializer());
        legacy.pipeInput(c.getVoter(), c);

        assertThat(outcomes.readValue().getOutcomes()).extracting(VoteOutcome::getOutcome).containsExactly(Outcome.ACCEPTED);
    }

    @Test
    void topologyNamesItsStoresAndSinks() {
        String description = VoteTopology.build(ProcessorDriver.CONFIG, ProcessorDriver.DELTA_PARTITIONS).describe().toString();
        assertThat(description).contains(VoteTopology.VOTER_ITEM_STORE, VoteTopology.PENDING_DELTAS_STORE,
                Topics.VOTE_EVENTS.name(), Topics.COUNT_DELTAS.name(), Topics.VOTE_OUTCOMES.name());
    }
}
