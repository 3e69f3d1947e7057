package dev.tally.projector.ranking;

import dev.tally.schema.ItemCounts;
import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Counts and artifacts for the ranking tests. */
final class RankingFixtures {
    static final Instant NOW = Instant.parse("2026-05-01T12:00:00.123Z");

    private RankingFixtures() {}

    /** An item whose voters all weigh 1: weighted counts equal raw counts. */
    static ItemCounts counts(String type, String id, long up, long down) {
        return weighted(type, id, up, down, up, down);
    }

    static ItemCounts weighted(String type, String id, long up, long down, double weightedUp, double weightedDown) {
        return ItemCounts.newBuilder().setItemType(type).setItemId(id).setUpvotes(up).setDownvotes(down)
                .setWeightedUp(weightedUp).setWeightedDown(weightedDown).build();
    }

    /** Five clearly eligible posts (100..104 up, none down), so a probe item can be seen in a READY list. */
    static List<ItemCounts> fillers() {
        List<ItemCounts> out = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            out.add(counts("post", "filler-" + i, 100 + i, 0));
        }
        return out;
    }

    static List<ItemCounts> with(List<ItemCounts> base, ItemCounts... more) {
        List<ItemCounts> out = new ArrayList<>(base);
        out.addAll(List.of(more));
        return out;
    }

    /** A valid READY artifact of {@code n} posts generated at {@code at}. */
    static RankingArtifact ready(int n, Instant at) {
        List<RankedItem> items = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            items.add(new RankedItem(i, "post", "p" + i, 100L - i, 1L, 0.5));
        }
        return RankingArtifact.newBuilder().setSchemaVersion(1).setItemType("post").setGeneratedAt(at)
                .setStatus(RankingStatus.READY).setItems(items).build();
    }
}
