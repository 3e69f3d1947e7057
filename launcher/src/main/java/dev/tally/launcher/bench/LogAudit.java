package dev.tally.launcher.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The pure part of the end-of-run check (no Kafka): folds the event log into "how many distinct votes
 * were counted, how many were counted twice" and into per-item totals, and the offsets of the commands
 * each item's view must reflect.
 *
 * <p>Every bench vote is a distinct (voter, item) pair voted once in set mode, so each acknowledged vote
 * must produce exactly one event: an acknowledged vote with no event is {@code lost}; a second event for
 * the same pair is {@code double_counted}.
 */
public final class LogAudit {
    private long[] pairs = new long[1 << 16];
    private int events;
    private final Map<String, long[]> totals = new HashMap<>();        // item -> {up, down}
    private final Map<String, long[]> required = new HashMap<>();      // item -> max command offset per partition
    private final int partitions;
    private final boolean perItem;

    /** @param partitions partitions of {@code tally.vote-commands} */
    public LogAudit(int partitions) {
        this(partitions, true);
    }

    private LogAudit(int partitions, boolean perItem) {
        this.partitions = partitions;
        this.perItem = perItem;
    }

    /** An audit of lost and double-counted votes only, with no per-item totals: for logs over a large catalogue. */
    public static LogAudit votesOnly() {
        return new LogAudit(0, false);
    }

    /** One event of the log: who, on what, the vote before and after, and the command it came from. */
    public void accept(String voter, String itemKey, int voteBefore, int voteAfter, int sourcePartition, long sourceOffset) {
        if (events == pairs.length) {
            pairs = Arrays.copyOf(pairs, pairs.length * 2);
        }
        pairs[events++] = hash(voter + "|" + itemKey);
        if (!perItem) {
            return;
        }
        long[] t = totals.computeIfAbsent(itemKey, k -> new long[2]);
        t[0] += (voteAfter == 1 ? 1 : 0) - (voteBefore == 1 ? 1 : 0);
        t[1] += (voteAfter == -1 ? 1 : 0) - (voteBefore == -1 ? 1 : 0);
        if (sourcePartition >= 0 && sourcePartition < partitions) {
            long[] r = required.computeIfAbsent(itemKey, k -> {
                long[] a = new long[partitions];
                Arrays.fill(a, -1);
                return a;
            });
            r[sourcePartition] = Math.max(r[sourcePartition], sourceOffset);
        }
    }

    public long events() {
        return events;
    }

    /** Distinct (voter, item) pairs with at least one event. */
    public long distinctPairs() {
        Arrays.sort(pairs, 0, events); // in place: the order of the pairs means nothing
        long distinct = 0;
        for (int i = 0; i < events; i++) {
            if (i == 0 || pairs[i] != pairs[i - 1]) {
                distinct++;
            }
        }
        return distinct;
    }

    /** Per item key, {up, down} as the log adds them up. */
    public Map<String, long[]> totals() {
        requirePerItem();
        return totals;
    }

    /** Per item key, the highest command offset per {@code tally.vote-commands} partition its view must reflect. */
    public Map<String, long[]> required() {
        requirePerItem();
        return required;
    }

    private void requirePerItem() {
        if (!perItem) {
            throw new IllegalStateException("a votes-only audit keeps no per-item figures");
        }
    }

    /** Counted, lost and double-counted votes, given how many the load saw acknowledged. */
    public Tallies tallies(long acknowledged) {
        long counted = distinctPairs();
        return new Tallies(counted, Math.max(0, acknowledged - counted), events - counted);
    }

    public record Tallies(long counted, long lost, long doubleCounted) {}

    /** FNV-1a 64 with a splitmix finalizer: a collision among 10^6 pairs has odds of about 10^-8. */
    static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return Workload.mix(h);
    }
}
