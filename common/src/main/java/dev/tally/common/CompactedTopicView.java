package dev.tally.common;

import dev.tally.schemas.Topic;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * An in-memory copy of a small compacted topic (the reaction registry, the item catalogue) for a
 * process that is not a Streams application: read from the beginning, then followed. It is caught up
 * once it has read everything that existed when it started.
 */
public final class CompactedTopicView<V> implements KeyedView<V>, AutoCloseable {
    private final KafkaConsumer<String, V> consumer;
    private final Map<String, V> values = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> startEnd;
    private final TopicFollower<String, V> reader;
    private volatile boolean caughtUp;

    /** @param catalogued a topic of the catalogue ({@code Topics}): read as {@code kafka}'s namespace names it */
    public CompactedTopicView(KafkaSettings kafka, Topic<String, V> catalogued) {
        Topic<String, V> topic = kafka.topic(catalogued);
        var props = kafka.clientProps("tally-view-" + topic.name());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, topic.keySerde().deserializer(), topic.valueSerde().deserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic.name(), Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.startEnd = new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(30)));
        this.reader = TopicFollower.start(consumer, "tally-view-" + topic.name(), Duration.ofMillis(500), this::apply);
    }

    @Override
    public Optional<V> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    @Override
    public Map<String, V> snapshot() {
        return Map.copyOf(values);
    }

    @Override
    public boolean caughtUp() {
        return caughtUp;
    }

    /** Blocks until {@link #caughtUp()}: what a one-shot CLI command needs before it reads the view. */
    public void awaitCaughtUp() throws InterruptedException {
        while (!caughtUp) {
            Thread.sleep(50);
        }
    }

    @Override
    public void applyLocal(String key, V value) {
        if (value == null) {
            values.remove(key);
        } else {
            values.put(key, value);
        }
    }

    /** On the reader thread, after every poll. */
    private void apply(ConsumerRecords<String, V> batch) {
        for (ConsumerRecord<String, V> r : batch) {
            if (r.value() == null) {
                values.remove(r.key());
            } else {
                values.put(r.key(), r.value());
            }
        }
        if (!caughtUp) {
            caughtUp = startEnd.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
        }
    }

    @Override
    public void close() {
        reader.close();
    }
}
