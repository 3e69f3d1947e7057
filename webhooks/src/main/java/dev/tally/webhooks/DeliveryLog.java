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
 * The delivery attempts of every subscription, in {@code tally.webhook-attempts} (kept 7 days): every node reads the
 * topic into the latest {@value #KEPT} attempts per subscription and how long it has been failing, so any node
 * answers {@code GET …/deliveries} and a subscription's status, and a restarted sender knows how long a receiver has
 * been failing.
 */
public final class DeliveryLog implements AutoCloseable {
    public static final int KEPT = 100;

    /** What the log says of one subscription's deliveries. */
    public record Health(Optional<WebhookAttempt> last, Optional<Instant> failingSince) {}

    private final Map<String, Deque<WebhookAttempt>> recent = new HashMap<>();
    private final Map<String, Instant> failingSince = new HashMap<>();
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
        consumer.seekToBeginning(partitions);
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

    public synchronized Health health(String subscriptionId) {
        Deque<WebhookAttempt> attempts = recent.get(subscriptionId);
        return new Health(attempts == null || attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.peekLast()),
                Optional.ofNullable(failingSince.get(subscriptionId)));
    }

    /** Forgets a deleted subscription. */
    public synchronized void forget(String subscriptionId) {
        recent.remove(subscriptionId);
        failingSince.remove(subscriptionId);
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
            if (succeeded(a)) {
                failingSince.remove(a.getSubscriptionId());
            } else {
                failingSince.putIfAbsent(a.getSubscriptionId(), a.getAttemptedAt());
            }
        }
    }

    /** A 2xx answer. */
    public static boolean succeeded(WebhookAttempt a) {
        return a.getHttpStatus() >= 200 && a.getHttpStatus() < 300;
    }

    @Override
    public void close() {
        reader.close();
        producer.close(Duration.ofSeconds(5));
    }
}
