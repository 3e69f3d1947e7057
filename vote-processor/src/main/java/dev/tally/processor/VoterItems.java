package dev.tally.processor;

import dev.tally.common.VoterState;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What each voter holds on each item: one record per voter|item ({@value VoteTopology#VOTER_ITEM_STORE}) with
 * the public state, what its vote weighs, the offset of the command that last changed it, and — while votes of
 * the voter there wait in quarantine — the state the voter sees instead. Read once per vote, written once per
 * change.
 *
 * <p>Two legacy stores are read only for what was written before the record held it all: weights below 1.0 of
 * votes stored before states carried their weight ({@value VoteTopology#VOTER_ITEM_WEIGHTS_STORE}), and the held
 * states of voter-items that were in quarantine when the held marker moved into the record
 * ({@value VoteTopology#HELD_STATE_STORE}), moved into their records by {@link #migrateHeldStates} when a task
 * first runs.
 */
final class VoterItems {
    private final KeyValueStore<String, VoterItem> store;
    private final KeyValueStore<String, Double> legacyWeights;
    private final KeyValueStore<String, VoterItemState> legacyHeld;

    VoterItems(KeyValueStore<String, VoterItem> store, KeyValueStore<String, Double> legacyWeights,
               KeyValueStore<String, VoterItemState> legacyHeld) {
        this.store = store;
        this.legacyWeights = legacyWeights;
        this.legacyHeld = legacyHeld;
    }

    /**
     * One voter-item as stored.
     *
     * @param state  the public state (no vote: {@link VoterState#NONE}, weight 1.0), what the counts hold
     * @param offset the offset of the command that last changed it, -1 when unknown
     * @param held   what the voter sees while votes of theirs here wait in quarantine
     * @param cast   when the public state's vote was cast and whether its command was anonymous
     */
    record Entry(VoterItemState state, long offset, Optional<VoterItemState> held, Cast cast) {
        static final Entry NONE = new Entry(VoterItems.state(VoterState.NONE, 1.0), -1, Optional.empty(), Cast.UNKNOWN);
    }

    /**
     * When a vote was cast and whether its command said its voter was anonymous; either null when not known (no vote,
     * or stored before this was kept).
     */
    record Cast(Instant at, Boolean anonymous) {
        static final Cast UNKNOWN = new Cast(null, null);
    }

    static String key(String voter, String itemType, String itemId) {
        return voter + "|" + Topics.itemKey(itemType, itemId);
    }

    /**
     * The voter-item, its vote's weight included. A vote stored before states carried their weight has it in the
     * legacy weights store (only weights below 1.0 were ever written there), read only for such a vote and moved
     * into the record when it is next written.
     */
    Entry read(String key) {
        VoterItem s = store.get(key);
        if (s == null) {
            return Entry.NONE;
        }
        double weight = s.getWeight();
        if (s.getVote() != 0 && weight == 1.0) {
            Double legacy = legacyWeights.get(key);
            if (legacy != null) {
                legacyWeights.delete(key);
                weight = legacy;
            }
        }
        return new Entry(new VoterItemState(s.getVote(), s.getReaction(), weight), s.getOffset(), Optional.ofNullable(s.getHeld()),
                new Cast(s.getCastAt(), s.getAnonymous()));
    }

    /** Whether the task holds no voter-item record. */
    boolean isEmpty() {
        try (KeyValueIterator<String, VoterItem> it = store.all()) {
            return !it.hasNext();
        }
    }

    /** The public state. */
    VoterItemState state(String key) {
        return read(key).state();
    }

    /**
     * Writes a new public state over {@code before} (as {@link #read} gave it), keeping what the voter sees while
     * votes are held; {@code offset} -1 (a released vote, no command offset of its own) keeps the last one.
     * {@code cast} says when its vote was cast, and by whom.
     */
    void put(String key, Entry before, VoterItemState state, long offset, Cast cast) {
        write(key, state, offset < 0 ? before.offset() : offset, before.held(), cast);
    }

    /** Sets what the voter sees while votes of theirs here are held, or clears it (empty) when none are. */
    void hold(String key, Optional<VoterItemState> seen) {
        hold(key, read(key), seen);
    }

    /** {@link #hold(String, Optional)} over {@code before}, the record as {@link #read} gave it. */
    void hold(String key, Entry before, Optional<VoterItemState> seen) {
        if (before == Entry.NONE && seen.isEmpty()) { // no record, and nothing to hold: nothing to write
            return;
        }
        write(key, before.state(), before.offset(), seen, before.cast());
    }

    private void write(String key, VoterItemState state, long offset, Optional<VoterItemState> held, Cast cast) {
        Cast kept = state.getVote() == 0 ? Cast.UNKNOWN : cast;
        store.put(key, new VoterItem(state.getVote(), state.getReaction(), state.getWeight(), offset, held.orElse(null),
                kept.at(), kept.anonymous()));
    }

    /**
     * Moves the held states a node kept in the legacy store before they lived in the voter-item record into their
     * records, and empties that store. It holds only the voter-items in quarantine, so this is quick; run once as a
     * task first processes, inside that transaction.
     */
    void migrateHeldStates() {
        List<KeyValue<String, VoterItemState>> legacy = new ArrayList<>();
        try (KeyValueIterator<String, VoterItemState> it = legacyHeld.all()) {
            it.forEachRemaining(legacy::add);
        }
        for (KeyValue<String, VoterItemState> e : legacy) {
            hold(e.key, Optional.of(e.value));
            legacyHeld.delete(e.key);
        }
    }

    static VoterState rules(VoterItemState s) {
        return new VoterState(s.getVote(), s.getReaction());
    }

    static VoterItemState state(VoterState s, double weight) {
        return new VoterItemState(s.vote(), s.reaction(), weight);
    }
}
