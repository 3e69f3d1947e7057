package dev.tally.common.query;

import dev.tally.common.VoterState;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of one item as a reader sees them, with the per-partition watermarks they reflect.
 *
 * @param watermarks per {@code tally.vote-commands} partition, the highest command offset reflected
 */
public record ItemCountsView(String itemType, String itemId, long upvotes, long downvotes,
                             Map<String, Long> reactions, Map<Integer, Long> watermarks) {
    public ItemCountsView {
        reactions = Map.copyOf(reactions);
        watermarks = Map.copyOf(watermarks);
    }

    public static ItemCountsView empty(String itemType, String itemId) {
        return new ItemCountsView(itemType, itemId, 0, 0, Map.of(), Map.of());
    }

    public long score() {
        return upvotes - downvotes;
    }

    /** Whether the command at {@code offset} of commands partition {@code partition} is already counted. */
    public boolean reflects(int partition, long offset) {
        return watermarks.getOrDefault(partition, -1L) >= offset;
    }

    /** These counts with one voter's change from {@code before} to {@code after} added. */
    public ItemCountsView plus(VoterState before, VoterState after) {
        Map<String, Long> r = new TreeMap<>(reactions);
        if (before.reaction() != null) {
            r.merge(before.reaction(), -1L, Long::sum);
        }
        if (after.reaction() != null) {
            r.merge(after.reaction(), 1L, Long::sum);
        }
        r.values().removeIf(n -> n == 0);
        return new ItemCountsView(itemType, itemId,
                upvotes + up(after) - up(before), downvotes + down(after) - down(before), r, watermarks);
    }

    /** The log position these counts reflect, as {@code partition:offset,...} for a response header. */
    public String position() {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(watermarks).forEach((p, o) -> sb.append(sb.isEmpty() ? "" : ",").append(p).append(':').append(o));
        return sb.toString();
    }

    private static long up(VoterState s) {
        return s.vote() == 1 ? 1 : 0;
    }

    private static long down(VoterState s) {
        return s.vote() == -1 ? 1 : 0;
    }
}
