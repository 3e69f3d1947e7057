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
    void theCandidatesStayExactWhileTheyHoldAFullListBetterThanEveryOutsider() {
        TopCandidates candidates = new TopCandidates();
        int items = TopCandidates.PER_TYPE + 1; // the worst is pushed out
        for (int i = 0; i < items; i++) {
            candidates.accept(counts("post", "i" + i, 10 + i, 1));
        }
        assertThat(candidates.size()).isEqualTo(TopCandidates.PER_TYPE);
        int keep = Rankings.MAX_ITEMS;
        for (int i = 1; i < items - keep; i++) { // all but the best 50 (and the pushed-out worst) lose their votes
            candidates.accept(counts("post", "i" + i, 0, 1));
        }
        assertThat(candidates.size()).isEqualTo(keep);
        assertThat(candidates.snapshot().inexact()).as("a full list, each better than the outsider").isEmpty();
        candidates.accept(counts("post", "i" + (items - 1), 0, 1));
        assertThat(candidates.snapshot().inexact()).as("one short of a full list").containsExactly("post");
    }

    @Test
    void theBestOutsiderIsRememberedAndAFullListThatFallsBelowItIsNotExact() {
        TopCandidates candidates = full();
        candidates.accept(counts("post", "good", 10, 1)); // left out: worse than every candidate
        candidates.accept(counts("post", "poor", 5, 1)); // left out too, and worse than the first outsider
        assertThat(candidates.snapshot().inexact()).isEmpty();
        for (int i = 0; i < TopCandidates.PER_TYPE; i++) { // every candidate falls between the two outsiders
            candidates.accept(counts("post", "i" + i, 7, 1));
        }
        assertThat(candidates.size()).isEqualTo(TopCandidates.PER_TYPE);
        assertThat(candidates.snapshot().inexact()).as("the first outsider ranks above the fiftieth candidate")
                .containsExactly("post");
    }

    @Test
    void aFewCandidatesWithAnOutsiderBeyondThemAreNotExact() {
        TopCandidates candidates = full();
        candidates.accept(counts("post", "low", 10, 1)); // never in: worse than every candidate
        for (int i = 0; i < TopCandidates.PER_TYPE - Rankings.MAX_ITEMS + 1; i++) {
            candidates.accept(counts("post", "i" + i, 0, 1));
        }
        assertThat(candidates.size()).isEqualTo(Rankings.MAX_ITEMS - 1);
        assertThat(candidates.snapshot().inexact()).as("the outsider might belong in the list").containsExactly("post");
    }

    /** As many posts as a type keeps, each far above the gates. */
    private static TopCandidates full() {
        TopCandidates candidates = new TopCandidates();
        for (int i = 0; i < TopCandidates.PER_TYPE; i++) {
            candidates.accept(counts("post", "i" + i, 1000 + i, 1));
        }
        return candidates;
    }

    @Test
    void aThousandTypesAreRankedAndLaterOnesAreNot() {
        TopCandidates candidates = new TopCandidates();
        for (int t = 0; t < TopCandidates.MAX_TYPES; t++) {
            candidates.accept(counts("t" + t, "1", 1, 0));
        }
        List<String> warnings = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        var logs = (org.apache.logging.log4j.core.LoggerContext) org.apache.logging.log4j.LogManager.getContext(false);
        var appender = new org.apache.logging.log4j.core.appender.AbstractAppender("too-many-types", null, null, true,
                org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
            @Override
            public void append(org.apache.logging.log4j.core.LogEvent event) {
                warnings.add(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        var logger = new org.apache.logging.log4j.core.config.LoggerConfig(TopCandidates.class.getName(),
                org.apache.logging.log4j.Level.WARN, false);
        logger.addAppender(appender, org.apache.logging.log4j.Level.WARN, null);
        logs.getConfiguration().addLogger(TopCandidates.class.getName(), logger);
        logs.updateLoggers();
        try {
            candidates.accept(counts("late", "1", 100, 0));
            candidates.accept(counts("later", "1", 100, 0));
        } finally {
            logs.getConfiguration().removeLogger(TopCandidates.class.getName());
            logs.updateLoggers();
        }
        assertThat(candidates.snapshot().exact()).hasSize(TopCandidates.MAX_TYPES).doesNotContainKeys("late", "later");
        assertThat(warnings).as("said once").containsExactly("more than 1000 item types to rank; 'late' and later ones are not ranked");
    }

    @Test
    void aTypeWithNoRankableItemStillGetsItsInsufficientDataList() {
        TopCandidates candidates = new TopCandidates();
        candidates.accept(counts("post", "1", 1, 0));
        assertThat(candidates.snapshot().exact()).containsOnlyKeys("post");
        assertThat(candidates.snapshot().exact().get("post")).isEmpty();
    }
}
