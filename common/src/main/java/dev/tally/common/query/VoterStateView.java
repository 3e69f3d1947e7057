package dev.tally.common.query;

import dev.tally.common.VoterState;

/**
 * One voter's state on one item, with where its last change came from: a reader of counts can wait
 * until the count view reflects that command ({@link ItemCountsView#reflects}) — read-your-writes on
 * any instance.
 *
 * @param partition the voter's {@code tally.vote-commands} partition
 * @param offset    offset of the voter's last change on this item, or -1 when there is none
 */
public record VoterStateView(int vote, String reaction, int partition, long offset, boolean stale) {
    public static VoterStateView none(int partition) {
        return new VoterStateView(0, null, partition, -1, false);
    }

    public VoterState state() {
        return new VoterState(vote, reaction);
    }
}
