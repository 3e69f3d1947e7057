package dev.tally.webhooks;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.KafkaSettings;
import dev.tally.schema.WebhookSubscription;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The webhook subscriptions, in the compacted {@code tally.webhook-subscriptions}: read from a view every node keeps,
 * written by the admin API (and by a sender that disables one), each write acknowledged by Kafka before it returns.
 */
public final class Subscriptions implements AutoCloseable {
    public static final String ACTIVE = "active";
    public static final String PAUSED = "paused";
    public static final String DISABLED = "disabled";

    private final CompactedTopicView<WebhookSubscription> view;
    private final KafkaProducer<String, WebhookSubscription> producer;
    private final String topic;

    public Subscriptions(KafkaSettings kafka) {
        this.view = new CompactedTopicView<>(kafka, Topics.WEBHOOK_SUBSCRIPTIONS);
        this.topic = kafka.topic(Topics.WEBHOOK_SUBSCRIPTIONS).name();
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-webhook-subscriptions", Duration.ofSeconds(10)),
                Topics.WEBHOOK_SUBSCRIPTIONS.keySerde().serializer(), Topics.WEBHOOK_SUBSCRIPTIONS.valueSerde().serializer());
    }

    public Optional<WebhookSubscription> get(String id) {
        return view.get(id);
    }

    /** Every subscription, oldest first. */
    public List<WebhookSubscription> all() {
        return view.snapshot().values().stream().sorted(Comparator.comparing(WebhookSubscription::getCreatedAt)
                .thenComparing(WebhookSubscription::getId)).toList();
    }

    public boolean caughtUp() {
        return view.caughtUp();
    }

    /** Writes a subscription and waits until Kafka has it; this node's view shows it at once. */
    public WebhookSubscription put(WebhookSubscription sub) {
        write(sub.getId(), sub);
        view.applyLocal(sub.getId(), sub);
        return sub;
    }

    /** Deletes a subscription (a tombstone); its positions and attempts age out with their topics. */
    public void delete(String id) {
        write(id, null);
        view.applyLocal(id, null);
    }

    private void write(String id, WebhookSubscription sub) {
        try {
            producer.send(new ProducerRecord<>(topic, id, sub)).get(15, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write webhook subscription '" + id + "' to " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing webhook subscription '" + id + "'", e);
        }
    }

    /** Which items a subscription is sent: those of its types and its single items, or every item when it lists none. */
    public record Filter(Set<String> types, Set<String> items) {
        public static Filter of(WebhookSubscription sub) {
            return new Filter(Set.copyOf(sub.getItemTypes()), Set.copyOf(sub.getItems()));
        }

        public boolean matches(String itemType, String itemKey) {
            return (types.isEmpty() && items.isEmpty()) || types.contains(itemType) || items.contains(itemKey);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        view.close();
    }
}
