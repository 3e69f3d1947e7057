package dev.tally.processor;

import static dev.tally.processor.ProcessorDriver.vote;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CountDelta;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.Outcome;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Soft rejection during a burst, and release/discard exactly once. */
class QuarantineTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private final ProcessorDriver p = new ProcessorDriver();
    private TestInputTopic<String, FraudFlag> flags;
    private TestInputTopic<String, QuarantineRecord> decisions;
    private TestOutputTopic<String, QuarantineRecord> quarantine;

    @BeforeEach
    void setUp() {
        flags = p.driver.createInputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().serializer(),
                Topics.FRAUD_FLAGS.valueSerde().serializer());
        decisions = p.driver.createInputTopic(Topics.QUARANTINE_DECISIONS.name(),
                Topics.QUARANTINE_DECISIONS.keySerde().serializer(), Topics.QUARANTINE_DECISIONS.valueSerde().serializer());
        quarantine = p.driver.createOutputTopic(Topics.QUARANTINE.name(), Topics.QUARANTINE.keySerde().deserializer(),
                Topics.QUARANTINE.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        p.close();
    }

    private void burst(String item, Instant from) {
        String key = "item:post:" + item;
        flags.pipeInput(key, new FraudFlag(key, FlagKind.BURST, "test burst", from, from.plus(Duration.ofMinutes(10))));
    }

    private long flushedUpvotes() {
        p.driver.advanceWallClockTime(ProcessorDriver.FLUSH);
        return p.deltas().stream().mapToLong(CountDelta::getUpvotes).sum();
    }

    @Test
    void aNewVoterOnABurstingItemIsAnsweredAsCountedButHeldOutOfTheCounts() {
        burst("hot", T0);

        VoteOutcome answer = p.voteAt("newcomer", "hot", T0.plusSeconds(5));

        assertThat(answer.getOutcome()).isEqualTo(Outcome.ACCEPTED);
        assertThat(answer.getAfter().getVote()).isEqualTo(1);
        assertThat(p.events.isEmpty()).as("no event: not counted").isTrue();
        assertThat(flushedUpvotes()).isZero();
        QuarantineRecord held = quarantine.readValue();
        assertThat(held.getStatus()).isEqualTo(QuarantineStatus.HELD);
        assertThat(held.getCommand().getVoter()).isEqualTo("newcomer");
        assertThat(held.getReason()).isEqualTo("burst on post:hot: test burst");
        var record = p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE).get("newcomer|post:hot");
        assertThat(record.getHeld().getVote()).as("what the voter sees while it waits").isEqualTo(1);
        assertThat(record.getVote()).as("what the counts hold").isZero();
    }

    @Test
    void aHeldVoteIsChargedToTheVotersLimits() {
        try (ProcessorDriver limited = new ProcessorDriver(withLimits(new VoteProcessorConfig.VoterLimits(2, Duration.ofSeconds(60), 100)))) {
            String key = "item:post:hot";
            limited.driver.createInputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().serializer(),
                    Topics.FRAUD_FLAGS.valueSerde().serializer())
                    .pipeInput(key, new FraudFlag(key, FlagKind.BURST, "test burst", T0, T0.plus(Duration.ofMinutes(10))));
            assertThat(limited.voteAt("newcomer", "hot", T0.plusSeconds(1)).getHeld()).isTrue();
            assertThat(limited.voteAt("newcomer", "a", T0.plusSeconds(2)).getOutcome()).isEqualTo(Outcome.ACCEPTED);
            assertThat(limited.voteAt("newcomer", "b", T0.plusSeconds(3)).getError()).as("the held vote took a slot")
                    .isEqualTo("rate-limited");
        }
    }

    @Test
    void everyNewCommandIsCountedForTheBurstWatchWhateverComesOfIt() {
        p.voteAt("v", "a", T0);
        assertThat(p.voteAt("v", "a", T0.plusSeconds(1)).getOutcome()).isEqualTo(Outcome.UNCHANGED);
        p.driver.advanceWallClockTime(ProcessorDriver.FLUSH);
        List<CountDelta> deltas = p.deltas();
        assertThat(deltas.stream().mapToLong(CountDelta::getCommands).sum()).as("two commands").isEqualTo(2);
        assertThat(deltas.stream().mapToLong(CountDelta::getUpvotes).sum()).as("one vote").isEqualTo(1);
    }

    private static VoteProcessorConfig withLimits(VoteProcessorConfig.VoterLimits limits) {
        VoteProcessorConfig c = ProcessorDriver.CONFIG;
        return new VoteProcessorConfig(c.namespace(), c.commitInterval(), c.deltaFlushInterval(), c.idempotencyTtl(),
                c.catalogVersion(), c.requireCatalog(), limits, c.weighting(), c.reviewDelay());
    }

    /** A flush every 45 minutes: a vote released at the hour is its item's first change of an interval. */
    private static VoteProcessorConfig withSlowFlush() {
        VoteProcessorConfig c = ProcessorDriver.CONFIG;
        return new VoteProcessorConfig(c.namespace(), c.commitInterval(), Duration.ofMinutes(45), c.idempotencyTtl(),
                c.catalogVersion(), c.requireCatalog(), c.voterLimits(), c.weighting(), c.reviewDelay());
    }

    @Test
    void aVoterWithHistoryIsCountedDuringABurst() {
        p.voteAt("regular", "elsewhere", T0.minusSeconds(3600));
        burst("hot", T0);

        p.voteAt("regular", "hot", T0.plusSeconds(5));

        assertThat(quarantine.isEmpty()).isTrue();
        assertThat(flushedUpvotes()).isEqualTo(2);
    }

    @Test
    void aReleaseAppliesTheHeldVoteExactlyOnce() {
        burst("hot", T0);
        p.voteAt("newcomer", "hot", T0.plusSeconds(5));
        QuarantineRecord held = quarantine.readValue();
        flushedUpvotes();

        QuarantineRecord release = QuarantineRecord.newBuilder(held).setStatus(QuarantineStatus.RELEASED).setReason("ok").build();
        decisions.pipeInput("newcomer", release);
        decisions.pipeInput("newcomer", release);

        assertThat(flushedUpvotes()).as("counted once").isEqualTo(1);
        List<QuarantineRecord> recorded = quarantine.readValuesToList();
        assertThat(recorded).hasSize(1);
        assertThat(recorded.get(0).getStatus()).isEqualTo(QuarantineStatus.RELEASED);
        assertThat(p.events.readValuesToList()).hasSize(1);
    }

    @Test
    void aHeldStateLeftInTheLegacyStoreMovesIntoTheVoterItemRecordAndItsVoteStillReleasesOnce() {
        burst("hot", T0);
        // what a node kept before the voter-item record held the held state: the command, its queue, the state seen
        VoteCommand c = vote("early", "hot", 1, VoteMode.SET);
        c.setReceivedAt(T0.plusSeconds(5));
        QuarantineRecord held = new QuarantineRecord(c.getCommandId(), QuarantineStatus.HELD, "burst", c, T0.plusSeconds(5));
        p.driver.<String, QuarantineRecord>getKeyValueStore(VoteTopology.HELD_STORE).put(c.getCommandId(), held);
        p.driver.<String, String>getKeyValueStore(VoteTopology.HELD_QUEUE_STORE).put("early|post:hot", c.getCommandId());
        p.driver.<String, dev.tally.schema.VoterItemState>getKeyValueStore(VoteTopology.HELD_STATE_STORE)
                .put("early|post:hot", new dev.tally.schema.VoterItemState(1, null, 1.0));

        p.voteAt("someone", "elsewhere", T0.plusSeconds(6)); // the task's first record moves it

        var voterItems = p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE);
        assertThat(voterItems.get("early|post:hot").getHeld().getVote()).as("the voter still sees their vote").isEqualTo(1);
        assertThat(voterItems.get("early|post:hot").getVote()).as("the counts do not").isZero();
        try (var legacy = p.driver.getKeyValueStore(VoteTopology.HELD_STATE_STORE).all()) {
            assertThat(legacy.hasNext()).as("the legacy store emptied").isFalse();
        }
        flushedUpvotes();

        decide(held, QuarantineStatus.RELEASED);

        assertThat(flushedUpvotes()).as("counted once").isEqualTo(1);
        assertThat(voterItems.get("early|post:hot").getVote()).isEqualTo(1);
        assertThat(voterItems.get("early|post:hot").getHeld()).as("nothing held any more").isNull();
    }

    @Test
    void aDiscardIsRecordedAndCountsNothing() {
        burst("hot", T0);
        p.voteAt("newcomer", "hot", T0.plusSeconds(5));
        QuarantineRecord held = quarantine.readValue();

        decisions.pipeInput("newcomer", QuarantineRecord.newBuilder(held).setStatus(QuarantineStatus.DISCARDED).setReason("spam").build());

        assertThat(quarantine.readValue().getStatus()).isEqualTo(QuarantineStatus.DISCARDED);
        assertThat(flushedUpvotes()).isZero();
        assertThat(p.events.isEmpty()).isTrue();
    }

    @Test
    void theReviewJobReleasesHeldVotesOnceTheBurstIsOver() {
        Instant now = Instant.parse("2026-11-30T00:00:00Z"); // the driver's wall clock
        burst("hot", now.minus(Duration.ofMinutes(20)));
        VoteCommand c = vote("newcomer", "hot", 1, VoteMode.SET);
        c.setReceivedAt(now.minus(Duration.ofMinutes(15)));
        p.send(c);
        quarantine.readValue();

        p.driver.advanceWallClockTime(Duration.ofMinutes(61));

        assertThat(quarantine.readValue().getStatus()).isEqualTo(QuarantineStatus.RELEASED);
        assertThat(flushedUpvotes()).isEqualTo(1);
    }

    /**
     * The review job decides a vote held exactly its review delay ago, not a minute sooner; one whose item still
     * bursts is discarded, one whose burst ended is released and its count sent at once.
     */
    @Test
    void theReviewJobDecidesAVoteTheMomentItsDelayIsOver() {
        Instant wall = Instant.parse("2026-11-30T00:00:00Z"); // the driver's wall clock
        try (ProcessorDriver q = new ProcessorDriver(withSlowFlush())) {
            var flagsIn = q.driver.createInputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().serializer(),
                    Topics.FRAUD_FLAGS.valueSerde().serializer());
            var recorded = q.driver.createOutputTopic(Topics.QUARANTINE.name(), Topics.QUARANTINE.keySerde().deserializer(),
                    Topics.QUARANTINE.valueSerde().deserializer());
            flagsIn.pipeInput("item:post:long", new FraudFlag("item:post:long", FlagKind.BURST, "long", wall.minusSeconds(60),
                    wall.plus(Duration.ofHours(3))));
            flagsIn.pipeInput("item:post:short", new FraudFlag("item:post:short", FlagKind.BURST, "short", wall.minusSeconds(60),
                    wall.plus(Duration.ofMinutes(30))));
            q.voteAt("n1", "long", wall.minusSeconds(30));
            q.voteAt("n2", "short", wall.minusSeconds(30));
            assertThat(recorded.readValuesToList()).extracting(QuarantineRecord::getStatus)
                    .containsExactly(QuarantineStatus.HELD, QuarantineStatus.HELD);

            q.driver.advanceWallClockTime(Duration.ofMinutes(59));
            assertThat(recorded.isEmpty()).as("a minute before their delay is over").isTrue();

            q.driver.advanceWallClockTime(Duration.ofMinutes(1));
            List<QuarantineRecord> decided = recorded.readValuesToList();
            assertThat(decided).extracting(r -> r.getCommand().getItemId() + " " + r.getStatus() + ": " + r.getReason())
                    .containsExactlyInAnyOrder("long DISCARDED: review: the item was still under a burst",
                            "short RELEASED: review: the burst ended");
            assertThat(q.deltas()).as("sent by the review, not by the next flush")
                    .anySatisfy(d -> assertThat(d.getItemId() + " " + d.getUpvotes()).isEqualTo("short 1"))
                    .noneSatisfy(d -> assertThat(d.getItemId() + " " + d.getUpvotes()).isEqualTo("long 1"));
        }
    }

    @Test
    void aReviewBeforeAnyCommandMovesALegacyHeldStateFirst() {
        Instant wall = Instant.parse("2026-11-30T00:00:00Z");
        VoteCommand c = vote("early", "hot", 1, VoteMode.SET);
        c.setReceivedAt(wall.minus(Duration.ofMinutes(90)));
        QuarantineRecord held = new QuarantineRecord(c.getCommandId(), QuarantineStatus.HELD, "burst", c,
                wall.minus(Duration.ofMinutes(90)));
        p.driver.<String, QuarantineRecord>getKeyValueStore(VoteTopology.HELD_STORE).put(c.getCommandId(), held);
        p.driver.<String, String>getKeyValueStore(VoteTopology.HELD_QUEUE_STORE).put("early|post:hot", c.getCommandId());
        p.driver.<String, dev.tally.schema.VoterItemState>getKeyValueStore(VoteTopology.HELD_STATE_STORE)
                .put("early|post:hot", new dev.tally.schema.VoterItemState(1, null, 1.0));

        p.driver.advanceWallClockTime(Duration.ofMinutes(1)); // the review job runs before the task's first record
        assertThat(quarantine.readValue().getStatus()).isEqualTo(QuarantineStatus.RELEASED);
        p.voteAt("someone", "elsewhere", wall.plusSeconds(61));

        var record = p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE).get("early|post:hot");
        assertThat(record.getVote()).isEqualTo(1);
        assertThat(record.getHeld()).as("nothing held any more").isNull();
    }

    @Test
    void aQueueKeepsOnlyTheVotesStillWaiting() {
        burst("hot", T0);
        List<QuarantineRecord> held = upThenDownHeld("fresh");
        var queues = p.driver.<String, String>getKeyValueStore(VoteTopology.HELD_QUEUE_STORE);
        assertThat(queues.get("fresh|post:hot")).isEqualTo(held.get(0).getCommandId() + " " + held.get(1).getCommandId());

        decide(held.get(0), QuarantineStatus.RELEASED);
        assertThat(queues.get("fresh|post:hot")).isEqualTo(held.get(1).getCommandId());
        decide(held.get(1), QuarantineStatus.RELEASED);
        assertThat(queues.get("fresh|post:hot")).isNull();
    }

    // ---- several held votes of one voter on one item: the last cast vote counts, whatever the order of decisions ----

    private List<QuarantineRecord> upThenDownHeld(String voter) {
        VoteCommand up = vote(voter, "hot", 1, VoteMode.TOGGLE);
        up.setReceivedAt(T0.plusSeconds(5));
        VoteCommand down = vote(voter, "hot", -1, VoteMode.TOGGLE);
        down.setReceivedAt(T0.plusSeconds(6));
        p.send(up);
        VoteOutcome second = p.send(down);
        assertThat(second.getHeld()).isTrue();
        assertThat(second.getBefore().getVote()).as("the public counts hold none of this voter's votes").isZero();
        assertThat(second.getAfter().getVote()).as("the voter sees their last vote").isEqualTo(-1);
        return quarantine.readValuesToList();
    }

    private void decide(QuarantineRecord held, QuarantineStatus status) {
        decisions.pipeInput(held.getCommand().getVoter(),
                QuarantineRecord.newBuilder(held).setStatus(status).setReason("moderator").build());
    }

    private long[] flushedUpDown() {
        p.driver.advanceWallClockTime(ProcessorDriver.FLUSH);
        long[] upDown = new long[2];
        p.deltas().forEach(d -> {
            upDown[0] += d.getUpvotes();
            upDown[1] += d.getDownvotes();
        });
        return upDown;
    }

    @Test
    void heldVotesReleasedNewestFirstCountTheVoteEachVoterCastLast() {
        burst("hot", T0);
        List<List<QuarantineRecord>> held = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            held.add(upThenDownHeld("fresh" + i));
        }
        assertThat(flushedUpDown()).containsExactly(0, 0);

        held.forEach(h -> decide(h.get(1), QuarantineStatus.RELEASED)); // newest first
        assertThat(flushedUpDown()).as("the −1 waits behind the undecided +1").containsExactly(0, 0);
        held.forEach(h -> decide(h.get(0), QuarantineStatus.RELEASED));

        assertThat(flushedUpDown()).as("five voters, each at −1").containsExactly(0, 5);
        for (int i = 0; i < 5; i++) {
            assertThat(p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE)
                    .get("fresh" + i + "|post:hot").getVote()).isEqualTo(-1);
            assertThat(p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE)
                    .get("fresh" + i + "|post:hot").getHeld()).as("nothing held any more").isNull();
        }
    }

    @Test
    void aDiscardedEarlierVoteLeavesTheLaterOneToCountOnItsOwn() {
        burst("hot", T0);
        List<QuarantineRecord> held = upThenDownHeld("fresh");

        decide(held.get(1), QuarantineStatus.DISCARDED); // the −1 is thrown out, the +1 still waits
        assertThat(p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE)
                .get("fresh|post:hot").getHeld().getVote()).as("the voter sees the +1 still held").isEqualTo(1);
        decide(held.get(0), QuarantineStatus.RELEASED);

        assertThat(flushedUpDown()).containsExactly(1, 0);
    }

    @Test
    void aSecondDecisionOnAWaitingVoteChangesNothing() {
        burst("hot", T0);
        List<QuarantineRecord> held = upThenDownHeld("fresh");

        decide(held.get(1), QuarantineStatus.RELEASED);
        decide(held.get(1), QuarantineStatus.DISCARDED); // already decided: ignored
        decide(held.get(0), QuarantineStatus.RELEASED);

        assertThat(flushedUpDown()).containsExactly(0, 1);
        assertThat(quarantine.readValuesToList()).extracting(QuarantineRecord::getStatus)
                .containsExactly(QuarantineStatus.RELEASED, QuarantineStatus.RELEASED);
    }
}
