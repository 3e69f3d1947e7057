package dev.tally.common.query;


/** Reads one voter's state on one item from the vote-processor's store, wherever it lives. */
public interface VoterStateQuery {
    VoterStateView state(String voterHash, String itemType, String itemId) throws Unavailable;
}
