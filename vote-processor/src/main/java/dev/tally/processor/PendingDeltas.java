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
 * The count deltas of one task, pre-aggregated per item and flush interval (design note 3). An item's first
 * change in an interval leaves at once, as a delta of its own, and is remembered only in memory; its further
 * changes in the interval add up in one pending delta that the next flush forwards. So an item voted on once
 * per interval — most items, when votes spread over many — costs one delta record and no store work, and a hot
 * item two deltas per interval however many votes it takes.
 *
 * <p>The changelogged, cached store {@value VoteTopology#PENDING_DELTAS_STORE} is what makes the pending ones
 * exact: after a crash it comes back as of the last committed transaction and the input replays from there
 * (a delta sent at once is in the same transaction as the command that made it). This class keeps a copy of
 * the store's live entries in memory, loaded once when the task starts, so a flush touches only the items
 * changed since the last one; scanning the store instead costs a walk over the tombstones of every item
 * flushed since RocksDB last compacted (measured at 16% of the processor's CPU, growing with the number of
 * items touched). Before the first change left at once, every change went through the store: a put and, at
 * the flush, a tombstone in the changelog — 1.1 changelog records per vote on the uniform bench.
 */
final class PendingDeltas {
    private final KeyValueStore<String, CountDelta> store;
    private final BiConsumer<String, CountDelta> sendNow;
    private final Map<String, CountDelta> live = new LinkedHashMap<>();
    private final Set<String> sentThisInterval = new HashSet<>();

    /** @param sendNow forwards a delta that leaves at once (an item's first change in the interval) */
    PendingDeltas(KeyValueStore<String, CountDelta> store, BiConsumer<String, CountDelta> sendNow) {
        this.store = store;
        this.sendNow = sendNow;
        try (KeyValueIterator<String, CountDelta> it = store.all()) {
            it.forEachRemaining(e -> live.put(e.key, e.value));
        }
    }

    /**
     * Sends what one command did to an item's count at once if it is the item's first change in this interval,
     * else adds it to the item's pending delta, in one store write.
     *
     * @param partition  the command's partition, or -1 for a released vote (no command offset of its own)
     * @param newCommand whether it is a command as it arrived (the burst watch counts every one, whatever its
     *                   outcome), not a released vote
     * @param change     what it changed in the counts, or null
     */
    void add(String itemKey, String itemType, String itemId, Instant receivedAt, int partition, long offset,
             boolean newCommand, CountChange change) {
        boolean first = !live.containsKey(itemKey) && sentThisInterval.add(itemKey);
        CountDelta delta = first ? fresh(itemType, itemId, receivedAt, partition, offset)
                : entry(itemKey, itemType, itemId, receivedAt, partition, offset);
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
        if (first) {
            sendNow.accept(itemKey, delta);
        } else {
            store.put(itemKey, delta);
        }
    }

    /** The item's pending delta, created if there is none, its times and position moved to a command's. */
    private CountDelta entry(String itemKey, String itemType, String itemId, Instant receivedAt, int partition,
                             long offset) {
        CountDelta delta = live.computeIfAbsent(itemKey, k -> fresh(itemType, itemId, receivedAt, partition, offset));
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

    private static CountDelta fresh(String itemType, String itemId, Instant receivedAt, int partition, long offset) {
        return CountDelta.newBuilder().setItemType(itemType).setItemId(itemId).setReactions(new HashMap<>())
                .setSourcePartition(partition).setThroughOffset(offset).setFirstReceivedAt(receivedAt)
                .setLastReceivedAt(receivedAt).build();
    }

    /** Hands every pending delta to {@code forward} (in the order the items were first touched) and clears them. */
    void flush(BiConsumer<String, CountDelta> forward) {
        for (Map.Entry<String, CountDelta> e : live.entrySet()) {
            forward.accept(e.getKey(), e.getValue());
            store.delete(e.getKey());
        }
        live.clear();
        sentThisInterval.clear();
    }
}
