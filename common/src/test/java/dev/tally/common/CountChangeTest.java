package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tally.common.query.ItemCountsView;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountChangeTest {

    @Test
    void aFlipFromAYoungUpvoteToAFullDownvoteMovesEachCountByItsWeight() {
        CountChange c = CountChange.of(new VoterState(1, "like"), new VoterState(-1, null), 0.1, 1.0);
        assertThat(c.up()).isEqualTo(-1);
        assertThat(c.down()).isEqualTo(1);
        assertThat(c.weightedUp()).isEqualTo(-0.1, within(1e-12));
        assertThat(c.weightedDown()).isEqualTo(1.0, within(1e-12));
        Map<String, Long> reactions = new HashMap<>(Map.of("like", 3L));
        c.applyTo(reactions);
        assertThat(reactions).containsExactly(Map.entry("like", 2L));
    }

    @Test
    void aFlipFromAFullDownvoteToAYoungUpvoteMovesEachCountBack() {
        CountChange c = CountChange.of(new VoterState(-1, null), new VoterState(1, null), 1.0, 0.1);
        assertThat(c.up()).isEqualTo(1);
        assertThat(c.down()).isEqualTo(-1);
        assertThat(c.weightedUp()).isEqualTo(0.1, within(1e-12));
        assertThat(c.weightedDown()).isEqualTo(-1.0, within(1e-12));
    }

    @Test
    void theSameStateChangesNothing() {
        CountChange c = CountChange.of(new VoterState(1, "wow"), new VoterState(1, "wow"), 0.1, 0.1);
        assertThat(c).isEqualTo(new CountChange(0, 0, 0.0, 0.0, null, null));
        assertThat(c.changesReactions()).isFalse();
    }

    @Test
    void thePostAnswersOwnVoteCorrectionAddsTheVoteAtItsWeight() {
        ItemCountsView view = new ItemCountsView("post", "1", 3, 0, Map.of(), 3.0, 0.0, Instant.EPOCH, Map.of(), false);
        ItemCountsView withOwn = view.plus(VoterState.NONE, 1.0, new VoterState(1, null), 0.1);
        assertThat(withOwn.upvotes()).isEqualTo(4);
        assertThat(withOwn.weightedUp()).as("an anonymous vote weighs 0.1, not 1").isEqualTo(3.1, within(1e-12));
    }
}
