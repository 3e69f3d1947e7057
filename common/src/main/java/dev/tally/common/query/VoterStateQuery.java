package dev.tally.common.query;

import dev.tally.common.VoterState;

/** Reads one voter's state on one item from the vote-processor's store, wherever it lives. */
public interface VoterStateQuery {
    VoterState state(String voterHash, String itemType, String itemId) throws Unavailable;
}
