package dev.tally.common.ranking;

import dev.tally.common.query.Scores;
import dev.tally.schema.VoteEvent;
import java.time.Instant;

/**
 * One item as the rankings of one policy see it, and its key in each {@link RankedList}: the rule table of the
 * ranked lists. u and d are the item's up- and downvotes weighed by the policy, s = u − d, t its first vote.
 *
 * <table>
 *   <caption>Each list's key, and which items it holds</caption>
 *   <tr><th>list</th><th>key</th><th>holds</th></tr>
 *   <tr><td>hot</td><td>{@link Scores#hot}(s, t)</td><td>every item</td></tr>
 *   <tr><td>best</td><td>{@link Scores#wilsonLowerBound}(u, u + d, z)</td><td>items with u + d &gt; 0</td></tr>
 *   <tr><td>top, a finite window</td><td>s over the votes cast in the window ({@link WindowedScore})</td>
 *       <td>items with a current vote cast in the window that weighs more than 0</td></tr>
 *   <tr><td>top, all</td><td>s</td><td>every item</td></tr>
 *   <tr><td>controversial</td><td>{@link Scores#controversy}(u, d)</td><td>items with u &gt; 0 and d &gt; 0</td></tr>
 *   <tr><td>new</td><td>t in epoch milliseconds</td><td>every item</td></tr>
 * </table>
 * The upvotes and downvotes it counts are the item's own, every current vote once, whatever the policy.
 * t is the time of the first event of the item that the rankings saw: its first vote or reaction.
 */
public final class RankedItem {
    private static final int LISTS = RankedList.values().length;
    /** Sums of weights that cancel out may end a hair off 0: below this they are 0. */
    private static final double ZERO = 1e-9;

    private long upvotes;
    private long downvotes;
    private double weightedUp;
    private double weightedDown;
    private Instant firstVoteAt;
    private WindowedScore scores;
    /** When its keys were last computed, so the keys it is listed under can be computed again and taken away. */
    private Instant placedAt;

    public RankedItem() {
        this(0, 0, 0, 0, null, new WindowedScore(), null);
    }

    /** An item as a store wrote it. */
    public RankedItem(long upvotes, long downvotes, double weightedUp, double weightedDown, Instant firstVoteAt,
                      WindowedScore scores, Instant placedAt) {
        this.upvotes = upvotes;
        this.downvotes = downvotes;
        this.weightedUp = weightedUp;
        this.weightedDown = weightedDown;
        this.firstVoteAt = firstVoteAt;
        this.scores = scores;
        this.placedAt = placedAt;
    }

    /** Folds one event of this item in, its votes weighed by {@code policy}. */
    public void apply(VoteEvent event, RankingPolicy policy) {
        if (firstVoteAt == null || event.getReceivedAt().isBefore(firstVoteAt)) {
            firstVoteAt = event.getReceivedAt();
        }
        WeighedVotes.of(event, policy, (vote, weight, castAt, cast) -> {
            int sign = cast ? 1 : -1; // a vote taken back counts against what it added
            if (vote == 1) {
                upvotes += sign;
                weightedUp += sign * weight;
            } else {
                downvotes += sign;
                weightedDown += sign * weight;
            }
            double value = vote * weight;
            scores.add(cast ? value : -value, weight == 0 ? 0 : sign, castAt);
        });
    }

    /** The item's key in {@code list} at {@code now}, or NaN when the list does not hold it. */
    public double key(RankedList list, Instant now, double z) {
        double u = Math.max(0, weightedUp); // sums of weights that cancel may end a hair below 0
        double d = Math.max(0, weightedDown);
        return switch (list) {
            case HOT -> Scores.hot(weightedScore(), firstVoteAt);
            case BEST -> u + d > ZERO ? Scores.wilsonLowerBound(u, u + d, z) : Double.NaN;
            case TOP_ALL -> weightedScore();
            case CONTROVERSIAL -> u > ZERO && d > ZERO ? Scores.controversy(u, d) : Double.NaN;
            case NEW -> firstVoteAt.toEpochMilli();
            default -> scores.holds(list.window(), now) ? scores.score(list.window(), now) : Double.NaN;
        };
    }

    /** When a list's key changes without a vote (a vote leaves a window), or null. */
    public Instant nextChange() {
        return scores.nextChange();
    }

    /**
     * Its key in every list at {@code now} (NaN where a list does not hold it), by list ordinal; votes no window
     * counts any more are forgotten first.
     */
    public double[] place(Instant now, double z) {
        scores.expire(now);
        placedAt = now;
        return keys(now, z);
    }

    /** The keys it was last placed under ({@link #place}), or null when it never was. */
    public double[] placed(double z) {
        return placedAt == null ? null : keys(placedAt, z);
    }

    private double[] keys(Instant at, double z) {
        double[] keys = new double[LISTS];
        for (RankedList list : RankedList.values()) {
            keys[list.ordinal()] = key(list, at, z);
        }
        return keys;
    }

    public Instant placedAt() {
        return placedAt;
    }

    public double weightedScore() {
        return scores.all();
    }

    public long upvotes() {
        return upvotes;
    }

    public long downvotes() {
        return downvotes;
    }

    public double weightedUp() {
        return weightedUp;
    }

    public double weightedDown() {
        return weightedDown;
    }

    public Instant firstVoteAt() {
        return firstVoteAt;
    }

    public WindowedScore scores() {
        return scores;
    }

}
