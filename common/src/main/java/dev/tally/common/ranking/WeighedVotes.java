package dev.tally.common.ranking;

import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import java.time.Instant;

/**
 * What one vote event changes in a ranking: the vote {@code before} held is taken back as it was cast (its weight
 * under the policy by the flag of the command that cast it, at {@code before_cast_at}), and the vote {@code after}
 * holds is cast: at {@code received_at} by this command's flag if the vote differs from before's, else at
 * {@code before_cast_at} by before's flag. A reaction alone changes nothing.
 */
public final class WeighedVotes {
    private WeighedVotes() {}

    /** Receives each vote an event takes back ({@code cast} false) or casts, with what it weighs under the policy. */
    @FunctionalInterface
    public interface Sink {
        void accept(int vote, double weight, Instant castAt, boolean cast);
    }

    public static void of(VoteEvent event, RankingPolicy policy, Sink sink) {
        VoterItemState before = event.getBefore();
        VoterItemState after = event.getAfter();
        if (before.getVote() == after.getVote() && before.getWeight() == after.getWeight()) {
            return; // a reaction alone
        }
        if (before.getVote() != 0) {
            sink.accept(before.getVote(), policy.weight(before.getWeight(), event.getBeforeAnonymous()),
                    event.getBeforeCastAt(), false);
        }
        if (after.getVote() != 0) {
            boolean recast = after.getVote() != before.getVote();
            sink.accept(after.getVote(),
                    policy.weight(after.getWeight(), recast ? event.getAnonymous() : event.getBeforeAnonymous()),
                    recast ? event.getReceivedAt() : event.getBeforeCastAt(), true);
        }
    }
}
