package dev.tally.processor;

import dev.tally.common.CountChange;
import dev.tally.schema.CountDelta;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The count deltas of one task not yet forwarded, one per item (design note 3). The changelogged,
 * cached store {@value VoteTopology#PENDING_DELTAS_STORE} is what makes them exact: after a crash it comes
 * back as of the last committed transaction and the input replays from there. This class keeps a copy
 * of the store's live entries in memory, loaded once when the task starts, so a flush touches only the
 * items changed since the last one; scanning the store instead costs a walk over the tombstones of every
 * item flushed since RocksDB last compacted (measured at 16% of the processor's CPU, growing with the
 * number of items touched).
 */
final class PendingDeltas {
    private final KeyValueStore<String, CountDelta> store;
    private final Map<String, CountDelta> live = new LinkedHashMap<>();

    PendingDeltas(KeyValueStore<String, CountDelta> store) {
        this.store = store;
        try (KeyValueIterator<String, CountDelta> it = store.all()) {
            it.forEachRemaining(e -> live.put(e.key, e.value));
        }
    }

    /**
     * Adds to an item's pending delta what one command did, in one store write.
     *
     * @param partition  the command's partition, or -1 for a released vote (no command offset of its own)
     * @param newCommand whether it is a command as it arrived (the burst watch counts every one, whatever its
     *                   outcome), not a released vote
     * @param change     what it changed in the counts, or null
     */
    void add(String itemKey, String itemType, String itemId, Instant receivedAt, int partition, long offset,
             boolean newCommand, CountChange change) {
        CountDelta delta = entry(itemKey, itemType, itemId, receivedAt, partition, offset);
        if (newCommand) {
            delta.setCommands(delta.getCommands() + 1);
        }
        if (change != null) {
            delta.setUpvotes(delta.getUpvotes() + change.up());
            delta.setDownvotes(delta.getDownvotes() + change.down());
            delta.setWeightedUp(delta.getWeightedUp() + change.weightedUp());
            delta.setWeightedDown(delta.getWeightedDown() + change.weightedDown());
            if (change.changesReactions()) {
                Map<String, Long> reactions = new HashMap<>(delta.getReactions());
                change.applyTo(reactions);
                delta.setReactions(reactions);
            }
        }
        store.put(itemKey, delta);
    }

    /** The item's pending delta, created if there is none, its times and position moved to a command's. */
    private CountDelta entry(String itemKey, String itemType, String itemId, Instant receivedAt, int partition,
                             long offset) {
        CountDelta delta = live.computeIfAbsent(itemKey, k -> CountDelta.newBuilder().setItemType(itemType)
                .setItemId(itemId).setReactions(new HashMap<>()).setSourcePartition(partition)
                .setThroughOffset(offset).setFirstReceivedAt(receivedAt).setLastReceivedAt(receivedAt).build());
        if (receivedAt.isBefore(delta.getFirstReceivedAt())) {
            delta.setFirstReceivedAt(receivedAt);
        }
        if (receivedAt.isAfter(delta.getLastReceivedAt())) {
            delta.setLastReceivedAt(receivedAt);
        }
        if (partition >= 0) {
            delta.setSourcePartition(partition);
            delta.setThroughOffset(Math.max(delta.getThroughOffset(), offset));
        }
        return delta;
    }

    /** Hands every pending delta to {@code forward} (in the order the items were first touched) and clears them. */
    void flush(BiConsumer<String, CountDelta> forward) {
        for (Map.Entry<String, CountDelta> e : live.entrySet()) {
            forward.accept(e.getKey(), e.getValue());
            store.delete(e.getKey());
        }
        live.clear();
    }
}
