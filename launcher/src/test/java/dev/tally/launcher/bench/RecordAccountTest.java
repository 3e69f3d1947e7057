package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordAccountTest {
    @Test
    void perVoteIsEachTopicsGrowthLargestFirstWithTheTotalLast() {
        Map<String, Long> start = Map.of("tally.vote-events", 100L, "tally.vote-commands", 10L, "idle", 5L);
        Map<String, Long> end = Map.of("tally.vote-events", 1100L, "tally.vote-commands", 20L, "idle", 5L,
                "tally-vote-processor-voter-item-state-changelog", 1000L);

        Map<String, Double> perVote = RecordAccount.perVote(start, end, 1000);

        assertThat(perVote).containsExactly(Map.entry("tally-vote-processor-voter-item-state-changelog", 1.0),
                Map.entry("tally.vote-events", 1.0), Map.entry("tally.vote-commands", 0.01), Map.entry("total", 2.01));
    }
}
