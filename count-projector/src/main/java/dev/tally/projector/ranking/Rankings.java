package dev.tally.projector.ranking;

import dev.tally.schema.ItemCounts;
import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ranking of one item type, as a pure function of the latest counts of its items.
 *
 * <p>Sorting by net score buries new items and sorting by ratio lets one lucky vote win, so items are
 * gated on evidence (weighted total ≥ 5, weighted up ≥ 3, weighted approval ≥ 0.55), then ordered by
 * weighted up, the Wilson lower bound, weighted net, weighted total and finally the item key: a total
 * order, so the list never shuffles between runs (which would look like a bug and churn the CDN cache).
 * Fewer than five eligible items publish no list at all: an almost empty leaderboard is worse than an
 * honest "being updated", and trivially gamed on day one.
 */
public final class Rankings {
    public static final int SCHEMA_VERSION = 1;
    public static final int MIN_ITEMS = 5;
    public static final int MAX_ITEMS = 50;

    /**
     * Weighted up desc, Wilson desc, weighted net desc, weighted total desc, key asc (by UTF-16 code unit,
     * not locale, so every JVM agrees). Note that for equal weighted up, Wilson already
     * prefers the smaller total, so net only decides when two bounds coincide to the last bit, and total
     * never does (equal up and net mean equal down). The key is what makes the order total.
     */
    static final Comparator<RankingCandidate> ORDER = Comparator
            .comparingDouble(RankingCandidate::weightedUp).reversed()
            .thenComparing(Comparator.comparingDouble(RankingCandidate::wilson).reversed())
            .thenComparing(Comparator.comparingDouble(RankingCandidate::net).reversed())
            .thenComparing(Comparator.comparingDouble(RankingCandidate::total).reversed())
            .thenComparing(RankingCandidate::key);

    private Rankings() {}

    /**
     * Ranks the items of one type.
     *
     * @param latest      the latest counts of every item of {@code itemType}, in any order
     * @param generatedAt when this ranking is made (kept to the millisecond, as the artifact stores it)
     * @throws IllegalArgumentException if an item is of another type or appears twice
     */
    public static RankingArtifact rank(String itemType, Collection<ItemCounts> latest, Instant generatedAt) {
        List<RankingCandidate> eligible = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ItemCounts counts : latest) {
            RankingCandidate c = RankingCandidate.of(counts);
            if (!itemType.equals(c.itemType())) {
                throw new IllegalArgumentException("item " + c.key() + " is not of type '" + itemType + "'");
            }
            if (!seen.add(c.key())) {
                throw new IllegalArgumentException("item " + c.key() + " appears twice in the counts of '" + itemType + "'");
            }
            // an id no client may show would make the whole artifact unservable; it cannot be ranked
            if (c.eligible() && RankingValidator.ITEM_ID.matcher(c.itemId()).matches()) {
                eligible.add(c);
            }
        }
        if (eligible.size() < MIN_ITEMS) {
            return insufficientData(itemType, generatedAt);
        }
        eligible.sort(ORDER);
        List<RankedItem> items = new ArrayList<>();
        for (RankingCandidate c : eligible.subList(0, Math.min(MAX_ITEMS, eligible.size()))) {
            items.add(new RankedItem(items.size() + 1, c.itemType(), c.itemId(), c.up(), c.down(), c.wilson()));
        }
        return artifact(itemType, generatedAt, RankingStatus.READY, items);
    }

    /** The honest placeholder: no list, so a client shows "being updated". */
    public static RankingArtifact insufficientData(String itemType, Instant generatedAt) {
        return artifact(itemType, generatedAt, RankingStatus.INSUFFICIENT_DATA, List.of());
    }

    private static RankingArtifact artifact(String itemType, Instant generatedAt, RankingStatus status,
                                            List<RankedItem> items) {
        return RankingArtifact.newBuilder().setSchemaVersion(SCHEMA_VERSION).setItemType(itemType)
                .setGeneratedAt(generatedAt.truncatedTo(ChronoUnit.MILLIS)).setStatus(status)
                .setItems(new ArrayList<>(items)).build();
    }
}
