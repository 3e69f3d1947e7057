package dev.tally.common.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tally.schema.Outcome;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Windowed scores against an independent model: random vote histories (new votes, changed votes, reactions alone,
 * retractions, votes stored without a cast time or a signed-in flag), under every policy, read at times that move on
 * past the windows, with buckets expired along the way. The model keeps every voter's current vote and sums, for each
 * window, those whose bucket is one of the last sixty, each weighed by the policy as its casting command said.
 */
class WindowedScoreTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    /** One voter's current vote: value, weight, when it was cast and its command's anonymous flag (null: unknown). */
    private record Vote(int value, double weight, Instant castAt, Boolean anonymous) {}

    private static double model(Map<String, Vote> votes, RankingWindow w, Instant now, RankingPolicy policy) {
        double sum = 0;
        for (Vote v : votes.values()) {
            double weight = switch (policy) {
                case ALL -> 1.0;
                case TRUSTED -> v.weight();
                case SIGNED_IN -> Boolean.TRUE.equals(v.anonymous()) ? 0.0 : v.weight();
            };
            if (w.length() == null) {
                sum += v.value() * weight;
            } else if (v.castAt() != null) {
                long g = w.length().toMillis() / 60;
                if (Math.floorDiv(v.castAt().toEpochMilli(), g) > Math.floorDiv(now.toEpochMilli(), g) - 60) {
                    sum += v.value() * weight;
                }
            }
        }
        return sum;
    }

    private static VoteEvent event(Vote before, Vote after, Instant at, String reactionAfter, Boolean anonymous) {
        return VoteEvent.newBuilder().setCommandId("c").setVoter("v").setItemType("post").setItemId("1")
                .setOutcome(Outcome.ACCEPTED)
                .setBefore(new VoterItemState(before.value(), null, before.weight()))
                .setAfter(new VoterItemState(after.value(), reactionAfter, after.weight()))
                .setBeforeCastAt(before.value() == 0 ? null : before.castAt())
                .setBeforeAnonymous(before.value() == 0 ? null : before.anonymous())
                .setAnonymous(anonymous)
                .setReceivedAt(at).setResolvedAt(at).build();
    }

    @Test
    void everyWindowAgreesWithTheModelOverRandomHistories() {
        for (long seed = 1; seed <= 60; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            RankingPolicy policy = RankingPolicy.values()[(int) (seed % RankingPolicy.values().length)];
            Map<String, Vote> votes = new HashMap<>();
            WindowedScore score = new WindowedScore();
            Instant now = T0;
            for (int v = 0; v < 3; v++) { // votes from before cast times and signed-in flags were kept
                Vote old = new Vote(random.nextBoolean() ? 1 : -1, 1.0, null, null);
                votes.put("old" + v, old);
                score.add(old.value() * policy.weight(old.weight(), null), 1, null);
            }
            for (int step = 0; step < 400; step++) {
                // time moves on by seconds to weeks, so votes leave every window
                now = now.plus(Duration.ofSeconds((long) Math.pow(10, random.nextDouble() * 6.3)));
                String voter = (random.nextInt(4) == 0 ? "old" : "v") + random.nextInt(8);
                Boolean anonymous = voter.hashCode() % 2 == 0; // a voter is signed in or not, for good
                Vote before = votes.getOrDefault(voter, new Vote(0, 1.0, null, null));
                Vote after;
                String reaction = null;
                switch (random.nextInt(4)) {
                    case 0 -> after = new Vote(0, 1.0, null, null); // retract (or nothing to retract)
                    case 1 -> { // a reaction alone: the vote keeps its time
                        after = before;
                        reaction = "like";
                    }
                    default -> {
                        int value = random.nextBoolean() ? 1 : -1;
                        after = value == before.value() ? before : new Vote(value, random.nextBoolean() ? 1.0 : 0.1, now, anonymous);
                    }
                }
                score.apply(event(before, after, now, reaction, anonymous), policy);
                if (after.value() == 0) {
                    votes.remove(voter);
                } else {
                    votes.put(voter, after);
                }
                if (random.nextInt(10) == 0) {
                    score.expire(now);
                }
                Instant readAt = now.plus(Duration.ofMinutes(random.nextInt(0, 60 * 24 * 40)));
                for (RankingWindow w : RankingWindow.values()) {
                    assertThat(score.score(w, now)).as("seed %d step %d %s now", seed, step, w)
                            .isCloseTo(model(votes, w, now, policy), within(1e-9));
                    assertThat(score.score(w, readAt)).as("seed %d step %d %s later", seed, step, w)
                            .isCloseTo(model(votes, w, readAt, policy), within(1e-9));
                }
            }
        }
    }

    @Test
    void aVoteLeavesTheDayBetween59And60BucketsAfterItWasCast() {
        WindowedScore score = new WindowedScore();
        Instant cast = Instant.parse("2026-12-01T10:00:00Z"); // a day's buckets are 24 minutes: this starts one
        score.add(1, 1, cast);

        assertThat(score.score(RankingWindow.DAY, cast.plus(Duration.ofMinutes(24 * 59)).minusMillis(1))).isEqualTo(1);
        assertThat(score.score(RankingWindow.DAY, cast.plus(Duration.ofMinutes(24 * 60)))).isZero();
        assertThat(score.score(RankingWindow.WEEK, cast.plus(Duration.ofDays(2)))).isEqualTo(1);
        assertThat(score.score(RankingWindow.ALL, cast.plus(Duration.ofDays(4000)))).isEqualTo(1);

        score.expire(cast.plus(Duration.ofDays(400)));
        assertThat(score.hasRecentVotes()).as("nothing left in any finite window").isFalse();
        assertThat(score.score(RankingWindow.ALL, cast.plus(Duration.ofDays(400)))).isEqualTo(1);
    }

    @Test
    void policiesAreNamedExactly() {
        assertThat(RankingPolicy.parse("signed-in")).isEqualTo(RankingPolicy.SIGNED_IN);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RankingPolicy.parse("signed_in"))
                .hasMessage("policy must be one of all, trusted, signed-in, got 'signed_in'");
        assertThat(RankingPolicy.SIGNED_IN.weight(0.1, true)).isZero();
        assertThat(RankingPolicy.SIGNED_IN.weight(0.1, null)).as("not told: counted as signed in").isEqualTo(0.1);
        assertThat(RankingPolicy.ALL.weight(0.1, true)).isEqualTo(1.0);
    }
}
