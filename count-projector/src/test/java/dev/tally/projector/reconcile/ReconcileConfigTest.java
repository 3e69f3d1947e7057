package dev.tally.projector.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcileConfigTest {
    @Test
    void isOffUnlessAnIntervalIsSet() {
        assertThat(ReconcileConfig.from(Env.of(Map.of())).enabled()).isFalse();
        assertThat(ReconcileConfig.from(Env.of(Map.of("TALLY_RECONCILE_INTERVAL", "0"))).enabled()).isFalse();
        assertThat(ReconcileConfig.from(Env.of(Map.of("TALLY_RECONCILE_INTERVAL", "0s"))).enabled()).isFalse();
        assertThat(ReconcileConfig.from(Env.of(Map.of())).repair()).isFalse();
    }

    @Test
    void readsIntervalAndRepair() {
        var config = ReconcileConfig.from(Env.of(Map.of("TALLY_RECONCILE_INTERVAL", "15m", "TALLY_RECONCILE_REPAIR", "true")));
        assertThat(config.interval()).isEqualTo(Duration.ofMinutes(15));
        assertThat(config.repair()).isTrue();
        assertThat(config.enabled()).isTrue();
    }

    @Test
    void aBadIntervalNamesTheVariable() {
        assertThatThrownBy(() -> ReconcileConfig.from(Env.of(Map.of("TALLY_RECONCILE_INTERVAL", "often"))))
                .hasMessageContaining("TALLY_RECONCILE_INTERVAL");
    }
}
