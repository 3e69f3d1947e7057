package dev.tally.processor;

import dev.tally.common.VoterState;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What each voter holds on each item: one record per voter|item ({@value VoteTopology#VOTER_ITEM_STORE}) with
 * the state, what its vote weighs and the offset of the command that last changed it, read and written
 * once per vote.
 */
final class VoterItems {
    private final KeyValueStore<String, VoterItem> store;
    private final KeyValueStore<String, Double> legacyWeights;

    VoterItems(KeyValueStore<String, VoterItem> store, KeyValueStore<String, Double> legacyWeights) {
        this.store = store;
        this.legacyWeights = legacyWeights;
    }

    static String key(String voter, String itemType, String itemId) {
        return voter + "|" + Topics.itemKey(itemType, itemId);
    }

    /**
     * The voter-item's state, its vote's weight included (none: no vote, weight 1.0). A vote stored before
     * states carried their weight has it in the legacy {@value VoteTopology#VOTER_ITEM_WEIGHTS_STORE} store
     * (only weights below 1.0 were ever written there), read only for such a vote and moved into the state
     * when it is next written.
     */
    VoterItemState state(String key) {
        VoterItem s = store.get(key);
        if (s == null) {
            return state(VoterState.NONE, 1.0);
        }
        double weight = s.getWeight();
        if (s.getVote() != 0 && weight == 1.0) {
            Double legacy = legacyWeights.get(key);
            if (legacy != null) {
                legacyWeights.delete(key);
                weight = legacy;
            }
        }
        return new VoterItemState(s.getVote(), s.getReaction(), weight);
    }

    /** Writes the new state; {@code offset} -1 (a released vote, no command offset of its own) keeps the last one. */
    void put(String key, VoterItemState state, long offset) {
        long kept = offset;
        if (offset < 0) {
            VoterItem before = store.get(key);
            kept = before == null ? -1 : before.getOffset();
        }
        store.put(key, new VoterItem(state.getVote(), state.getReaction(), state.getWeight(), kept));
    }

    static VoterState rules(VoterItemState s) {
        return new VoterState(s.getVote(), s.getReaction());
    }

    static VoterItemState state(VoterState s, double weight) {
        return new VoterItemState(s.vote(), s.reaction(), weight);
    }
}
