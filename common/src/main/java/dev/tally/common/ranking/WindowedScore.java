package dev.tally.common.ranking;

import dev.tally.schema.VoteEvent;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One item's net weighted score over each trailing window of {@code sort=top}: the sum of {@code vote × weight} of
 * its current votes cast in the window. A vote leaves a window as time passes, without a new vote.
 *
 * <table>
 *   <caption>The rule</caption>
 *   <tr><th>what</th><th>how</th></tr>
 *   <tr><td>buckets</td><td>each finite window is cut into buckets of 1/{@value #BUCKETS} of its length (an hour:
 *       1 minute; a day: 24 minutes; a year: about 6 days), aligned to the Unix epoch</td></tr>
 *   <tr><td>in the window at {@code now}</td><td>a vote whose bucket is one of the last {@value #BUCKETS}, now's
 *       included: it leaves between 59/60 and the whole of the window's length after it was cast</td></tr>
 *   <tr><td>a vote without a cast time</td><td>(stored before cast times were kept) in {@code all} only</td></tr>
 *   <tr><td>an event</td><td>takes away the vote {@code before} held, at {@code before_cast_at}, and adds the
 *       vote {@code after} holds: cast at {@code received_at} if it differs from before's, else at
 *       {@code before_cast_at}; a reaction alone changes nothing</td></tr>
 *   <tr><td>a bucket</td><td>the sum of its votes and how many there are (votes that weigh nothing not counted);
 *       it is gone when its votes are all taken back</td></tr>
 *   <tr><td>what a vote adds</td><td>{@code vote × weight}, the weight as the {@link RankingPolicy} says</td></tr>
 * </table>
 */
public final class WindowedScore {
    static final int BUCKETS = 60;
    /** Each window's bucket length in milliseconds, by ordinal (0 for {@code all}). */
    private static final long[] BUCKET_MILLIS = new long[RankingWindow.values().length];

    static {
        for (RankingWindow w : RankingWindow.values()) {
            BUCKET_MILLIS[w.ordinal()] = w.length() == null ? 0 : w.length().toMillis() / BUCKETS;
        }
    }

    private final Map<RankingWindow, TreeMap<Long, double[]>> buckets = new EnumMap<>(RankingWindow.class);
    private double all;

    /**
     * Adds {@code value} (a vote times its weight; negative to take one back) of {@code votes} votes (1, or -1 to take
     * one back; 0 for a vote that weighs nothing) cast at {@code castAt}, or at an unknown time (null).
     */
    public void add(double value, int votes, Instant castAt) {
        all += value;
        if (castAt == null) {
            return;
        }
        for (RankingWindow w : RankingWindow.values()) {
            if (w.length() != null) {
                TreeMap<Long, double[]> b = buckets.computeIfAbsent(w, x -> new TreeMap<>());
                long bucket = bucket(w, castAt);
                double[] sumAndVotes = b.computeIfAbsent(bucket, x -> new double[2]);
                sumAndVotes[0] += value;
                sumAndVotes[1] += votes;
                if (sumAndVotes[1] <= 0) {
                    b.remove(bucket);
                }
            }
        }
    }

    /** What one vote event changes, its votes weighed by {@code policy} ({@link WeighedVotes}). */
    public void apply(VoteEvent event, RankingPolicy policy) {
        WeighedVotes.of(event, policy, (vote, weight, castAt, cast) -> add((cast ? vote : -vote) * weight,
                weight == 0 ? 0 : cast ? 1 : -1, castAt));
    }

    /** The score over {@code window} at {@code now}. */
    public double score(RankingWindow window, Instant now) {
        if (window.length() == null) {
            return all;
        }
        TreeMap<Long, double[]> b = buckets.get(window);
        if (b == null) {
            return 0;
        }
        double sum = 0;
        for (double[] v : b.tailMap(bucket(window, now) - BUCKETS, false).values()) {
            sum += v[0];
        }
        return sum;
    }

    /** Forgets the buckets no window holds at {@code now} any more; the score of every window stays the same. */
    public void expire(Instant now) {
        buckets.forEach((w, b) -> b.headMap(bucket(w, now) - BUCKETS, true).clear());
        buckets.values().removeIf(TreeMap::isEmpty);
    }

    /** Whether a vote that weighs something was cast in {@code window} at {@code now}; {@code all} holds every item. */
    public boolean holds(RankingWindow window, Instant now) {
        if (window.length() == null) {
            return true;
        }
        TreeMap<Long, double[]> b = buckets.get(window);
        return b != null && b.higherKey(bucket(window, now) - BUCKETS) != null;
    }

    /** When the next bucket leaves its window, so a score changes without a vote; null when none will. */
    public Instant nextChange() {
        long next = Long.MAX_VALUE;
        for (var e : buckets.entrySet()) {
            if (!e.getValue().isEmpty()) {
                long length = BUCKET_MILLIS[e.getKey().ordinal()];
                next = Math.min(next, (e.getValue().firstKey() + BUCKETS) * length);
            }
        }
        return next == Long.MAX_VALUE ? null : Instant.ofEpochMilli(next);
    }

    /** The score over {@code all}: every vote, whenever cast. */
    public double all() {
        return all;
    }

    /** Each finite window's buckets (bucket number, then sum), for a store to write; read-only. */
    public Map<RankingWindow, SortedMap<Long, double[]>> buckets() {
        Map<RankingWindow, SortedMap<Long, double[]>> out = new EnumMap<>(RankingWindow.class);
        buckets.forEach((w, b) -> out.put(w, Collections.unmodifiableSortedMap(b)));
        return out;
    }

    /** A score as a store wrote it: {@link #all()} and {@link #buckets()}. */
    public static WindowedScore of(double all, Map<RankingWindow, ? extends Map<Long, double[]>> buckets) {
        WindowedScore s = new WindowedScore();
        s.all = all;
        buckets.forEach((w, b) -> {
            if (w.length() == null) {
                throw new IllegalArgumentException("window all has no buckets");
            }
            if (!b.isEmpty()) {
                s.buckets.put(w, new TreeMap<>(b));
            }
        });
        return s;
    }

    /** Whether it holds any bucket: an item with none has 0 in every finite window. */
    public boolean hasRecentVotes() {
        return !buckets.isEmpty();
    }

    static long bucket(RankingWindow window, Instant t) {
        return Math.floorDiv(t.toEpochMilli(), BUCKET_MILLIS[window.ordinal()]);
    }

}
