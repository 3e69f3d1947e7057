package dev.tally.common;

import java.util.Map;
import java.util.Objects;

/**
 * The one count arithmetic: what one voter's change on an item, from {@code before} to {@code after},
 * does to the item's counts. The vote-processor adds it to its pending deltas, the API to a not yet
 * projected view (the POST answer), reconcile to its fold of the event log.
 *
 * <table>
 *   <caption>each term is after − before</caption>
 *   <tr><th>count</th><th>a state adds</th></tr>
 *   <tr><td>up</td><td>1 if its vote is +1</td></tr>
 *   <tr><td>down</td><td>1 if its vote is −1</td></tr>
 *   <tr><td>weighted up / down</td><td>its weight if its vote is +1 / −1 (a new voter's vote weighs less)</td></tr>
 *   <tr><td>reaction r</td><td>1 if its reaction is r</td></tr>
 * </table>
 */
public record CountChange(long up, long down, double weightedUp, double weightedDown, String reactionRemoved,
                          String reactionAdded) {

    public static CountChange of(VoterState before, VoterState after, double weightBefore, double weightAfter) {
        int upBefore = before.vote() == 1 ? 1 : 0;
        int upAfter = after.vote() == 1 ? 1 : 0;
        int downBefore = before.vote() == -1 ? 1 : 0;
        int downAfter = after.vote() == -1 ? 1 : 0;
        boolean reactionChanged = !Objects.equals(before.reaction(), after.reaction());
        return new CountChange(upAfter - upBefore, downAfter - downBefore,
                weightAfter * upAfter - weightBefore * upBefore, weightAfter * downAfter - weightBefore * downBefore,
                reactionChanged ? before.reaction() : null, reactionChanged ? after.reaction() : null);
    }

    /** Whether the reactions change at all. */
    public boolean changesReactions() {
        return reactionRemoved != null || reactionAdded != null;
    }

    /** Applies the reaction terms to a mutable map of reaction counts (entries that reach 0 stay). */
    public void applyTo(Map<String, Long> reactions) {
        if (reactionRemoved != null) {
            reactions.merge(reactionRemoved, -1L, Long::sum);
        }
        if (reactionAdded != null) {
            reactions.merge(reactionAdded, 1L, Long::sum);
        }
    }
}
