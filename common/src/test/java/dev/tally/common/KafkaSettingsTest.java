package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The defaults that differ between one machine (the dev profile) and a cluster (docs/decisions/0010-partitions.md). */
class KafkaSettingsTest {
    private static final Env DEV = Env.of(Map.of());
    private static final Env PROD = Env.of(Map.of("TALLY_PROFILE", "prod"));

    @Test
    void oneMachineGetsTwoPartitions() {
        assertThat(KafkaSettings.from(DEV).partitions()).isEqualTo(2);
        assertThat(KafkaSettings.commitInterval(DEV)).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void aClusterKeepsTwelvePartitionsAndCommitsEvery20Ms() {
        assertThat(KafkaSettings.from(PROD).partitions()).isEqualTo(12);
        assertThat(KafkaSettings.commitInterval(PROD)).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void explicitSettingsWin() {
        Env env = Env.of(Map.of("TALLY_PARTITIONS", "6", "TALLY_COMMIT_INTERVAL", "250ms"));
        assertThat(KafkaSettings.from(env).partitions()).isEqualTo(6);
        assertThat(KafkaSettings.commitInterval(env)).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void rocksDbsOwnLogIsErrorsUnlessAskedForAndNothingElse(@TempDir Path state) {
        assertThat(KafkaSettings.from(DEV).streamsProps("t", state, Duration.ofMillis(100), null)
                .get(BoundedRocksDb.LOG_LEVEL)).isEqualTo("error");
        assertThat(KafkaSettings.from(Env.of(Map.of("TALLY_ROCKSDB_LOG", "INFO"))).rocksDbLog()).isEqualTo("info");
        assertThatThrownBy(() -> KafkaSettings.from(Env.of(Map.of("TALLY_ROCKSDB_LOG", "debug"))))
                .isInstanceOf(Env.ConfigException.class).hasMessage("TALLY_ROCKSDB_LOG must be error or info, was debug");
    }

    @Test
    void aThreadNeverPollsPastItsCommit(@TempDir Path state) {
        var props = KafkaSettings.from(DEV).streamsProps("t", state, Duration.ofMillis(20), null);
        assertThat(props.get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(20);
        props = KafkaSettings.from(DEV).streamsProps("t", state, Duration.ofSeconds(1), null);
        assertThat(props.get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(100);
    }

    @Test
    void anInstanceKeepsItsGroupInstanceIdAcrossRestartsAndNoOtherSharesIt(@TempDir Path root) {
        String key = StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        var first = KafkaSettings.from(DEV).streamsProps("tally-x", root.resolve("a"), Duration.ofMillis(100), null);
        var again = KafkaSettings.from(DEV).streamsProps("tally-x", root.resolve("a"), Duration.ofMillis(100), null);
        var other = KafkaSettings.from(DEV).streamsProps("tally-x", root.resolve("b"), Duration.ofMillis(100), null);
        assertThat(first.get(key)).asString().startsWith("tally-x-");
        assertThat(again.get(key)).isEqualTo(first.get(key));
        assertThat(other.get(key)).isNotEqualTo(first.get(key));
    }
}
