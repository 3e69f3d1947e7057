package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.ready;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class RankingValidatorTest {
    private static final Duration MAX_AGE = Duration.ofSeconds(30);
    private final RankingValidator validator = new RankingValidator(MAX_AGE);

    /** A valid READY artifact of five items with one change applied. */
    private static RankingArtifact readyWith(Consumer<RankingArtifact> change) {
        RankingArtifact artifact = RankingArtifact.newBuilder(ready(5, NOW)).build(); // deep copy
        change.accept(artifact);
        return artifact;
    }

    private List<String> problems(RankingArtifact artifact) {
        return validator.problems(artifact, NOW);
    }

    @Test
    void acceptsAReadyListAndAnEmptyInsufficientDataOne() {
        assertThat(problems(ready(5, NOW))).isEmpty();
        assertThat(problems(ready(50, NOW))).isEmpty();
        assertThat(problems(Rankings.insufficientData("post", NOW))).isEmpty();
        assertThat(validator.servable(ready(5, NOW), NOW)).isTrue();
    }

    @Test
    void refusesAnotherSchemaVersion() {
        assertThat(problems(readyWith(a -> a.setSchemaVersion(2)))).singleElement().asString().contains("schema_version is 2");
    }

    @Test
    void refusesAnArtifactTypeOutsideTheContract() {
        RankingArtifact artifact = Rankings.insufficientData("../etc", NOW);
        assertThat(problems(artifact)).singleElement().asString().contains("item_type '../etc'");
    }

    @Test
    void refusesAGapInTheRanks() {
        assertThat(problems(readyWith(a -> a.getItems().get(4).setRank(6))))
                .singleElement().asString().contains("item 5").contains("rank 6, expected 5");
    }

    @Test
    void refusesRanksOutOfOrder() {
        assertThat(problems(readyWith(a -> {
            a.getItems().get(0).setRank(2);
            a.getItems().get(1).setRank(1);
        }))).hasSize(2).allSatisfy(p -> assertThat(p).contains("has rank"));
    }

    @Test
    void refusesAnItemOfAnotherType() {
        assertThat(problems(readyWith(a -> a.getItems().get(2).setItemType("video"))))
                .singleElement().asString().contains("item 3 (video:p3)").contains("not of the artifact's type 'post'");
    }

    @Test
    void refusesAnItemIdOutsideTheContract() {
        assertThat(problems(readyWith(a -> a.getItems().get(0).setItemId("has space")))).singleElement().asString()
                .contains("item 1").contains("id");
        assertThat(problems(readyWith(a -> a.getItems().get(0).setItemId("x".repeat(65))))).hasSize(1);
        assertThat(problems(readyWith(a -> a.getItems().get(0).setItemId("")))).hasSize(1);
    }

    @Test
    void refusesAReadyListOfFewerThanFiveOrMoreThanFifty() {
        assertThat(problems(ready(4, NOW))).singleElement().asString().contains("READY with 4 items");
        assertThat(problems(ready(51, NOW))).singleElement().asString().contains("READY with 51 items");
    }

    @Test
    void refusesInsufficientDataWithItems() {
        assertThat(problems(readyWith(a -> a.setStatus(RankingStatus.INSUFFICIENT_DATA))))
                .singleElement().asString().contains("INSUFFICIENT_DATA with 5 items");
    }

    @Test
    void refusesAStaleArtifactButNotOneExactlyAtTheMaximumAge() {
        assertThat(problems(ready(5, NOW.minus(MAX_AGE)))).isEmpty();
        assertThat(problems(ready(5, NOW.minus(MAX_AGE).minusMillis(1)))).singleElement().asString().contains("stale");
    }

    @Test
    void refusesAnArtifactMoreThanAnHourInTheFuture() {
        assertThat(problems(ready(5, NOW.plus(Duration.ofHours(1))))).isEmpty();
        assertThat(problems(ready(5, NOW.plus(Duration.ofHours(1)).plusMillis(1))))
                .singleElement().asString().contains("in the future");
    }

    @Test
    void refusesAWilsonBoundThatIsNotAShare() {
        assertThat(problems(readyWith(a -> a.getItems().get(0).setWilson(Double.NaN)))).singleElement().asString().contains("wilson NaN");
        assertThat(problems(readyWith(a -> a.getItems().get(0).setWilson(1.5)))).hasSize(1);
    }

    @Test
    void takesAWilsonBoundOfExactlyZeroOrOneAndCountsOfZero() {
        assertThat(problems(readyWith(a -> a.getItems().get(4).setWilson(0.0)))).isEmpty();
        assertThat(problems(readyWith(a -> a.getItems().get(0).setWilson(1.0)))).isEmpty();
        assertThat(problems(readyWith(a -> a.getItems().get(0).setWilson(-0.01)))).hasSize(1);
        assertThat(problems(readyWith(a -> {
            a.getItems().get(4).setUp(0);
            a.getItems().get(4).setDown(0);
        }))).isEmpty();
        assertThat(problems(readyWith(a -> a.getItems().get(0).setUp(-1)))).singleElement().asString().contains("negative");
    }

    @Test
    void refusesNegativeCounts() {
        assertThat(problems(readyWith(a -> a.getItems().get(0).setDown(-1)))).singleElement().asString().contains("negative");
    }

    @Test
    void refusesMissingPartsAndNothing() {
        assertThat(problems(null)).containsExactly("no artifact");
        List<RankedItem> withNull = new ArrayList<>(ready(5, NOW).getItems());
        withNull.set(1, null);
        assertThat(problems(readyWith(a -> a.setItems(withNull)))).singleElement().asString().contains("item 2 is missing");
    }

    @Test
    void aMaximumAgeMustBePositive() {
        assertThatThrownBy(() -> new RankingValidator(Duration.ZERO)).hasMessageContaining("max age");
    }

    @Test
    void theRulesUseTheGivenClock() {
        Instant later = NOW.plus(MAX_AGE).plusSeconds(1);
        assertThat(validator.servable(ready(5, NOW), later)).isFalse();
    }
}
