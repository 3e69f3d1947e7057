package dev.tally.projector.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RankingConfigTest {

    @Test
    void devRegeneratesEveryTenSecondsOtherProfilesEveryFiveMinutes() {
        assertThat(RankingConfig.from(Env.of(Map.of())).interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(RankingConfig.from(Env.of(Map.of("TALLY_PROFILE", "prod"))).interval()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void readsTheIntervalAndDerivesTheMaximumAgeAndDirectory() {
        RankingConfig config = RankingConfig.from(Env.of(Map.of("TALLY_RANKING_INTERVAL", "30s", "TALLY_DATA_DIR", "/srv/tally")));

        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxAge()).isEqualTo(Duration.ofSeconds(90));
        assertThat(config.outputDir()).isEqualTo(Path.of("/srv/tally/rankings"));
    }

    @Test
    void refusesAnIntervalThatIsNotADurationOrIsUnderASecond() {
        assertThatThrownBy(() -> RankingConfig.from(Env.of(Map.of("TALLY_RANKING_INTERVAL", "soon"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("TALLY_RANKING_INTERVAL=soon");
        assertThatThrownBy(() -> RankingConfig.from(Env.of(Map.of("TALLY_RANKING_INTERVAL", "500ms"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("TALLY_RANKING_INTERVAL=500ms")
                .hasMessageContaining("at least 1s");
    }

    @Test
    void takesAnIntervalOfExactlyOneSecond() {
        assertThat(RankingConfig.from(Env.of(Map.of("TALLY_RANKING_INTERVAL", "1s"))).maxAge()).isEqualTo(java.time.Duration.ofSeconds(3));
    }
}
