package dev.tally.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.file.FileStreamSinkConnector;
import org.apache.kafka.connect.file.FileStreamSinkTask;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.Herder;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorInfo;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.util.FutureCallback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standalone Kafka Connect worker in this JVM, on a real broker, with Apache Kafka's own file sink
 * connector ({@link FileSink}) and {@link TallyConverter} as its value converter: vote events written to
 * {@code tally.vote-events} the way Tally writes them (single-object Avro, in committed transactions, one
 * aborted transaction among them) come out of the sink's file decoded, one struct per event, and the
 * aborted one does not (the worker reads read_committed).
 */
class ConnectFileSinkIT {
    @TempDir
    Path dir;

    @Test
    void aFileSinkWritesTallysEventsDecodedByTheConverter() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic(Topics.VOTE_EVENTS.name(), 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            List<VoteEvent> events = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                events.add(event("c-" + i, Integer.toString(i)));
            }
            produce(kafka.bootstrap(), events, event("aborted", "x"));

            Path sink = dir.resolve("events.txt");
            Connect<StandaloneHerder> connect = new ConnectStandalone().startConnect(Map.of(
                    "bootstrap.servers", kafka.bootstrap(),
                    "key.converter", "org.apache.kafka.connect.storage.StringConverter",
                    "value.converter", TallyConverter.class.getName(),
                    "consumer.isolation.level", "read_committed",
                    "offset.storage.file.filename", dir.resolve("connect.offsets").toString(),
                    "offset.flush.interval.ms", "500",
                    "listeners", "http://127.0.0.1:0",
                    "plugin.discovery", "only_scan"));
            try {
                FutureCallback<Herder.Created<ConnectorInfo>> created = new FutureCallback<>();
                connect.herder().putConnectorConfig("tally-events-to-file", Map.of("name", "tally-events-to-file",
                        "connector.class", FileSink.class.getName(),
                        "tasks.max", "1",
                        "topics", Topics.VOTE_EVENTS.name(),
                        "file", sink.toString()), false, created);
                created.get(60, TimeUnit.SECONDS);

                List<String> lines = awaitLines(sink, events.size(), Duration.ofSeconds(60));
                System.out.println("ConnectFileSinkIT: " + lines.get(0));
                assertThat(lines).hasSize(events.size());
                for (VoteEvent e : events) {
                    assertThat(lines).as("the event %s, decoded", e.getCommandId()).anySatisfy(l -> assertThat(l)
                            .startsWith("Struct{").contains("command_id=" + e.getCommandId(), "item_id=" + e.getItemId(),
                                    "outcome=ACCEPTED", "before=Struct{vote=0", "after=Struct{vote=1"));
                }
                assertThat(lines).noneMatch(l -> l.contains("aborted"));
            } finally {
                connect.stop();
                connect.awaitStop();
            }
        }
    }

    /**
     * Apache Kafka's file sink as released (4.3.1, the newest) with one change: its {@code version()} calls a
     * kafka-clients class that 4.4 moved ({@code common.utils.AppInfoParser}), so both say their own.
     */
    public static final class FileSink extends FileStreamSinkConnector {
        @Override
        public String version() {
            return "4.3.1";
        }

        @Override
        public Class<? extends Task> taskClass() {
            return FileSinkTask.class;
        }
    }

    public static final class FileSinkTask extends FileStreamSinkTask {
        @Override
        public String version() {
            return "4.3.1";
        }
    }

    private static VoteEvent event(String commandId, String itemId) {
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        return VoteEvent.newBuilder().setCommandId(commandId).setVoter("hash-" + commandId).setItemType("post").setItemId(itemId)
                .setOutcome(Outcome.ACCEPTED).setBefore(new VoterItemState(0, null, 1.0))
                .setAfter(new VoterItemState(1, null, 1.0)).setReceivedAt(now).setResolvedAt(now)
                .setSourcePartition(0).setSourceOffset(0).build();
    }

    /** As the vote-processor writes: in transactions, keyed by item; then one transaction aborted. */
    private static void produce(String bootstrap, List<VoteEvent> committed, VoteEvent aborted) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "connect-it-" + UUID.randomUUID());
        var topic = Topics.VOTE_EVENTS;
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), topic.valueSerde().serializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            committed.forEach(e -> producer.send(new ProducerRecord<>(topic.name(), Topics.itemKey(e.getItemType(), e.getItemId()), e)));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic.name(), "post:x", aborted));
            producer.flush();
            producer.abortTransaction();
        }
    }

    private static List<String> awaitLines(Path file, int n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = List.of();
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
                if (lines.size() >= n) {
                    Thread.sleep(1000); // nothing more should come
                    return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
                }
            }
            Thread.sleep(200);
        }
        return lines;
    }
}
