package dev.tally.processor;

import dev.tally.schemas.Namespace;
import static dev.tally.processor.ProcessorDriver.vote;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The per-voter sliding window and daily quota, with explicit command times at their edges. */
class VoterQuotasTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private final ProcessorDriver p = new ProcessorDriver(new VoteProcessorConfig(Namespace.DEFAULT, Duration.ofMillis(100),
            ProcessorDriver.FLUSH, ProcessorDriver.TTL, 1, false,
            new VoteProcessorConfig.VoterLimits(3, Duration.ofSeconds(60), 5), VoteProcessorConfig.Weighting.DEFAULT, Duration.ofHours(1)));

    @AfterEach
    void tearDown() {
        p.close();
    }

    @Test
    void shouldRefuseTheVoteOverTheWindowWithSecondsUntilASlotFrees() {
        p.voteAt("v", "a", T0);
        p.voteAt("v", "b", T0.plusSeconds(10));
        p.voteAt("v", "c", T0.plusSeconds(20));

        VoteOutcome refused = p.voteAt("v", "d", T0.plusSeconds(30));

        assertThat(refused.getStatus()).isEqualTo(OutcomeStatus.REJECTED);
        assertThat(refused.getError()).isEqualTo("rate-limited");
        assertThat(refused.getRetryAfterSeconds()).as("the vote at T0 leaves the window at T0+60").isEqualTo(30);
        assertThat(p.events.readValuesToList()).hasSize(3);
    }

    @Test
    void shouldAllowTheVoteOnceTheOldestLeavesTheWindowExactlyAtItsEdge() {
        p.voteAt("v", "a", T0);
        p.voteAt("v", "b", T0.plusSeconds(1));
        p.voteAt("v", "c", T0.plusSeconds(2));

        assertThat(p.voteAt("v", "d", T0.plusMillis(59_999)).getError()).isEqualTo("rate-limited");
        assertThat(p.voteAt("v", "d", T0.plusSeconds(60)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
    }

    @Test
    void shouldNotBurnQuotaOnUnchangedVotesOrRefusals() {
        p.voteAt("v", "a", T0);
        for (int i = 0; i < 10; i++) {
            assertThat(p.voteAt("v", "a", T0.plusSeconds(i)).getOutcome()).isEqualTo(Outcome.UNCHANGED);
        }
        p.voteAt("v", "b", T0.plusSeconds(11));
        p.voteAt("v", "c", T0.plusSeconds(12));

        assertThat(p.voteAt("v", "d", T0.plusSeconds(13)).getError()).isEqualTo("rate-limited");
        assertThat(p.voteAt("v", "d", T0.plusSeconds(14)).getError()).as("refusals do not count either")
                .isEqualTo("rate-limited");
        assertThat(p.voteAt("v", "d", T0.plusSeconds(60)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
    }

    @Test
    void shouldKeepEachVotersWindowApart() {
        p.voteAt("alice", "a", T0);
        p.voteAt("alice", "b", T0);
        p.voteAt("alice", "c", T0);

        assertThat(p.voteAt("bob", "a", T0).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
    }

    @Test
    void shouldRefuseOverTheDailyQuotaUntilUtcMidnight() {
        for (int i = 0; i < 5; i++) {
            assertThat(p.voteAt("v", "i" + i, T0.plusSeconds(i * 120L)).getStatus()).isEqualTo(OutcomeStatus.APPLIED);
        }
        VoteOutcome refused = p.voteAt("v", "i5", T0.plusSeconds(900));

        assertThat(refused.getError()).isEqualTo("quota-exceeded");
        assertThat(refused.getRetryAfterSeconds()).isEqualTo(Duration.between(T0.plusSeconds(900),
                Instant.parse("2026-12-01T00:00:00Z")).toSeconds());
        assertThat(p.voteAt("v", "i5", Instant.parse("2026-12-01T00:00:00Z")).getStatus())
                .as("a new UTC day").isEqualTo(OutcomeStatus.APPLIED);
    }

    @Test
    void aModeratorsRetractionIsNotChargedToTheVoter() {
        p.voteAt("v", "a", T0);
        p.voteAt("v", "b", T0);
        p.voteAt("v", "c", T0);
        VoteCommand retraction = vote("v", "a", 0, VoteMode.SET);
        retraction.setReceivedAt(T0.plusSeconds(1));
        retraction.setModeration(true);

        assertThat(p.send(retraction).getOutcome()).isEqualTo(Outcome.RETRACTED);
    }
}
