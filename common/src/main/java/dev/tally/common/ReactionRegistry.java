package dev.tally.common;

import dev.tally.schema.ReactionType;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes to the reaction registry, {@code tally.reaction-types}: a compacted topic keyed by code. A
 * retired code stays in it, inactive, so its history keeps its counts and it cannot be reused by accident.
 */
public final class ReactionRegistry implements ReactionWriter, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReactionRegistry.class);

    /** The default set, seeded on first start, in display order. */
    public static final List<String> DEFAULT_CODES = List.of("like", "love", "haha", "wow", "sad", "angry");
    private static final List<String> DEFAULT_LABELS = List.of("Like", "Love", "Haha", "Wow", "Sad", "Angry");

    private final KafkaProducer<String, ReactionType> producer;
    private final String topic;

    public ReactionRegistry(KafkaSettings kafka) {
        this.topic = kafka.topic(Topics.REACTION_TYPES).name();
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-reaction-registry", Duration.ofSeconds(10)),
                Topics.REACTION_TYPES.keySerde().serializer(), Topics.REACTION_TYPES.valueSerde().serializer());
    }

    /** Adds or updates a code (active) and waits until Kafka has it. */
    @Override
    public ReactionType put(String code, String label, String iconUrl) {
        return write(new ReactionType(code, label, iconUrl, true, Instant.now()));
    }

    /** Retires a code: it stays in the registry, inactive. */
    @Override
    public ReactionType retire(ReactionType current) {
        return write(ReactionType.newBuilder(current).setActive(false).setUpdatedAt(Instant.now()).build());
    }

    private ReactionType write(ReactionType type) {
        try {
            producer.send(new ProducerRecord<>(topic, type.getCode(), type)).get(15, TimeUnit.SECONDS);
            return type;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write reaction '" + type.getCode() + "' to " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing reaction '" + type.getCode() + "'", e);
        }
    }

    /** Writes the default set when the registry topic has never held anything. */
    public static void seedDefaults(KafkaSettings kafka) {
        try (var consumer = new KafkaConsumer<>(kafka.clientProps("tally-registry-seed"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(kafka.topic(Topics.REACTION_TYPES).name(), Duration.ofSeconds(30))
                    .stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            boolean empty = consumer.endOffsets(partitions, Duration.ofSeconds(30)).values().stream().allMatch(o -> o == 0);
            if (!empty) {
                return;
            }
        }
        try (ReactionRegistry registry = new ReactionRegistry(kafka)) {
            for (int i = 0; i < DEFAULT_CODES.size(); i++) {
                registry.put(DEFAULT_CODES.get(i), DEFAULT_LABELS.get(i), null);
            }
            LOG.info("seeded the reaction registry with {}", DEFAULT_CODES);
        }
    }

    /** Display order: the default set first, in its order, then the rest by code. */
    public static final Comparator<ReactionType> DISPLAY_ORDER = Comparator
            .comparingInt((ReactionType t) -> {
                int i = DEFAULT_CODES.indexOf(t.getCode());
                return i < 0 ? Integer.MAX_VALUE : i;
            })
            .thenComparing(ReactionType::getCode);

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
