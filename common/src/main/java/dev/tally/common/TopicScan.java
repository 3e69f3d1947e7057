package dev.tally.common;

import dev.tally.schemas.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads every committed record of a Tally topic from its beginning to its end as of now (read
 * committed, so the end is each partition's last stable offset), without a consumer group. For tools
 * and tests that fold the log: {@code ./tally void}, replays. (Reconcile reads up to the high watermark
 * instead; see its {@code TopicSnapshot}.)
 */
public final class TopicScan {
    private TopicScan() {}

    /** {@code topic}: a topic of the catalogue, read as {@code kafka}'s namespace names it. */
    public static <K, V> void readAll(KafkaSettings kafka, Topic<K, V> topic, Consumer<ConsumerRecord<K, V>> each) {
        readAll(kafka, kafka.topic(topic).name(), topic.keySerde().deserializer(), topic.valueSerde().deserializer(), each);
    }

    /** The same for any topic, e.g. a Streams changelog. */
    public static <K, V> void readAll(KafkaSettings kafka, String topic, Deserializer<K> keys, Deserializer<V> values,
                                      Consumer<ConsumerRecord<K, V>> each) {
        readFrom(kafka, topic, keys, values, Map.of(), null, each);
    }

    /**
     * The same from the given positions (partitions not named start at the beginning); with a
     * {@code limit}, failing if the end is not reached within it.
     */
    public static <K, V> void readFrom(KafkaSettings kafka, String topic, Deserializer<K> keys, Deserializer<V> values,
                                       Map<TopicPartition, Long> from, Duration limit, Consumer<ConsumerRecord<K, V>> each) {
        var props = kafka.clientProps("tally-scan-" + UUID.randomUUID());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (var consumer = new KafkaConsumer<>(props, keys, values)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            from.forEach((tp, offset) -> {
                if (parts.contains(tp)) {
                    consumer.seek(tp, offset);
                }
            });
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("reading " + topic + " took over " + limit);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(each);
            }
        }
    }
}
