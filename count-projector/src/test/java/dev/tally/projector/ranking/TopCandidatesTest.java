package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.counts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.ItemCounts;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The bounded candidates against the whole catalogue: after every burst of random count changes (up and
 * down, items falling below the gates, three types), each type the candidates call exact ranks exactly
 * as the full latest counts do; a type they do not, ranks exactly after the counts are read again.
 */
class TopCandidatesTest {
    private static final List<String> TYPES = List.of("post", "track", "video");

    @Test
    void theCandidatesRankLikeTheWholeCatalogueOrSayTheyCannot() {
        SplittableRandom random = new SplittableRandom(7);
        TopCandidates candidates = new TopCandidates();
        Map<String, ItemCounts> latest = new TreeMap<>();
        int rereads = 0;
        for (int burst = 0; burst < 300; burst++) {
            for (int i = 0; i < 200; i++) {
                String type = TYPES.get(random.nextInt(TYPES.size()));
                String id = "i" + random.nextInt(1_500);
                ItemCounts before = latest.get(type + ":" + id);
                long up = before == null ? 0 : before.getUpvotes();
                long down = before == null ? 0 : before.getDownvotes();
                // mostly growth, sometimes a fall (votes voided) that drops an item in the list or below the gates
                int fall = random.nextInt(20);
                if (fall == 0) {
                    up = 0;
                } else if (fall == 1) {
                    up = up / 3;
                } else {
                    up += random.nextInt(4);
                    down += random.nextInt(2);
                }
                ItemCounts now = counts(type, id, up, down);
                latest.put(type + ":" + id, now);
                candidates.accept(now);
            }
            TopCandidates.Snapshot snapshot = candidates.snapshot();
            if (!snapshot.inexact().isEmpty()) {
                rereads++;
                candidates.clear();
                latest.values().forEach(candidates::accept);
                snapshot = candidates.snapshot();
                assertThat(snapshot.inexact()).as("a fresh read decides every list").isEmpty();
            }
            for (var e : snapshot.exact().entrySet()) {
                String type = e.getKey();
                List<ItemCounts> all = latest.values().stream().filter(c -> c.getItemType().equals(type)).toList();
                assertThat(Rankings.rank(type, e.getValue(), NOW)).as("burst %d, %s", burst, type)
                        .isEqualTo(Rankings.rank(type, all, NOW));
            }
            assertThat(candidates.size()).isLessThanOrEqualTo(TYPES.size() * TopCandidates.PER_TYPE);
        }
        System.out.printf("TopCandidatesTest: %d items, %d candidates held, %d re-reads in 300 bursts%n",
                latest.size(), candidates.size(), rereads);
    }

    @Test
    void whenTheListFallsPastWhatWasPushedOutTheCandidatesSaySoAndAFreshReadRanksExactly() {
        TopCandidates candidates = new TopCandidates();
        Map<String, ItemCounts> latest = new TreeMap<>();
        int items = TopCandidates.PER_TYPE + 100; // the 100 worst are pushed out
        for (int i = 0; i < items; i++) {
            ItemCounts c = counts("post", "i" + i, 10 + i, 1);
            latest.put(c.getItemId(), c);
            candidates.accept(c);
        }
        assertThat(candidates.snapshot().inexact()).isEmpty();
        assertThat(candidates.size()).isEqualTo(TopCandidates.PER_TYPE);
        for (int i = items - 1; i >= items - 180; i--) { // the best 180 lose their votes
            ItemCounts c = counts("post", "i" + i, 0, 1);
            latest.put(c.getItemId(), c);
            candidates.accept(c);
        }
        assertThat(candidates.snapshot().inexact()).as("20 candidates left, better outsiders exist").containsExactly("post");
        candidates.clear();
        latest.values().forEach(candidates::accept);
        TopCandidates.Snapshot again = candidates.snapshot();
        assertThat(again.inexact()).isEmpty();
        assertThat(Rankings.rank("post", again.exact().get("post"), NOW))
                .isEqualTo(Rankings.rank("post", latest.values(), NOW));
    }

    @Test
    void aTypeWithNoRankableItemStillGetsItsInsufficientDataList() {
        TopCandidates candidates = new TopCandidates();
        candidates.accept(counts("post", "1", 1, 0));
        assertThat(candidates.snapshot().exact()).containsOnlyKeys("post");
        assertThat(candidates.snapshot().exact().get("post")).isEmpty();
    }
}
