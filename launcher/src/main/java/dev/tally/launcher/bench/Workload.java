package dev.tally.launcher.bench;

import java.util.HexFormat;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What the bench votes on. Every vote is a distinct (voter, item) pair: the voter is derived from the
 * vote's sequence number ({@link #voter}), so each acknowledged set-mode vote must appear exactly once in
 * the event log — which is what makes {@code lost} and {@code double_counted} exact.
 *
 * <ul>
 *   <li>{@code uniform}: items drawn uniformly from {@value #ITEMS}.</li>
 *   <li>{@code zipf}: items drawn from a Zipf distribution with s = {@value #ZIPF_S} over {@value #ITEMS}
 *       (item {@code i0} the most popular).</li>
 *   <li>{@code viral}: every vote on one item.</li>
 *   <li>{@code catalogue}: items drawn uniformly from {@value #CATALOGUE_ITEMS} (the soak: memory against
 *       the size of the catalogue).</li>
 *   <li>{@code spread}: the {@value #CATALOGUE_ITEMS} items of the catalogue in turn, so a million votes rank a
 *       million items (the ranked lists' bench).</li>
 *   <li>{@code hooked}: items drawn uniformly from {@value #HOOKED_ITEMS}, the items the webhook bench's
 *       subscribers share out.</li>
 * </ul>
 * Voters: a distinct, hashed-looking id per vote (one vote per voter, so N votes come from N voters).
 */
public enum Workload {
    UNIFORM, ZIPF, VIRAL, CATALOGUE, SPREAD, HOOKED;

    public static final int ITEMS = 100_000;
    public static final int CATALOGUE_ITEMS = 1_000_000;
    public static final int HOOKED_ITEMS = 10_000;
    public static final double ZIPF_S = 1.1;
    public static final String ITEM_TYPE = "post";
    public static final String VIRAL_ITEM = "viral";

    private static volatile Zipf zipf;

    /** One vote to send. */
    public record Vote(long seq, String voter, String itemId, int value) {
        public String itemKey() {
            return dev.tally.schemas.Topics.itemKey(ITEM_TYPE, itemId);
        }
    }

    public static Workload parse(String name) {
        try {
            return valueOf(name.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--workload must be uniform, zipf, viral, catalogue, spread or hooked, was '" + name + "'");
        }
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The vote with sequence number {@code seq}: its own voter, an item of this workload, up or down. */
    public Vote vote(long seq, SplittableRandom random) {
        String item = this == SPREAD ? "c" + Math.floorMod(seq, (long) CATALOGUE_ITEMS) : item(random);
        return new Vote(seq, voter(seq), item, random.nextBoolean() ? 1 : -1);
    }

    /** An item id drawn from this workload's distribution (also what the read load asks for). */
    public String item(SplittableRandom random) {
        return switch (this) {
            case UNIFORM -> "i" + random.nextInt(ITEMS);
            case ZIPF -> "i" + zipf().sample(random);
            case VIRAL -> VIRAL_ITEM;
            case CATALOGUE, SPREAD -> "c" + random.nextInt(CATALOGUE_ITEMS);
            case HOOKED -> "h" + random.nextInt(HOOKED_ITEMS);
        };
    }

    /**
     * A distinct voter id per sequence number, hashed-looking ({@code bench-} and 16 hex digits). Not
     * {@code String.format}, whose pattern parsing would take a sender's CPU from the node under test.
     */
    public static String voter(long seq) {
        return "bench-" + HexFormat.of().toHexDigits(mix(seq));
    }

    /** The splitmix64 finalizer: a bijection on 64-bit values, so distinct sequence numbers give distinct ids. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static Zipf zipf() {
        Zipf z = zipf;
        if (z == null) {
            synchronized (Workload.class) {
                if (zipf == null) {
                    zipf = new Zipf(ITEMS, ZIPF_S);
                }
                z = zipf;
            }
        }
        return z;
    }

    /** Zipf over ranks 0..n-1 (P(k) ∝ 1/(k+1)^s), sampled by binary search in the cumulative distribution. */
    static final class Zipf {
        private final double[] cdf;

        Zipf(int n, double s) {
            cdf = new double[n];
            double sum = 0;
            for (int k = 0; k < n; k++) {
                sum += 1.0 / Math.pow(k + 1, s);
                cdf[k] = sum;
            }
            for (int k = 0; k < n; k++) {
                cdf[k] /= sum;
            }
            cdf[n - 1] = 1.0;
        }

        int sample(SplittableRandom random) {
            double u = random.nextDouble();
            int lo = 0;
            int hi = cdf.length - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        double probability(int k) {
            return k == 0 ? cdf[0] : cdf[k] - cdf[k - 1];
        }
    }
}
