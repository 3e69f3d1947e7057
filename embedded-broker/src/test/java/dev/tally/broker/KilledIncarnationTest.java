package dev.tally.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KilledIncarnationTest {
    private static final String LIFECYCLE = "org.apache.kafka.server.BrokerLifecycleManager";

    @TempDir
    Path dir;

    /**
     * A node started on the image of a running one (its log directory copied while it ran: what a SIGKILL leaves)
     * unregisters the incarnation that image still holds registered, so its broker's registration is never refused
     * (before, the controller answered DUPLICATE_BROKER_REGISTRATION until the old session expired), and it serves
     * every partition and record written before. A node stopped cleanly has nothing to forget.
     */
    @Test
    void aNodeStartedWhereOneWasKilledRegistersAtOnceAndKeepsItsData() throws Exception {
        Path live = dir.resolve("live");
        Path image = dir.resolve("image");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(live, 0)) {
            try (Admin admin = admin(kafka)) {
                admin.createTopics(List.of(new NewTopic("t", 3, (short) 1))).all().get();
            }
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                for (int i = 0; i < 50; i++) {
                    producer.send(new ProducerRecord<>("t", "k" + i, "v" + i)).get();
                }
            }
            copy(live, image);
        }
        assertThat(KilledIncarnation.leftIn(live)).as("stopped cleanly").isFalse();
        assertThat(KilledIncarnation.leftIn(image)).as("the image of a running node").isTrue();

        List<String> refusals = Collections.synchronizedList(new ArrayList<>());
        LoggerContext logs = (LoggerContext) LogManager.getContext(false);
        var appender = new AbstractAppender("refusals", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                String message = event.getMessage().getFormattedMessage();
                if (message.contains("DUPLICATE_BROKER_REGISTRATION")) {
                    refusals.add(message);
                }
            }
        };
        appender.start();
        LoggerConfig lifecycle = new LoggerConfig(LIFECYCLE, Level.INFO, false);
        lifecycle.addAppender(appender, Level.INFO, null);
        logs.getConfiguration().addLogger(LIFECYCLE, lifecycle);
        logs.updateLoggers();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(image, 0)) {
            assertThat(kafka.forgotKilledIncarnation(1)).isTrue();
            assertThat(refusals).isEmpty();
            try (Admin admin = admin(kafka)) {
                TopicDescription t = admin.describeTopics(Set.of("t")).allTopicNames().get().get("t");
                assertThat(t.partitions()).extracting(TopicPartitionInfo::leader).allSatisfy(l -> assertThat(l.id()).isEqualTo(1));
            }
            assertThat(readAll(kafka)).hasSize(50);
        } finally {
            logs.getConfiguration().removeLogger(LIFECYCLE);
            logs.updateLoggers();
        }

        try (EmbeddedKafka kafka = EmbeddedKafka.start(live, 0)) {
            assertThat(kafka.forgotKilledIncarnation(1)).isFalse();
            assertThat(readAll(kafka)).hasSize(50);
        }
    }

    private static List<String> readAll(EmbeddedKafka kafka) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("t"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 50 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    private static Admin admin(EmbeddedKafka kafka) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()));
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()),
                new StringSerializer(), new StringSerializer());
    }

    /** Copies a log directory as it is, the node still running. */
    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(f -> {
                try {
                    Path target = to.resolve(from.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(f, target);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
