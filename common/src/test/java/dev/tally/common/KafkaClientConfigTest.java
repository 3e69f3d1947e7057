package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {
    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"tally\" password=\"s3cret-pa55\";";

    @Test
    void variablesAreNamedAsKafkasContainerImagesNameThem() {
        assertThat(KafkaClientConfig.settingName("TALLY_KAFKA_SECURITY_PROTOCOL")).isEqualTo("security.protocol");
        assertThat(KafkaClientConfig.settingName("TALLY_KAFKA_SASL_JAAS_CONFIG")).isEqualTo("sasl.jaas.config");
        assertThat(KafkaClientConfig.settingName("TALLY_KAFKA_SOME__UNDERSCORED___DASHED")).isEqualTo("some_underscored-dashed");
    }

    @Test
    void theFileAndTheVariablesReachEveryClientTheVariablesWinning(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=" + JAAS
                + "\nssl.truststore.location=/etc/tally/ca.p12\n");
        Env env = Env.of(Map.of("TALLY_KAFKA_CONFIG", file.toString(), "TALLY_KAFKA_SASL_MECHANISM", "PLAIN",
                "TALLY_KAFKA_PORT", "19092", "TALLY_BOOTSTRAP", "kafka:9093"));

        KafkaSettings kafka = KafkaSettings.from(env);

        for (Properties p : new Properties[] {kafka.clientProps("c"), kafka.producerProps("p", Duration.ofSeconds(2)),
                kafka.streamsProps("tally-x", dir, Duration.ofMillis(100), null)}) {
            assertThat(p).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "PLAIN")
                    .containsEntry("sasl.jaas.config", JAAS).containsEntry("ssl.truststore.location", "/etc/tally/ca.p12")
                    .containsEntry("bootstrap.servers", "kafka:9093").doesNotContainKey("port");
        }
        assertThat(kafka.streamsProps("tally-x", dir, Duration.ofMillis(100), null))
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(kafka.client().toString()).doesNotContain("s3cret-pa55").contains("sasl.jaas.config");
    }

    @Test
    void aSettingTallyOwnsIsRefusedByNameWithoutItsValue(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "producer.enable.idempotence=false\n");

        assertThatThrownBy(() -> KafkaClientConfig.from(Env.of(Map.of("TALLY_KAFKA_CONFIG", file.toString()))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("producer.enable.idempotence")
                .hasMessageNotContaining("false");
        assertThatThrownBy(() -> KafkaClientConfig.from(Env.of(Map.of("TALLY_KAFKA_ISOLATION_LEVEL", "read_uncommitted"))))
                .hasMessageContaining("isolation.level").hasMessageNotContaining("read_uncommitted");
        assertThatThrownBy(() -> KafkaClientConfig.from(Env.of(Map.of("TALLY_KAFKA_BOOTSTRAP_SERVERS", "x:1"))))
                .hasMessageContaining("TALLY_BOOTSTRAP");
    }

    @Test
    void anUnreadableFileIsNamedAndNothingOfItsContentShown(@TempDir Path dir) {
        Path missing = dir.resolve("nope.properties");

        assertThatThrownBy(() -> KafkaClientConfig.from(Env.of(Map.of("TALLY_KAFKA_CONFIG", missing.toString()))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining(missing.toString());
    }
}
