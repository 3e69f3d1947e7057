package dev.tally.webhooks;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicFollower;
import dev.tally.schema.WebhookAttempt;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The delivery attempts of every subscription, in {@code tally.webhook-attempts} (kept 7 days): every failed attempt
 * and retry, and successful ones at most once a second per subscription. Every node reads the last
 * {@link #LOOKBACK} of the topic, and what comes after, into the latest {@value #KEPT} attempts per subscription, so
 * any node answers {@code GET …/deliveries}.
 */
public final class DeliveryLog implements AutoCloseable {
    public static final int KEPT = 100;
    public static final Duration LOOKBACK = Duration.ofHours(1);

    private final Map<String, Deque<WebhookAttempt>> recent = new HashMap<>();
    private final KafkaProducer<String, WebhookAttempt> producer;
    private final TopicFollower<String, WebhookAttempt> reader;
    private final String topic;

    public DeliveryLog(KafkaSettings kafka) {
        Topic<String, WebhookAttempt> attempts = kafka.topic(Topics.WEBHOOK_ATTEMPTS);
        this.topic = attempts.name();
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-webhook-attempts", Duration.ofSeconds(30)),
                attempts.keySerde().serializer(), attempts.valueSerde().serializer());
        var consumer = new KafkaConsumer<>(kafka.clientProps("tally-view-" + topic), attempts.keySerde().deserializer(),
                attempts.valueSerde().deserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        long from = Instant.now().minus(LOOKBACK).toEpochMilli();
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(p -> times.put(p, from));
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        consumer.offsetsForTimes(times, Duration.ofSeconds(30)).forEach((p, at) -> consumer.seek(p, at == null ? ends.get(p) : at.offset()));
        this.reader = TopicFollower.start(consumer, "tally-view-" + topic, Duration.ofMillis(200), this::apply);
    }

    /** Records an attempt (asynchronously: the log is for people, a lost line costs no delivery). */
    public void record(WebhookAttempt attempt) {
        producer.send(new ProducerRecord<>(topic, attempt.getSubscriptionId(), attempt));
    }

    /** The latest attempts of a subscription, newest first. */
    public synchronized List<WebhookAttempt> latest(String subscriptionId, int limit) {
        Deque<WebhookAttempt> attempts = recent.get(subscriptionId);
        if (attempts == null) {
            return List.of();
        }
        List<WebhookAttempt> out = new ArrayList<>(limit);
        var it = attempts.descendingIterator();
        while (it.hasNext() && out.size() < limit) {
            out.add(it.next());
        }
        return out;
    }

    /** The latest attempt of a subscription in the log. */
    public synchronized Optional<WebhookAttempt> last(String subscriptionId) {
        Deque<WebhookAttempt> attempts = recent.get(subscriptionId);
        return attempts == null || attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.peekLast());
    }

    /** Forgets a deleted subscription. */
    public synchronized void forget(String subscriptionId) {
        recent.remove(subscriptionId);
    }

    private synchronized void apply(ConsumerRecords<String, WebhookAttempt> batch) {
        for (ConsumerRecord<String, WebhookAttempt> r : batch) {
            WebhookAttempt a = r.value();
            if (a == null) {
                continue;
            }
            Deque<WebhookAttempt> attempts = recent.computeIfAbsent(a.getSubscriptionId(), k -> new ArrayDeque<>());
            attempts.addLast(a);
            if (attempts.size() > KEPT) {
                attempts.removeFirst();
            }
        }
    }

    @Override
    public void close() {
        reader.close();
        producer.close(Duration.ofSeconds(5));
    }
}
