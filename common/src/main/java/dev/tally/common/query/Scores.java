package dev.tally.common.query;

import java.time.Instant;

/** The ranking math, in one place: the Wilson lower bound, a hot rank and a controversy rank. */
public final class Scores {
    /** z for a 95% confidence bound. */
    public static final double Z95 = 1.96;
    /** The hot rank's time origin; one order of magnitude of score is worth 12.5 hours of age. */
    static final Instant HOT_EPOCH = Instant.parse("2026-01-01T00:00:00Z");
    static final double HOT_SECONDS_PER_DECADE = 45_000;

    private Scores() {}

    /**
     * Lower bound of the Wilson score interval for the share of upvotes: few votes mean a wide interval
     * and a low bound, so one lucky vote does not beat a long record. 1 of 1 ≈ 0.21, 900 of 1000 ≈ 0.88.
     */
    public static double wilsonLowerBound(double up, double total, double z) {
        if (total <= 0) {
            return 0;
        }
        double p = up / total;
        double z2 = z * z;
        return (p + z2 / (2 * total) - z * Math.sqrt((p * (1 - p) + z2 / (4 * total)) / total)) / (1 + z2 / total);
    }

    /**
     * Hot rank: {@code sign(s) · log10(max(|s|, 1)) + (first vote − 2026-01-01) / 45000 s}, where s is the
     * weighted score. Ten times the score is worth 12.5 hours of freshness, so new items with some votes
     * rise above old items with many.
     */
    public static double hot(double weightedScore, Instant firstVoteAt) {
        double order = Math.log10(Math.max(Math.abs(weightedScore), 1));
        double sign = Math.signum(weightedScore);
        double age = (firstVoteAt.getEpochSecond() - HOT_EPOCH.getEpochSecond()) / HOT_SECONDS_PER_DECADE;
        return sign * order + age;
    }

    /**
     * Controversy: {@code (u + d)^(min(u, d) / max(u, d))} — many votes split evenly rank highest; 0 unless the item
     * has both kinds. 50 up and 50 down = 100; 100 up and 1 down = 101^0.01 ≈ 1.05.
     */
    public static double controversy(double up, double down) {
        if (up <= 0 || down <= 0) {
            return 0;
        }
        return Math.pow(up + down, Math.min(up, down) / Math.max(up, down));
    }
}
