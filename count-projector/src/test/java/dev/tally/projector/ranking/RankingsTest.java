package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.counts;
import static dev.tally.projector.ranking.RankingFixtures.fillers;
import static dev.tally.projector.ranking.RankingFixtures.weighted;
import static dev.tally.projector.ranking.RankingFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tally.schema.ItemCounts;
import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RankingsTest {

    private static List<String> ids(RankingArtifact artifact) {
        return artifact.getItems().stream().map(RankedItem::getItemId).toList();
    }

    private static RankedItem item(RankingArtifact artifact, String id) {
        return artifact.getItems().stream().filter(i -> i.getItemId().equals(id)).findFirst().orElseThrow();
    }

    // --- Wilson, by hand: (p + z²/2n − z·√((p(1−p) + z²/4n)/n)) / (1 + z²/n), z = 1.96 ---

    @Test
    void oneUpvoteOfOneScoresAbout021AndIsNotEligible() {
        // p = 1, n = 1: (1 + 1.9208 − 1.96·0.98) / 4.8416 = 1 / 4.8416 = 0.206543
        RankingCandidate one = RankingCandidate.of(counts("post", "lucky", 1, 0));
        assertThat(one.wilson()).isCloseTo(0.206543, within(1e-6));
        assertThat(one.eligible()).isFalse();
        assertThat(ids(Rankings.rank("post", with(fillers(), counts("post", "lucky", 1, 0)), NOW))).doesNotContain("lucky");
    }

    @Test
    void nineHundredOfOneThousandScoresAbout088() {
        // p = 0.9, n = 1000: (0.9 + 0.0019208 − 1.96·√0.0000909604) / 1.0038416 = 0.8832276 / 1.0038416 = 0.879848
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), counts("post", "steady", 900, 100)), NOW);
        RankedItem steady = item(artifact, "steady");
        assertThat(steady.getWilson()).isCloseTo(0.879848, within(1e-6));
        assertThat(steady.getRank()).isEqualTo(1);
        assertThat(steady.getUp()).isEqualTo(900);
        assertThat(steady.getDown()).isEqualTo(100);
    }

    // --- gates, each at its edge, with the other two gates passed ---

    @ParameterizedTest(name = "{0}: up {1}, down {2} -> eligible {3}")
    @CsvSource({
            "total 4,       3,   1,   false",
            "total 5,       3,   2,   true",
            "up 2.9,        2.9, 2.1, false", // total 5, approval 0.58: only the up gate refuses
            "up 3,          3,   2,   true",
            "approval 0.54, 27,  23,  false", // total 50, up 27
            "approval 0.55, 11,  9,   true"   // total 20, up 11
    })
    void eachGateRefusesJustBelowItsEdgeAndAdmitsAtIt(String gate, double up, double down, boolean eligible) {
        ItemCounts probe = weighted("post", "probe", Math.round(up), Math.round(down), up, down);
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), probe), NOW);

        assertThat(artifact.getStatus()).isEqualTo(RankingStatus.READY);
        assertThat(ids(artifact).contains("probe")).as(gate).isEqualTo(eligible);
    }

    @Test
    void gatesAndOrderUseWeightedCountsWhileTheListShowsRawCounts() {
        // forty upvotes from new accounts (0.1 each) weigh 4: not enough evidence
        ItemCounts newAccounts = weighted("post", "sybil", 40, 0, 4.0, 0);
        // ten raw upvotes weighing 6
        ItemCounts mixed = weighted("post", "mixed", 10, 0, 6.0, 0);
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), newAccounts, mixed), NOW);

        assertThat(ids(artifact)).doesNotContain("sybil");
        RankedItem shown = item(artifact, "mixed");
        assertThat(shown.getUp()).isEqualTo(10);
        assertThat(shown.getWilson()).isCloseTo(0.609657, within(1e-6)); // Wilson of 6 of 6, not 10 of 10
        assertThat(shown.getRank()).isEqualTo(6); // 6 weighted up, below the fillers' 100+
    }

    @Test
    void anItemWithoutVotesHasAnApprovalOfZeroAndNegativeOrBrokenSumsCountAsNone() {
        assertThat(RankingCandidate.of(counts("post", "none", 0, 0)).approval()).isZero();
        assertThat(RankingCandidate.normalize(-0.5)).isZero();
        assertThat(RankingCandidate.normalize(Double.NaN)).isZero();
        assertThat(RankingCandidate.normalize(Double.POSITIVE_INFINITY)).isZero();
        assertThat(RankingCandidate.normalize(4.999_999_999_999_999)).isEqualTo(5.0);
    }

    @Test
    void weightedSumsThatMissTheGateByFloatingPointNoiseStillPass() {
        double fifty = 0;
        for (int i = 0; i < 50; i++) {
            fifty += 0.1; // fifty new-account upvotes: 4.999999999999998
        }
        assertThat(fifty).isLessThan(5);
        ItemCounts probe = weighted("post", "probe", 50, 0, fifty, 0);

        assertThat(ids(Rankings.rank("post", with(fillers(), probe), NOW))).contains("probe");
    }

    // --- order ---

    @Test
    void moreWeightedUpvotesComeFirstEvenWithALowerWilsonBound() {
        ItemCounts perfect = counts("post", "perfect", 10, 0);   // Wilson 0.72
        ItemCounts popular = counts("post", "popular", 20, 15);  // Wilson 0.41, approval 0.57
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), perfect, popular), NOW);

        assertThat(ids(artifact)).containsSubsequence("popular", "perfect");
    }

    @Test
    void orderBreaksTiesInTurnUpThenWilsonThenNetThenKey() {
        // built directly: with exact maths Wilson already separates equal up by total, so net only decides
        // when Wilson values coincide; total can never decide (equal up and net mean equal down)
        List<RankingCandidate> expected = List.of(
                new RankingCandidate("post", "z", 9, 0, 9, 0, 0.10),   // most up
                new RankingCandidate("post", "y", 8, 4, 8, 4, 0.90),   // then the highest Wilson
                new RankingCandidate("post", "x", 8, 1, 8, 1, 0.50),   // equal Wilson: the higher net
                new RankingCandidate("post", "w", 8, 2, 8, 2, 0.50),
                new RankingCandidate("post", "a", 7, 0, 7, 0, 0.30),   // equal in all: key ascending
                new RankingCandidate("post", "b", 7, 0, 7, 0, 0.30));
        List<RankingCandidate> shuffled = new ArrayList<>(expected);
        Collections.reverse(shuffled);
        shuffled.sort(Rankings.ORDER);

        assertThat(shuffled).extracting(RankingCandidate::itemId).containsExactly("z", "y", "x", "w", "a", "b");
    }

    @Test
    void exactTiesAreBrokenByItemKeyAndTheResultDoesNotDependOnInputOrder() {
        List<ItemCounts> items = new ArrayList<>();
        for (String id : List.of("e", "b", "post-9", "a", "post-10", "d", "c")) {
            items.add(counts("post", id, 7, 1));
        }
        RankingArtifact first = Rankings.rank("post", items, NOW);
        assertThat(ids(first)).containsExactly("a", "b", "c", "d", "e", "post-10", "post-9"); // code points, not locale

        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(items, random);
            assertThat(Rankings.rank("post", items, NOW)).isEqualTo(first);
        }
    }

    // --- status and size ---

    @Test
    void fewerThanFiveEligibleItemsPublishNoList() {
        List<ItemCounts> items = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            items.add(counts("post", "ok-" + i, 10, 0));
        }
        items.add(counts("post", "thin", 2, 0));
        items.add(counts("post", "disliked", 3, 30));
        RankingArtifact artifact = Rankings.rank("post", items, NOW);

        assertThat(artifact.getStatus()).isEqualTo(RankingStatus.INSUFFICIENT_DATA);
        assertThat(artifact.getItems()).isEmpty();
        assertThat(artifact.getSchemaVersion()).isEqualTo(1);
        assertThat(artifact.getItemType()).isEqualTo("post");
        assertThat(Rankings.rank("post", with(items, counts("post", "fifth", 10, 0)), NOW).getItems()).hasSize(5);
    }

    @Test
    void noItemsAtAllIsInsufficientData() {
        assertThat(Rankings.rank("post", List.of(), NOW).getStatus()).isEqualTo(RankingStatus.INSUFFICIENT_DATA);
    }

    @Test
    void sixtyEligibleItemsKeepTheTopFiftyRankedOneToFifty() {
        List<ItemCounts> items = IntStream.range(0, 60)
                .mapToObj(i -> counts("post", String.format("i%02d", i), 10 + i, 0)).toList();
        RankingArtifact artifact = Rankings.rank("post", items, NOW);

        assertThat(artifact.getStatus()).isEqualTo(RankingStatus.READY);
        assertThat(artifact.getItems()).hasSize(50);
        assertThat(artifact.getItems()).extracting(RankedItem::getRank)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 50).boxed().toList());
        assertThat(artifact.getItems().get(0).getItemId()).isEqualTo("i59");
        assertThat(artifact.getItems().get(49).getItemId()).isEqualTo("i10");
    }

    // --- inputs ---

    @Test
    void anIdNoClientMayShowIsLeftOutRatherThanSpoilingTheList() {
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), counts("post", "has space", 500, 0)), NOW);
        assertThat(ids(artifact)).doesNotContain("has space").hasSize(5);
    }

    @Test
    void refusesItemsOfAnotherTypeAndDuplicates() {
        assertThatThrownBy(() -> Rankings.rank("post", with(fillers(), counts("video", "1", 9, 0)), NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("video:1");
        assertThatThrownBy(() -> Rankings.rank("post", with(fillers(), counts("post", "filler-0", 9, 0)), NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("post:filler-0").hasMessageContaining("twice");
    }

    @Test
    void generatedAtIsKeptToTheMillisecondAsTheTopicStoresIt() {
        Instant precise = Instant.parse("2026-05-01T12:00:00.123456789Z");
        assertThat(Rankings.rank("post", fillers(), precise).getGeneratedAt()).isEqualTo(NOW);
    }
}
