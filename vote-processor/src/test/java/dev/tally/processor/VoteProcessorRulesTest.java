package dev.tally.processor;

import dev.tally.schemas.Namespace;
import static dev.tally.processor.ProcessorDriver.reaction;
import static dev.tally.processor.ProcessorDriver.vote;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemState;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every rule of the vote-processor beyond the plain vote: reactions, registry, catalogue, idempotency. */
class VoteProcessorRulesTest {
    private ProcessorDriver p = new ProcessorDriver();

    @AfterEach
    void tearDown() {
        p.close();
    }

    private CountDelta flushedDelta() {
        return p.flushedSum();
    }

    private VoterItem stored(String voter, String item) {
        KeyValueStore<String, VoterItem> store = p.driver.getKeyValueStore(VoteTopology.VOTER_ITEM_STORE);
        return store.get(voter + "|post:" + item);
    }

    private static VoteCommand withKey(VoteCommand c, String key, String hash) {
        c.setIdempotencyKey(key);
        c.setRequestHash(hash);
        return c;
    }

    // ---- reactions ----

    @Test
    void shouldReplaceAReactionWithAnotherMovingBothCounts() {
        p.send(reaction("v", "1", "like", VoteMode.TOGGLE));
        VoteOutcome changed = p.send(reaction("v", "1", "wow", VoteMode.TOGGLE));

        assertThat(changed.getOutcome()).isEqualTo(Outcome.CHANGED);
        assertThat(flushedDelta().getReactions()).containsOnly(Map.entry("like", 0L), Map.entry("wow", 1L));
    }

    @Test
    void shouldClearAReactionWhenRepeatedInToggleModeOrSetToNull() {
        p.send(reaction("v", "1", "love", VoteMode.TOGGLE));
        assertThat(p.send(reaction("v", "1", "love", VoteMode.TOGGLE)).getOutcome()).isEqualTo(Outcome.RETRACTED);
        p.send(reaction("v", "1", "haha", VoteMode.SET));
        assertThat(p.send(reaction("v", "1", "haha", VoteMode.SET)).getOutcome()).isEqualTo(Outcome.UNCHANGED);
        assertThat(p.send(reaction("v", "1", null, VoteMode.SET)).getOutcome()).isEqualTo(Outcome.RETRACTED);

        assertThat(stored("v", "1").getReaction()).isNull();
    }

    @Test
    void shouldHoldAVoteAndAReactionOnTheSameItem() {
        p.send(vote("v", "1", 1, VoteMode.TOGGLE));
        p.send(reaction("v", "1", "love", VoteMode.TOGGLE));

        assertThat(stored("v", "1").getVote()).isEqualTo(1);
        assertThat(stored("v", "1").getReaction()).isEqualTo("love");
        CountDelta delta = flushedDelta();
        assertThat(delta.getUpvotes()).isEqualTo(1);
        assertThat(delta.getReactions()).containsOnly(Map.entry("love", 1L));
    }

    // ---- registry ----

    @Test
    void shouldRefuseARetiredReactionThatRacedPastTheApiAndKeepItsHistory() {
        p.send(reaction("early", "1", "sad", VoteMode.TOGGLE));
        p.registerReaction("sad", false);

        VoteOutcome refused = p.send(reaction("late", "1", "sad", VoteMode.TOGGLE));

        assertThat(refused.getStatus()).isEqualTo(OutcomeStatus.REJECTED);
        assertThat(refused.getError()).isEqualTo("retired-reaction");
        assertThat(stored("late", "1")).isNull();
        assertThat(stored("early", "1").getReaction()).as("history keeps its counts").isEqualTo("sad");
        assertThat(flushedDelta().getReactions()).containsOnly(Map.entry("sad", 1L));
    }

    @Test
    void shouldRefuseAnUnknownReactionButStillAllowClearing() {
        assertThat(p.send(reaction("v", "1", "meh", VoteMode.TOGGLE)).getError()).isEqualTo("unknown-reaction");
        assertThat(p.send(reaction("v", "1", null, VoteMode.TOGGLE)).getOutcome()).isEqualTo(Outcome.UNCHANGED);
        assertThat(p.events.isEmpty()).isTrue();
    }

    // ---- catalogue ----

    @Test
    void shouldRefuseVotesOnDeletedAndLockedItems() {
        p.setItem("gone", ItemState.DELETED);
        p.setItem("frozen", ItemState.LOCKED);
        p.setItem("open", ItemState.ACTIVE);

        assertThat(p.send(vote("v", "gone", 1, VoteMode.SET)).getError()).isEqualTo("item-not-found");
        assertThat(p.send(vote("v", "frozen", 1, VoteMode.SET)).getError()).isEqualTo("item-locked");
        assertThat(p.send(vote("v", "open", 1, VoteMode.SET)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
        assertThat(p.send(vote("v", "unlisted", 1, VoteMode.SET)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
        assertThat(p.events.readValuesToList()).hasSize(2);
    }

    @Test
    void shouldRefuseItemsTheCatalogueDoesNotListWhenRequired() {
        p.close();
        p = new ProcessorDriver(new VoteProcessorConfig(Namespace.DEFAULT, Duration.ofMillis(100), ProcessorDriver.FLUSH,
                ProcessorDriver.TTL, 1, true, VoteProcessorConfig.VoterLimits.NONE,
            VoteProcessorConfig.Weighting.DEFAULT, Duration.ofHours(1)));
        p.setItem("listed", ItemState.ACTIVE);

        assertThat(p.send(vote("v", "unlisted", 1, VoteMode.SET)).getError()).isEqualTo("item-not-found");
        assertThat(p.send(vote("v", "listed", 1, VoteMode.SET)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
    }

    @Test
    void shouldRefuseAnotherCatalogueVersion() {
        VoteCommand c = vote("v", "1", 1, VoteMode.SET);
        c.setCatalogVersion(2);

        VoteOutcome refused = p.send(c);

        assertThat(refused.getError()).isEqualTo("catalog-version");
        assertThat(stored("v", "1")).isNull();
    }

    // ---- idempotency ----

    @Test
    void shouldNotUndoARetriedToggleThatCarriesTheSameIdempotencyKey() {
        VoteOutcome first = p.send(withKey(vote("v", "1", 1, VoteMode.TOGGLE), "k1", "up"));
        VoteCommand retry = withKey(vote("v", "1", 1, VoteMode.TOGGLE), "k1", "up");
        VoteOutcome again = p.send(retry);

        assertThat(again.getCommandId()).isEqualTo(retry.getCommandId());
        assertThat(again.getOutcome()).isEqualTo(Outcome.ACCEPTED);
        assertThat(again.getAfter()).isEqualTo(first.getAfter());
        assertThat(stored("v", "1").getVote()).as("the retry applied nothing").isEqualTo(1);
        assertThat(p.events.readValuesToList()).hasSize(1);
        assertThat(flushedDelta().getUpvotes()).isEqualTo(1);
    }

    @Test
    void shouldUndoARetriedToggleWithoutAKey() {
        p.send(vote("v", "1", 1, VoteMode.TOGGLE));

        assertThat(p.send(vote("v", "1", 1, VoteMode.TOGGLE)).getOutcome())
                .as("without a key a retry is a second toggle: this is why keys exist").isEqualTo(Outcome.RETRACTED);
    }

    @Test
    void shouldRefuseTheSameKeyWithAnotherRequest() {
        p.send(withKey(vote("v", "1", 1, VoteMode.TOGGLE), "k1", "up"));

        VoteOutcome conflict = p.send(withKey(vote("v", "1", -1, VoteMode.TOGGLE), "k1", "down"));

        assertThat(conflict.getError()).isEqualTo("idempotency-conflict");
        assertThat(stored("v", "1").getVote()).isEqualTo(1);
    }

    @Test
    void shouldScopeKeysToTheVoter() {
        p.send(withKey(vote("alice", "1", 1, VoteMode.TOGGLE), "same", "up"));

        assertThat(p.send(withKey(vote("bob", "1", 1, VoteMode.TOGGLE), "same", "up")).getOutcome())
                .isEqualTo(Outcome.ACCEPTED);
        assertThat(stored("bob", "1").getVote()).isEqualTo(1);
    }

    @Test
    void shouldReplayARejectionToo() {
        p.setItem("frozen", ItemState.LOCKED);
        p.send(withKey(vote("v", "frozen", 1, VoteMode.SET), "k", "x"));
        p.setItem("frozen", ItemState.ACTIVE);

        assertThat(p.send(withKey(vote("v", "frozen", 1, VoteMode.SET), "k", "x")).getError()).isEqualTo("item-locked");
    }

    @Test
    void shouldForgetAKeyAfterItExpires() {
        p.send(withKey(vote("v", "1", 1, VoteMode.TOGGLE), "k1", "up"));
        p.driver.advanceWallClockTime(ProcessorDriver.TTL.plusSeconds(1));

        VoteOutcome later = p.send(withKey(vote("v", "1", 1, VoteMode.TOGGLE), "k1", "up"));

        assertThat(later.getOutcome()).isEqualTo(Outcome.RETRACTED);
        KeyValueStore<String, ?> keys = p.driver.getKeyValueStore(VoteTopology.IDEMPOTENCY_STORE);
        assertThat(keys.get("v|k1")).as("recorded again with a new expiry").isNotNull();
    }

    // ---- weighting ----

    @Test
    void aNewAccountsVoteWeighsATenthAndItsRetractionRemovesExactlyThat() {
        VoteCommand young = vote("newbie", "1", 1, VoteMode.TOGGLE);
        young.setAccountCreated(young.getReceivedAt().minus(Duration.ofHours(2)));
        VoteCommand old = vote("veteran", "1", 1, VoteMode.TOGGLE);
        old.setAccountCreated(old.getReceivedAt().minus(Duration.ofDays(30)));
        p.send(young);
        p.send(old);

        CountDelta cast = flushedDelta();
        assertThat(cast.getUpvotes()).as("raw counts are unaffected").isEqualTo(2);
        assertThat(cast.getWeightedUp()).isEqualTo(1.1, org.assertj.core.api.Assertions.within(1e-9));

        VoteCommand laterRetraction = vote("newbie", "1", 1, VoteMode.TOGGLE);
        laterRetraction.setReceivedAt(young.getReceivedAt().plus(Duration.ofDays(3))); // no longer young
        laterRetraction.setAccountCreated(young.getAccountCreated());
        p.send(laterRetraction);

        assertThat(flushedDelta().getWeightedUp()).isEqualTo(-0.1, org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void eventsAndOutcomesCarryWhatEachVoteWeighsSoTheLogAloneRebuildsWeightedCounts() {
        VoteCommand young = vote("newbie", "1", 1, VoteMode.TOGGLE);
        young.setAccountCreated(young.getReceivedAt().minus(Duration.ofHours(2)));
        p.send(young);
        VoteCommand flip = vote("newbie", "1", -1, VoteMode.TOGGLE);
        flip.setReceivedAt(young.getReceivedAt().plus(Duration.ofDays(3))); // cast when no longer young
        flip.setAccountCreated(young.getAccountCreated());
        p.send(flip);

        List<VoteEvent> events = p.events.readValuesToList();
        assertThat(events.get(0).getBefore().getWeight()).isEqualTo(1.0);
        assertThat(events.get(0).getAfter().getWeight()).isEqualTo(0.1);
        assertThat(events.get(1).getBefore().getWeight()).as("the +1 was cast young").isEqualTo(0.1);
        assertThat(events.get(1).getAfter().getWeight()).as("the -1 is cast old").isEqualTo(1.0);
        assertThat(stored("newbie", "1").getWeight()).isEqualTo(1.0);
        CountDelta delta = flushedDelta();
        assertThat(delta.getWeightedUp()).isEqualTo(0.0, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(delta.getWeightedDown()).isEqualTo(1.0, org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void theVoterItemRecordCarriesTheOffsetOfItsLastChangeForReadYourWrites() {
        p.send(vote("v", "1", 1, VoteMode.TOGGLE));       // offset 0
        p.send(vote("other", "1", 1, VoteMode.TOGGLE));   // offset 1
        p.send(vote("v", "1", -1, VoteMode.TOGGLE));      // offset 2

        assertThat(stored("v", "1").getOffset()).isEqualTo(2);
        assertThat(stored("other", "1").getOffset()).isEqualTo(1);
        p.send(vote("v", "1", -1, VoteMode.SET));         // offset 3: unchanged, nothing written
        assertThat(stored("v", "1").getOffset()).isEqualTo(2);
    }
}
