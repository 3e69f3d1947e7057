package dev.tally.common.query;

import dev.tally.common.CountChange;
import dev.tally.common.VoterState;
import dev.tally.schema.ItemCounts;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of one item as a reader sees them, with the per-partition watermarks they reflect.
 *
 * @param weightedUp  upvotes weighted by voter trust (a vote from an account younger than a day weighs 0.1)
 * @param firstVoteAt when the item's first vote was counted (the age term of the hot rank)
 * @param watermarks  per {@code tally.vote-commands} partition, the highest command offset reflected
 * @param stale       answered by a standby replica during a rebalance: possibly behind
 */
public record ItemCountsView(String itemType, String itemId, long upvotes, long downvotes,
                             Map<String, Long> reactions, double weightedUp, double weightedDown,
                             Instant firstVoteAt, Map<Integer, Long> watermarks, boolean stale) {
    public ItemCountsView {
        reactions = Map.copyOf(reactions);
        watermarks = Map.copyOf(watermarks);
    }

    public static ItemCountsView empty(String itemType, String itemId) {
        return new ItemCountsView(itemType, itemId, 0, 0, Map.of(), 0, 0, Instant.EPOCH, Map.of(), false);
    }

    /** The view of a stored or published {@code ItemCounts} record. */
    public static ItemCountsView of(ItemCounts c, boolean stale) {
        Map<Integer, Long> watermarks = new HashMap<>();
        c.getWatermarks().forEach((p, o) -> watermarks.put(Integer.parseInt(p), o));
        return new ItemCountsView(c.getItemType(), c.getItemId(), c.getUpvotes(), c.getDownvotes(), c.getReactions(),
                c.getWeightedUp(), c.getWeightedDown(), c.getFirstVoteAt(), watermarks, stale);
    }

    public long score() {
        return upvotes - downvotes;
    }

    public double weightedScore() {
        return weightedUp - weightedDown;
    }

    /** Wilson lower bound at 95% over the weighted votes. */
    public double wilson() {
        return Scores.wilsonLowerBound(weightedUp, weightedUp + weightedDown, Scores.Z95);
    }

    /** The hot rank; 0 for an item nobody has voted on. */
    public double hot() {
        return firstVoteAt.equals(Instant.EPOCH) ? 0 : Scores.hot(weightedScore(), firstVoteAt);
    }

    /** Whether the command at {@code offset} of commands partition {@code partition} is already counted. */
    public boolean reflects(int partition, long offset) {
        return watermarks.getOrDefault(partition, -1L) >= offset;
    }

    /** These counts with one voter's change from {@code before} to {@code after} added, each state with its vote's weight. */
    public ItemCountsView plus(VoterState before, double weightBefore, VoterState after, double weightAfter) {
        CountChange change = CountChange.of(before, after, weightBefore, weightAfter);
        Map<String, Long> r = new TreeMap<>(reactions);
        change.applyTo(r);
        r.values().removeIf(n -> n == 0);
        return new ItemCountsView(itemType, itemId, upvotes + change.up(), downvotes + change.down(), r,
                weightedUp + change.weightedUp(), weightedDown + change.weightedDown(), firstVoteAt, watermarks, stale);
    }

    /** The log position these counts reflect, as {@code partition:offset,...} for a response header. */
    public String position() {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(watermarks).forEach((p, o) -> sb.append(sb.isEmpty() ? "" : ",").append(p).append(':').append(o));
        return sb.toString();
    }

}
