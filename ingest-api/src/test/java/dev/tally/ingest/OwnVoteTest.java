package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link VoteHandler#withOwnVote}: a POST's answer counts the voter's own vote exactly once, however far the counts
 * view is behind the processor — each row of its table.
 */
class OwnVoteTest {
    private static final VoterItemState NONE = new VoterItemState(0, null, 1.0);
    private static final VoterItemState UP = new VoterItemState(1, null, 1.0);
    private static final VoterItemState DOWN = new VoterItemState(-1, null, 1.0);

    /** The counts of item post:1 with {@code up} upvotes, reflecting commands partition 0 up to {@code watermark}. */
    private static ItemCountsView view(long up, long watermark) {
        return new ItemCountsView("post", "1", up, 0, Map.of(), up, 0, Instant.EPOCH,
                watermark < 0 ? Map.of() : Map.of(0, watermark), false);
    }

    private static VoteOutcome outcome(Outcome outcome, VoterItemState before, VoterItemState after, long previous,
                                       long source, boolean held) {
        return VoteOutcome.newBuilder().setCommandId("c").setItemType("post").setItemId("1")
                .setStatus(OutcomeStatus.APPLIED).setOutcome(outcome).setBefore(before).setAfter(after)
                .setReplyPartition(0).setSourcePartition(0).setSourceOffset(source).setPreviousOffset(previous)
                .setHeld(held).build();
    }

    @Test
    void aRepeatAnsweredBeforeTheViewHoldsTheVoteItRepeatsWaitsForTheView() {
        // the up-vote at offset 5, its repeat in a later batch at offset 9: a view at offset 3 holds neither
        VoteOutcome repeat = outcome(Outcome.UNCHANGED, UP, UP, 5, 9, false);

        assertThat(VoteHandler.withOwnVote(view(0, 3), repeat)).as("the view lacks the vote: no answer yet").isEmpty();
        assertThat(VoteHandler.withOwnVote(view(1, 5), repeat)).get().extracting(ItemCountsView::upvotes).isEqualTo(1L);
        assertThat(VoteHandler.withOwnVote(view(1, 9), repeat)).get().extracting(ItemCountsView::upvotes).isEqualTo(1L);
    }

    @Test
    void aChangeIsAddedToAViewThatHoldsTheStateItChanges() {
        VoteOutcome flip = outcome(Outcome.CHANGED, UP, DOWN, 5, 9, false);

        ItemCountsView answered = VoteHandler.withOwnVote(view(3, 5), flip).orElseThrow();
        assertThat(answered.upvotes()).isEqualTo(2);
        assertThat(answered.downvotes()).isEqualTo(1);
        assertThat(VoteHandler.withOwnVote(view(3, 4), flip)).as("the view lacks the up-vote the flip takes back").isEmpty();
        assertThat(VoteHandler.withOwnVote(view(2, 9), flip).orElseThrow().upvotes()).as("already projected").isEqualTo(2);
    }

    @Test
    void aFirstVoteOrAnAnswerFromBeforePreviousOffsetsIsAddedToAnyView() {
        VoteOutcome first = outcome(Outcome.ACCEPTED, NONE, UP, -1, 9, false);
        VoteOutcome older = VoteOutcome.newBuilder(first).setPreviousOffset(-1).build();

        assertThat(VoteHandler.withOwnVote(view(0, -1), first).orElseThrow().upvotes()).isEqualTo(1);
        assertThat(VoteHandler.withOwnVote(view(4, 8), older).orElseThrow().upvotes()).isEqualTo(5);
    }

    @Test
    void aHeldVoteIsAlwaysAddedForItsVoterNeverInThePublicView() {
        VoteOutcome held = outcome(Outcome.ACCEPTED, NONE, UP, 2, 9, true);

        assertThat(VoteHandler.withOwnVote(view(4, 9), held).orElseThrow().upvotes()).isEqualTo(5);
        assertThat(VoteHandler.withOwnVote(view(4, 1), held)).isEmpty();
    }
}
