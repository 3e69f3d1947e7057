package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvTest {

    @Test
    void shouldParseDurationsIntegersAndBooleans() {
        Env env = Env.of(Map.of("A", "250ms", "B", "2s", "C", "24h", "N", "12", "T", "false"));

        assertThat(env.duration("A", null)).isEqualTo(Duration.ofMillis(250));
        assertThat(env.duration("B", null)).isEqualTo(Duration.ofSeconds(2));
        assertThat(env.duration("C", null)).isEqualTo(Duration.ofHours(24));
        assertThat(env.duration("MISSING", Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(9));
        assertThat(env.integer("N", 0, 1, 100)).isEqualTo(12);
        assertThat(env.bool("T", true)).isFalse();
        assertThat(env.namesRead()).contains("A", "MISSING", "N", "T");
    }

    @Test
    void shouldNameTheVariableInEveryError() {
        Env env = Env.of(Map.of("TALLY_SYNC_TIMEOUT", "soon", "TALLY_PARTITIONS", "0", "TALLY_VOTING_ENABLED", "maybe"));

        assertThatThrownBy(() -> env.duration("TALLY_SYNC_TIMEOUT", null)).hasMessageContaining("TALLY_SYNC_TIMEOUT=soon");
        assertThatThrownBy(() -> KafkaSettings.from(env)).hasMessageContaining("TALLY_PARTITIONS=0");
        assertThatThrownBy(() -> env.bool("TALLY_VOTING_ENABLED", true)).hasMessageContaining("TALLY_VOTING_ENABLED");
    }

    @Test
    void aBoundedDurationNamesTheVariableAndItsRange() {
        Env env = Env.of(Map.of("W", "0s", "X", "2d", "Y", "90s"));

        assertThatThrownBy(() -> env.duration("W", Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofDays(1)))
                .hasMessage("W=0s is invalid: expected a duration from 1s to 1d");
        assertThatThrownBy(() -> env.duration("X", Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofDays(1)))
                .hasMessageContaining("X=2d");
        assertThat(env.duration("Y", Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofDays(1))).isEqualTo(Duration.ofSeconds(90));
        assertThat(env.duration("MISSING", Duration.ofMillis(250), Duration.ofMillis(1), Duration.ofMinutes(1)))
                .isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> KafkaSettings.commitInterval(Env.of(Map.of("TALLY_COMMIT_INTERVAL", "0ms"))))
                .hasMessage("TALLY_COMMIT_INTERVAL=0ms is invalid: expected a duration from 1ms to 1m");
    }

    @Test
    void shouldRefuseToStartOutsideDevWithoutASecret() {
        Env env = Env.of(Map.of("TALLY_PROFILE", "prod"));

        assertThatThrownBy(() -> Runtime.from(env)).hasMessageContaining("TALLY_SECRET is required");
    }

    @Test
    void aSecretComesFromItsVariableOrItsFileNeverBothAndNeverIntoAMessage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("secret");
        java.nio.file.Files.writeString(file, "from-the-file-0123456789abcdef0123456789\n");

        assertThat(Env.of(Map.of("TALLY_SECRET_FILE", file.toString())).secret("TALLY_SECRET"))
                .contains("from-the-file-0123456789abcdef0123456789");
        assertThat(Env.of(Map.of("TALLY_SECRET", "from-the-variable")).secret("TALLY_SECRET")).contains("from-the-variable");
        assertThat(Env.of(Map.of()).secret("TALLY_SECRET")).isEmpty();
        assertThatThrownBy(() -> Env.of(Map.of("TALLY_SECRET", "x", "TALLY_SECRET_FILE", file.toString())).secret("TALLY_SECRET"))
                .hasMessage("TALLY_SECRET and TALLY_SECRET_FILE are both set: set one");
        assertThatThrownBy(() -> Env.of(Map.of("TALLY_ADMIN_TOKEN_FILE", dir.resolve("absent").toString())).secret("TALLY_ADMIN_TOKEN"))
                .hasMessageContaining("TALLY_ADMIN_TOKEN_FILE").hasMessageContaining("cannot be read");
    }
}
