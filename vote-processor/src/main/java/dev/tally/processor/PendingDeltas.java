package dev.tally.processor;

import dev.tally.common.CountChange;
import dev.tally.schema.CountDelta;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The count deltas of one task, pre-aggregated per item and flush interval
 * (docs/decisions/0003-pre-aggregated-count-deltas.md). An item's first
 * change in an interval leaves at the end of the step that made it (a command batch, a decision), as a delta of
 * its own together with every other change the same step made to the item, and is remembered only in memory; its
 * changes in later steps of the interval add up in one pending delta that the next flush forwards. So an item
 * voted on once per interval — most items, when votes spread over many — costs one delta record and no store
 * work, and a hot item two deltas per interval however many votes it takes.
 *
 * <p>A delta's through-offset is a promise: the projector moves the item's watermark to it, and a view at or past
 * a command's offset is taken to hold all of that command's votes. A delta that leaves with a step therefore holds
 * the whole step's changes to its item, and a pending one only changes from later commands.
 *
 * <p>The changelogged, cached store {@value VoteTopology#PENDING_DELTAS_STORE} is what makes the pending ones
 * exact: after a crash it comes back as of the last committed transaction and the input replays from there
 * (a delta that left with a step is in the same transaction as the command that made it). This class keeps a
 * copy of the store's live entries in memory, loaded once when the task starts, so a flush touches only the items
 * changed since the last one; scanning the store instead costs a walk over the tombstones of every item
 * flushed since RocksDB last compacted, a cost that grows with the number of items touched. An item's first
 * change of an interval never goes through the store, so it costs no put and no changelog tombstone.
 */
final class PendingDeltas {
    private final KeyValueStore<String, CountDelta> store;
    private final Map<String, CountDelta> live = new LinkedHashMap<>();
    private final Map<String, CountDelta> leaving = new LinkedHashMap<>(); // this step's, for items first changed in it
    private final Set<String> changedThisStep = new HashSet<>(); // pending deltas this step changed: one write each
    private final Set<String> sentThisInterval = new HashSet<>();

    PendingDeltas(KeyValueStore<String, CountDelta> store) {
        this.store = store;
        try (KeyValueIterator<String, CountDelta> it = store.all()) {
            it.forEachRemaining(e -> live.put(e.key, e.value));
        }
    }

    /**
     * Adds what one command did to an item's count to the delta that leaves with this step if the step is the
     * item's first to change it in this interval, else to the item's pending delta, which the end of the step
     * writes to the store once however many of the step's commands changed it.
     *
     * @param partition  the command's partition, or -1 for a released vote (no command offset of its own)
     * @param newCommand whether it is a command as it arrived (the burst watch counts every one, whatever its
     *                   outcome), not a released vote
     * @param change     what it changed in the counts, or null
     */
    void add(String itemKey, String itemType, String itemId, Instant receivedAt, int partition, long offset,
             boolean newCommand, CountChange change) {
        CountDelta delta = leaving.get(itemKey);
        if (delta != null) {
            include(delta, receivedAt, partition, offset);
        } else if (!live.containsKey(itemKey) && sentThisInterval.add(itemKey)) {
            delta = fresh(itemType, itemId, receivedAt, partition, offset);
            leaving.put(itemKey, delta);
        } else {
            delta = live.computeIfAbsent(itemKey, k -> fresh(itemType, itemId, receivedAt, partition, offset));
            include(delta, receivedAt, partition, offset);
            changedThisStep.add(itemKey);
        }
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
    }

    /** Moves a delta's times and position to take in a command's. */
    private static void include(CountDelta delta, Instant receivedAt, int partition, long offset) {
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
    }

    private static CountDelta fresh(String itemType, String itemId, Instant receivedAt, int partition, long offset) {
        return CountDelta.newBuilder().setItemType(itemType).setItemId(itemId).setReactions(new HashMap<>())
                .setSourcePartition(partition).setThroughOffset(offset).setFirstReceivedAt(receivedAt)
                .setLastReceivedAt(receivedAt).build();
    }

    /**
     * Hands the deltas that leave with the step just taken to {@code forward} and writes the pending ones it
     * changed to the store: call it at the end of every step, in the step's transaction.
     */
    void endStep(BiConsumer<String, CountDelta> forward) {
        leaving.forEach(forward);
        leaving.clear();
        for (String itemKey : changedThisStep) {
            store.put(itemKey, live.get(itemKey));
        }
        changedThisStep.clear();
    }

    /** Hands every pending delta to {@code forward} (in the order the items were first touched) and clears them. */
    void flush(BiConsumer<String, CountDelta> forward) {
        endStep(forward);
        for (Map.Entry<String, CountDelta> e : live.entrySet()) {
            forward.accept(e.getKey(), e.getValue());
            store.delete(e.getKey());
        }
        live.clear();
        sentThisInterval.clear();
    }
}
