package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.counts;
import static dev.tally.projector.ranking.RankingFixtures.fillers;
import static dev.tally.projector.ranking.RankingFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankingCycleTest {
    private final RankingCycle cycle = new RankingCycle(new RankingValidator(Duration.ofSeconds(30)));

    @Test
    void ranksEveryItemTypeSeenOncePerRun() {
        List<RankingArtifact> artifacts = cycle.generate(
                with(fillers(), counts("video", "1", 10, 0), counts("video", "2", 10, 0)), NOW);

        assertThat(artifacts).extracting(RankingArtifact::getItemType).containsExactly("post", "video");
        assertThat(artifacts).extracting(RankingArtifact::getStatus)
                .containsExactly(RankingStatus.READY, RankingStatus.INSUFFICIENT_DATA);
        assertThat(artifacts).allSatisfy(a -> assertThat(a.getGeneratedAt()).isEqualTo(NOW));
    }

    @Test
    void aGenerationThatFailsValidationIsNotPublished() {
        // a type outside the contract (it would also be a directory name) never validates
        List<RankingArtifact> artifacts = cycle.generate(with(fillers(), counts("Bad Type", "1", 10, 0)), NOW);

        assertThat(artifacts).extracting(RankingArtifact::getItemType).containsExactly("post");
    }

    @Test
    void noCountsNoArtifacts() {
        assertThat(cycle.generate(List.of(), NOW)).isEmpty();
    }
}
