package dev.tally.fraud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fraud-detector refuses windows it cannot compute with, before it starts (a zero burst window divided by zero on every record). */
class FraudDetectorConfigTest {
    @Test
    void zeroOrHugeWindowsAreRefusedByName() {
        assertThatThrownBy(() -> FraudDetectorConfig.from(Env.of(Map.of("TALLY_BURST_WINDOW", "0s"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("TALLY_BURST_WINDOW=0s");
        assertThatThrownBy(() -> FraudDetectorConfig.from(Env.of(Map.of("TALLY_CLUSTER_WINDOW", "0ms"))))
                .hasMessageContaining("TALLY_CLUSTER_WINDOW=0ms");
        assertThatThrownBy(() -> FraudDetectorConfig.from(Env.of(Map.of("TALLY_CHALLENGE_DURATION", "400d"))))
                .hasMessageContaining("TALLY_CHALLENGE_DURATION=400d");
    }

    @Test
    void theDefaultsStand() {
        FraudDetectorConfig c = FraudDetectorConfig.from(Env.of(Map.of()));
        assertThat(c.burstWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.clusterWindow()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.applicationId()).isEqualTo("tally-fraud-detector");
        assertThat(ItemWatch.of(c)).usingRecursiveComparison().isEqualTo(new ItemWatch(Duration.ofMinutes(5), c.burstFloor()));
    }
}
