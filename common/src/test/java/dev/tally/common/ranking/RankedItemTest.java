package dev.tally.common.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.query.Scores;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rule table of the ranked lists, item by item: every key of an item that folds random events under each policy,
 * against an independent model that keeps each voter's current vote and computes the keys from scratch.
 */
class RankedItemTest {
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    private static final double Z = Scores.Z95;

    static {
        dev.tally.schemas.AvroSerde.of(VoteEvent.class); // its serde trusts Tally's records, whose builders Avro checks
    }

    @ParameterizedTest
    @EnumSource(RankingPolicy.class)
    void everyKeyAgreesWithTheModelAsVotesComeAndWindowsExpire(RankingPolicy policy) {
        SplittableRandom random = new SplittableRandom(policy.ordinal() + 11);
        VoteModel model = new VoteModel();
        Map<String, RankedItem> items = new HashMap<>();
        Instant now = T0;
        for (int step = 0; step < 3_000; step++) {
            String item = "post:i" + random.nextInt(6);
            VoteEvent event = model.next(random, item, "v" + random.nextInt(12), now);
            items.computeIfAbsent(item, k -> new RankedItem()).apply(event, policy);

            now = now.plus(Duration.ofSeconds(random.nextInt(4) == 0 ? random.nextLong(1, 200_000) : random.nextLong(1, 120)));
            for (var e : items.entrySet()) {
                double[] keys = e.getValue().place(now, Z);
                for (RankedList list : RankedList.values()) {
                    double k = keys[list.ordinal()];
                    double m = model.key(policy, e.getKey(), list, now, Z);
                    if (Double.isNaN(m)) {
                        assertThat(k).as("%s not in %s under %s at %s", e.getKey(), list, policy, now).isNaN();
                    } else {
                        assertThat(k).as("%s in %s under %s at %s", e.getKey(), list, policy, now).isEqualTo(m);
                    }
                }
                assertThat(e.getValue().placed(Z)).as("placed as at its last place").containsExactly(keys);
                assertThat(e.getValue().placedAt()).isEqualTo(now);
                RankedItem ranked = e.getValue();
                WindowedScore stored = WindowedScore.of(ranked.scores().all(), ranked.scores().buckets());
                RankedItem read = new RankedItem(ranked.upvotes(), ranked.downvotes(), ranked.weightedUp(), ranked.weightedDown(),
                        ranked.firstVoteAt(), stored, ranked.placedAt());
                assertThat(read.placed(Z)).as("as a store wrote it").containsExactly(keys);
                for (var w : ranked.scores().buckets().entrySet()) {
                    assertThat(w.getValue().firstKey()).as("only buckets %s still holds", w.getKey())
                            .isGreaterThan(WindowedScore.bucket(w.getKey(), now) - 60);
                }
            }
        }
    }

    @Test
    void anItemCountsEachCurrentVoteOnceWhateverThePolicyWeighs() {
        RankedItem item = new RankedItem();
        assertThat(item.placed(Z)).as("never placed").isNull();
        assertThat(item.nextChange()).isNull();
        item.apply(event(0, 1, 0.5, T0.plusSeconds(5), null), RankingPolicy.TRUSTED);
        item.apply(event(0, -1, 1.0, T0, null), RankingPolicy.TRUSTED); // earlier: the item's first vote moves back
        assertThat(item.upvotes()).isEqualTo(1);
        assertThat(item.downvotes()).isEqualTo(1);
        assertThat(item.weightedUp()).isEqualTo(0.5);
        assertThat(item.weightedDown()).isEqualTo(1.0);
        assertThat(item.weightedScore()).isEqualTo(-0.5);
        assertThat(item.firstVoteAt()).isEqualTo(T0);
        assertThat(item.nextChange()).as("when the first vote leaves the hour's window").isNotNull()
                .isAfter(T0.plus(Duration.ofMinutes(59))).isBefore(T0.plus(Duration.ofMinutes(62)));
        item.apply(event(1, 0, 0.5, T0.plusSeconds(9), T0.plusSeconds(5)), RankingPolicy.TRUSTED);
        assertThat(item.upvotes()).isZero();
        assertThat(item.weightedUp()).isZero();

        RankedItem stored = new RankedItem(item.upvotes(), item.downvotes(), item.weightedUp(), item.weightedDown(),
                item.firstVoteAt(), item.scores(), item.placedAt());
        assertThat(stored.place(T0.plusSeconds(10), Z)).containsExactly(item.place(T0.plusSeconds(10), Z));
    }

    @Test
    void aVoteWhoseWeightChangesIsTakenBackAndCastAgainAtItsNewWeightAndAReactionAloneChangesNothing() {
        RankedItem item = new RankedItem();
        item.apply(event(0, 1, 0.5, T0, null), RankingPolicy.TRUSTED);
        VoteEvent reweighed = VoteEvent.newBuilder(event(1, 1, 0.5, T0.plusSeconds(5), T0)).setAfter(new VoterItemState(1, null, 1.0))
                .build();
        item.apply(reweighed, RankingPolicy.TRUSTED);
        assertThat(item.weightedUp()).isEqualTo(1.0);
        assertThat(item.upvotes()).isEqualTo(1);
        VoteEvent reaction = VoteEvent.newBuilder(event(1, 1, 1.0, T0.plusSeconds(9), T0)).setAfter(new VoterItemState(1, "heart", 1.0))
                .build();
        item.apply(reaction, RankingPolicy.TRUSTED);
        assertThat(item.weightedUp()).isEqualTo(1.0);
        assertThat(item.upvotes()).isEqualTo(1);
    }

    @Test
    void aSumOfWeightsNoMoreThanABillionthIsNone() {
        RankedItem hair = new RankedItem();
        hair.apply(event(0, 1, 1e-9, T0, null), RankingPolicy.TRUSTED);
        hair.apply(VoteEvent.newBuilder(event(0, -1, 1.0, T0, null)).setVoter("other").build(), RankingPolicy.TRUSTED);
        double[] keys = hair.place(T0, Z);
        assertThat(keys[RankedList.CONTROVERSIAL.ordinal()]).as("an upvote weighing a billionth").isNaN();
        RankedItem twoHairs = new RankedItem();
        twoHairs.apply(event(0, 1, 2e-9, T0, null), RankingPolicy.TRUSTED);
        twoHairs.apply(VoteEvent.newBuilder(event(0, -1, 1.0, T0, null)).setVoter("other").build(), RankingPolicy.TRUSTED);
        assertThat(twoHairs.place(T0, Z)[RankedList.CONTROVERSIAL.ordinal()]).isNotNaN();
        RankedItem alone = new RankedItem();
        alone.apply(event(0, 1, 1e-9, T0, null), RankingPolicy.TRUSTED);
        assertThat(alone.place(T0, Z)[RankedList.BEST.ordinal()]).isNaN();
        RankedItem downAlone = new RankedItem();
        downAlone.apply(event(0, -1, 1e-9, T0, null), RankingPolicy.TRUSTED);
        downAlone.apply(VoteEvent.newBuilder(event(0, 1, 1.0, T0, null)).setVoter("other").build(), RankingPolicy.TRUSTED);
        assertThat(downAlone.place(T0, Z)[RankedList.CONTROVERSIAL.ordinal()]).as("a downvote weighing a billionth").isNaN();
    }

    @Test
    void aStoredScoreHoldsFiniteWindowsOnlyAndTheAllWindowHoldsEveryItem() {
        WindowedScore empty = WindowedScore.of(3.0, Map.of(RankingWindow.DAY, new java.util.TreeMap<>()));
        assertThat(empty.hasRecentVotes()).isFalse();
        assertThat(empty.all()).isEqualTo(3.0);
        assertThat(empty.holds(RankingWindow.ALL, T0)).isTrue();
        assertThat(empty.holds(RankingWindow.DAY, T0)).isFalse();
        assertThatThrownBy(() -> WindowedScore.of(0, Map.of(RankingWindow.ALL, new java.util.TreeMap<>())))
                .hasMessage("window all has no buckets");
    }

    @Test
    void listsAreReadBySortAndWindowAndStoredUnderOneByteEach() {
        assertThat(RankedList.of(RankingSort.TOP, RankingWindow.WEEK)).isEqualTo(RankedList.TOP_WEEK);
        assertThat(RankedList.of(RankingSort.RISING, RankingWindow.ALL)).isEqualTo(RankedList.TOP_HOUR);
        assertThat(RankedList.of(RankingSort.HOT, RankingWindow.DAY)).isEqualTo(RankedList.HOT);
        for (RankedList list : RankedList.values()) {
            assertThat(RankedList.ofSlot(list.slot())).isEqualTo(list);
        }
        assertThat(RankedList.NEW.slot()).isEqualTo((byte) 9);
        assertThatThrownBy(() -> RankedList.ofSlot((byte) 10)).hasMessage("no ranked list has slot 10");
        assertThatThrownBy(() -> RankedList.ofSlot((byte) -1)).hasMessage("no ranked list has slot -1");
        assertThat(RankingSort.TOP.windowed()).isTrue();
        assertThat(RankingSort.HOT.windowed()).isFalse();
        assertThat(RankingPolicy.TRUSTED.version()).isEqualTo(1);
    }

    private static VoteEvent event(int before, int after, double weight, Instant at, Instant beforeCastAt) {
        return VoteEvent.newBuilder().setCommandId("c").setVoter("v" + after + before).setItemType("post").setItemId("p")
                .setOutcome(Outcome.ACCEPTED).setBefore(new VoterItemState(before, null, weight))
                .setAfter(new VoterItemState(after, null, weight)).setBeforeCastAt(beforeCastAt).setReceivedAt(at)
                .setResolvedAt(at).build();
    }
}
