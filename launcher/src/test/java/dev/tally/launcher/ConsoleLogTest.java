package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.xml.XmlConfiguration;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.ParameterizedMessage;
import org.apache.logging.log4j.message.SimpleMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console of {@code ./tally up} (launcher log4j2.xml) is silent about what Kafka logs as ERROR or WARN for
 * nothing an operator can act on, and only about that: a transaction's batches the broker refused out of order
 * and the producer sent again; a store a restart rebuilds, which Tally's own line per application reports; a
 * restarted node's controller registration sent before its own controller is active again, and sent again.
 * ({@code NodeCrashDrillIT} asserts the console of real starts; its children log with this file.)
 */
class ConsoleLogTest {
    private static final String BROKER = "kafka.server.ReplicaManager";
    private static final String SENDER = "org.apache.kafka.clients.producer.internals.Sender";

    @Test
    void theBrokersErrorForARetriedOutOfOrderAppendIsDroppedAndEveryOtherErrorKept(@TempDir Path dir) throws Exception {
        LoggerConfig replicaManager = launcherConfig(dir).getLoggerConfig(BROKER);
        assertThat(replicaManager.getName()).isEqualTo(BROKER);

        assertThat(replicaManager.isFiltered(appendError(new OutOfOrderSequenceException(
                "Invalid sequence number for producer 9 at offset 4 in partition tally.vote-events-0: 6 (incoming seq. number). "
                        + "Expected sequence 0 for transactions v2 idempotent producer with no existing state."))))
                .as("retried by the producer").isTrue();
        assertThat(replicaManager.isFiltered(appendError(new KafkaStorageException("disk gone"))))
                .as("any other append error").isFalse();
        assertThat(replicaManager.isFiltered(appendError(null))).as("an error without an exception").isFalse();
    }

    @Test
    void theProducersWarningForThoseTwoRetriedAnswersIsDroppedAndEveryOtherKept(@TempDir Path dir) throws Exception {
        LoggerConfig sender = launcherConfig(dir).getLoggerConfig(SENDER);
        assertThat(sender.getName()).isEqualTo(SENDER);

        assertThat(sender.isFiltered(retryWarning("CONCURRENT_TRANSACTIONS"))).isTrue();
        assertThat(sender.isFiltered(retryWarning("OUT_OF_ORDER_SEQUENCE_NUMBER"))).isTrue();
        assertThat(sender.isFiltered(retryWarning("OUT_OF_ORDER_SEQUENCE_NUMBER. Error Message: sequence 6, expected 0"))).isTrue();
        assertThat(sender.isFiltered(retryWarning("NOT_ENOUGH_REPLICAS"))).as("another retried error").isFalse();
        assertThat(sender.isFiltered(retryWarning("OUT_OF_ORDER_SEQUENCE_NUMBER_X"))).isFalse();
    }

    @Test
    void aStoreRebuiltAfterACrashIsReportedByTallysLineNotByAWarningPerStore(@TempDir Path dir) throws Exception {
        String name = "org.apache.kafka.streams.processor.internals.ProcessorStateManager";
        LoggerConfig stateManager = launcherConfig(dir).getLoggerConfig(name);
        assertThat(stateManager.getName()).isEqualTo(name);

        assertThat(stateManager.isFiltered(event(name, Level.WARN, new SimpleMessage("stream-client [tally-vote-processor] State store "
                + "pending-deltas did not find checkpoint offsets while stores are not empty, since under EOS it has the risk of getting "
                + "uncommitted data in stores we have to treat it as a task corruption error and wipe out the local state of task 3_1 "
                + "before re-bootstrapping")))).isTrue();
        assertThat(stateManager.isFiltered(event(name, Level.ERROR, new SimpleMessage("stream-client [tally-vote-processor] "
                + "Tried to initialize store offsets for corrupted store pending-deltas")))).isFalse();
    }

    @Test
    void aControllerRegistrationRefusedBeforeTheNodesOwnControllerIsActiveIsDroppedAndEveryOtherRequestErrorKept(@TempDir Path dir)
            throws Exception {
        String name = "kafka.server.ControllerApis";
        LoggerConfig controllerApis = launcherConfig(dir).getLoggerConfig(name);
        assertThat(controllerApis.getName()).isEqualTo(name);

        assertThat(controllerApis.isFiltered(event(name, Level.ERROR, requestError("CONTROLLER_REGISTRATION")))).isTrue();
        assertThat(controllerApis.isFiltered(event(name, Level.ERROR, requestError("BROKER_REGISTRATION")))).isFalse();
        assertThat(controllerApis.isFiltered(event(name, Level.ERROR, requestError("CREATE_TOPICS")))).isFalse();
    }

    @Test
    void ofTheBrokersLogLoadingOnlyTheLineThatSaysHowLongItTookIsKept(@TempDir Path dir) throws Exception {
        String name = "org.apache.kafka.storage.internals.log.LogManager";
        LoggerConfig logManager = launcherConfig(dir).getLoggerConfig(name);
        assertThat(logManager.getName()).isEqualTo(name);

        assertThat(logManager.isFiltered(event(name, Level.INFO, new ParameterizedMessage("Loaded {} logs in {}ms{}", 124, 1525,
                " (unclean log dirs = [/tmp/node/kafka])")))).isFalse();
        assertThat(logManager.isFiltered(event(name, Level.INFO, new SimpleMessage("Completed load of Log(dir=/tmp/node/kafka/"
                + "tally.vote-events-1, topic=tally.vote-events, partition=1) with 1 segments in 139ms (11/124 completed)")))).isTrue();
        assertThat(logManager.isFiltered(event(name, Level.WARN, new SimpleMessage("Unable to read the broker epoch")))).isFalse();
    }

    /** The controller's line, in Kafka 4.4's words. */
    private static SimpleMessage requestError(String apiKey) {
        return new SimpleMessage("[ControllerApis nodeId=1] Unexpected error handling request RequestHeader(apiKey=" + apiKey
                + ", apiVersion=0, clientId=1, correlationId=0, headerVersion=2) -- ControllerRegistrationRequestData(controllerId=1, "
                + "incarnationId=1KLHRY48SI6cx0jO2Nc_2A, zkMigrationReady=false, listeners=[…]) with context RequestContext(…)");
    }

    private static XmlConfiguration launcherConfig(Path dir) throws Exception {
        String xml;
        try (InputStream in = ConsoleLogTest.class.getResourceAsStream("/log4j2.xml")) {
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // the launcher's own file, its log file moved out of the working directory
        xml = xml.replace("${env:TALLY_DATA_DIR:-data}", dir.toString());
        XmlConfiguration config = new XmlConfiguration(new LoggerContext("launcher-config-test"),
                new ConfigurationSource(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))));
        config.initialize();
        return config;
    }

    private static LogEvent appendError(Throwable thrown) {
        return Log4jLogEvent.newBuilder().setLoggerName(BROKER).setLevel(Level.ERROR)
                .setMessage(new SimpleMessage("[ReplicaManager broker=1] Error processing append operation on partition x:tally.vote-events-0"))
                .setThrown(thrown).build();
    }

    private static LogEvent event(String logger, Level level, Message message) {
        return Log4jLogEvent.newBuilder().setLoggerName(logger).setLevel(level).setMessage(message).build();
    }

    /** The producer's line, in Kafka 4.4's words. */
    private static LogEvent retryWarning(String error) {
        return Log4jLogEvent.newBuilder().setLoggerName(SENDER).setLevel(Level.WARN)
                .setMessage(new ParameterizedMessage("[Producer clientId=tally-vote-processor-StreamThread-1-producer] Got error produce "
                        + "response with correlation id {} on topic-partition {}, retrying ({} attempts left). Error: {}",
                        16, "tally.vote-events-0", 2147483646, error))
                .build();
    }
}
