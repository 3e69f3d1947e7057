package dev.tally.projector.ranking;

import dev.tally.common.query.Scores;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;

/**
 * One item as the ranking sees it. Gates and order use the weighted counts, so accounts that weigh
 * little (new accounts count 0.1) cannot push an item onto the list; {@code up} and {@code down} are the
 * raw counts, shown to people.
 *
 * @param weightedUp   weighted upvotes, rounded to millionths (see {@link #normalize})
 * @param weightedDown weighted downvotes, rounded to millionths
 * @param wilson       Wilson lower bound (z = 1.96) of the weighted upvote share
 */
record RankingCandidate(String itemType, String itemId, long up, long down, double weightedUp, double weightedDown,
                        double wilson) {
    /** Gates: below these no amount of maths rescues the sample. */
    static final double MIN_TOTAL = 5;
    static final double MIN_UP = 3;
    static final double MIN_APPROVAL = 0.55;

    static RankingCandidate of(ItemCounts counts) {
        double up = normalize(counts.getWeightedUp());
        double down = normalize(counts.getWeightedDown());
        return new RankingCandidate(counts.getItemType(), counts.getItemId(), counts.getUpvotes(), counts.getDownvotes(),
                up, down, Scores.wilsonLowerBound(up, up + down, Scores.Z95));
    }

    /**
     * Weighted counts are sums of doubles such as 0.1, which binary cannot hold exactly: fifty votes of
     * 0.1 sum to 4.999999999999999, and the same votes summed in another order may differ in the last
     * bit. Rounding to millionths makes the gates mean what they say and the order the same on every run.
     * Negative or non-finite sums (never expected) count as zero.
     */
    static double normalize(double weighted) {
        return Double.isFinite(weighted) ? Math.round(Math.max(0, weighted) * 1e6) / 1e6 : 0;
    }

    double total() {
        return weightedUp + weightedDown;
    }

    double net() {
        return weightedUp - weightedDown;
    }

    double approval() {
        return total() <= 0 ? 0 : weightedUp / total();
    }

    /** The item key, {@code type:id}: the last, total tie-break. */
    String key() {
        return Topics.itemKey(itemType, itemId);
    }

    boolean eligible() {
        return total() >= MIN_TOTAL && weightedUp >= MIN_UP && approval() >= MIN_APPROVAL;
    }
}
