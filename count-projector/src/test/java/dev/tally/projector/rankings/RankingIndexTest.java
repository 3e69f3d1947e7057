package dev.tally.projector.rankings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.common.ranking.RankingPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The index's small keys: due times, marks and z, and the settings of the ranked lists. */
class RankingIndexTest {
    @Test
    void theDueRangeEndsJustAfterEveryEntryDueAtOrBeforeNow() {
        Instant now = Instant.parse("2026-12-07T10:00:00Z");
        byte[] until = RankingIndex.dueUntil(now);
        byte[] dueNow = RankingIndex.dueKey(now, "post:1");
        byte[] dueLater = RankingIndex.dueKey(now.plusMillis(1), "post:1");
        assertThat(Arrays.compareUnsigned(dueNow, until)).isNegative();
        assertThat(Arrays.compareUnsigned(dueLater, until)).isNotNegative();
        assertThat(RankingIndex.dueItem(dueNow)).isEqualTo("post:1");
    }

    @Test
    void aMarkHoldsItsWritesAndItsOffset() {
        byte[] mark = RankingIndex.mark(7, 12_345);
        assertThat(RankingIndex.markWrites(mark)).isEqualTo(7);
        assertThat(RankingIndex.markOffset(mark)).isEqualTo(12_345);
        assertThat(java.nio.ByteBuffer.wrap(RankingIndex.z(1.96)).getDouble()).isEqualTo(1.96);
    }

    @Test
    void theSettingsHaveTheirDefaultsAndTheCommitIntervalItsFloor() {
        RankingsConfig defaults = RankingsConfig.from(Env.of(Map.of()));
        assertThat(defaults.policy()).isEqualTo(RankingPolicy.TRUSTED);
        assertThat(defaults.z()).isEqualTo(1.96);
        assertThat(defaults.enabled()).isTrue();
        assertThat(defaults.commitInterval()).isEqualTo(RankingsConfig.MIN_COMMIT_INTERVAL);
        assertThat(defaults.applicationId(RankingPolicy.ALL)).isEqualTo("tally-rankings-all-v1");
        assertThat(defaults.withPolicy(RankingPolicy.SIGNED_IN).policy()).isEqualTo(RankingPolicy.SIGNED_IN);
        RankingsConfig set = RankingsConfig.from(Env.of(Map.of("TALLY_RANKING_POLICY", "signed-in", "TALLY_RANKING_Z", "1.28",
                "TALLY_COMMIT_INTERVAL", "5s", "TALLY_RANKED_LISTS", "false", "TALLY_NAMESPACE", "staging")));
        assertThat(set.policy()).isEqualTo(RankingPolicy.SIGNED_IN);
        assertThat(set.z()).isEqualTo(1.28);
        assertThat(set.commitInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(set.enabled()).isFalse();
        assertThat(set.applicationId(RankingPolicy.TRUSTED)).isEqualTo("staging-rankings-trusted-v1");
        assertThat(RankingsConfig.from(Env.of(Map.of("TALLY_COMMIT_INTERVAL", "1s"))).commitInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> RankingsConfig.from(Env.of(Map.of("TALLY_RANKING_POLICY", "everyone"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("one of all, trusted, signed-in");
    }
}
