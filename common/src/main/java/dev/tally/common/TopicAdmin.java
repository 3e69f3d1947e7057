package dev.tally.common;

import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates Tally's topics if they are missing and seeds the reaction registry on first start: every
 * service calls it at start, so start order does not matter.
 */
public final class TopicAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);

    private TopicAdmin() {}

    public static void ensureTopics(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-topic-admin"))) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = Topics.ALL.stream()
                    .filter(t -> !existing.contains(t.name()))
                    .map(t -> newTopic(t, kafka))
                    .toList();
            if (missing.isEmpty()) {
                ReactionRegistry.seedDefaults(kafka);
                return;
            }
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                    LOG.info("created topic {} ({} partitions)", entry.getKey(), kafka.partitions());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + entry.getKey(), e.getCause());
                    }
                }
            }
            awaitMetadata(admin, missing.stream().map(NewTopic::name).toList());
            ReactionRegistry.seedDefaults(kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot reach Kafka at " + kafka.bootstrap() + " to create topics", e);
        }
    }

    /**
     * How many partitions {@code topic} has (fixed when it was created; {@code TALLY_PARTITIONS} may have changed
     * since, the topic's own count is what partitioning must follow).
     */
    public static int partitions(KafkaSettings kafka, String topic) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-topic-admin"))) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing topic " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe topic " + topic + " at " + kafka.bootstrap(), e);
        }
    }

    /**
     * Creation returns when the controller has the topics; a consumer asking the broker at once may still
     * see no partitions (a global store would then fail to start). Wait until the broker describes them.
     */
    private static void awaitMetadata(Admin admin, List<String> names) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                admin.describeTopics(names).allTopicNames().get(5, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topics " + names + " were created but never became visible", e);
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * A compacted topic keeps every record for an hour before the cleaner may drop it for a newer one. A
     * reconcile reads {@code tally.item-counts} up to a snapshot taken at its start, one partition after
     * another: a view below the snapshot must still be there when its partition is read, even if the item
     * was voted on again since.
     */
    static final Duration MIN_COMPACTION_LAG = Duration.ofHours(1);

    private static NewTopic newTopic(Topic<?, ?> topic, KafkaSettings kafka) {
        Map<String, String> configs = topic.compacted()
                ? Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                        TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(MIN_COMPACTION_LAG.toMillis()))
                : Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retentionMs()));
        return new NewTopic(topic.name(), kafka.partitions(), kafka.replicationFactor()).configs(configs);
    }
}
