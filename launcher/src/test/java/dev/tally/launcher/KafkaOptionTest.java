package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.broker.FreePort;
import dev.tally.common.Env;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a command finds the broker: what {@code up} recorded, and a quick, specific failure when nobody answers. */
class KafkaOptionTest {
    @TempDir
    Path dataDir;

    @Test
    void upRecordsItsBrokerAndACommandReadsItBack() throws Exception {
        assertThat(KafkaOption.recorded(dataDir)).isEmpty();
        KafkaOption.record(dataDir, "127.0.0.1:19092,127.0.0.1:19093");
        assertThat(KafkaOption.recorded(dataDir)).hasValue("127.0.0.1:19092,127.0.0.1:19093");
        KafkaOption.record(dataDir, "127.0.0.1:29092"); // a later up replaces it
        assertThat(KafkaOption.recorded(dataDir)).hasValue("127.0.0.1:29092");
        assertThat(Files.list(dataDir)).extracting(p -> p.getFileName().toString()).containsExactly("bootstrap");
    }

    @Test
    void aBrokerThatDoesNotAnswerStopsTheCommandAtOnceSayingWhereItLooked() throws Exception {
        int closed = FreePort.pick(); // free: nobody listens on it
        KafkaOption option = new KafkaOption();
        option.bootstrap = "127.0.0.1:" + closed;
        assertThatThrownBy(option::kafka).isInstanceOf(Env.ConfigException.class)
                .hasMessageContaining("no Kafka broker answers at 127.0.0.1:" + closed)
                .hasMessageContaining("from --bootstrap");
    }

    @Test
    void aBrokerThatAnswersIsUsed() throws Exception {
        try (ServerSocket listening = new ServerSocket(0)) {
            KafkaOption option = new KafkaOption();
            option.bootstrap = "127.0.0.1:1," + "127.0.0.1:" + listening.getLocalPort(); // the first is down
            assertThat(option.kafka().bootstrap()).endsWith(":" + listening.getLocalPort());
        }
    }
}
