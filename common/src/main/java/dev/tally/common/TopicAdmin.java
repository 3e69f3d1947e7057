package dev.tally.common;

import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tally's topics as its namespace names them: created at start if they are missing, or — with
 * {@code TALLY_CREATE_TOPICS=false}, where topics are managed as code — checked: each must exist as Tally needs
 * it, or the start stops naming the topic and the setting. Every service does this at start, so start order does
 * not matter; then the reaction registry is seeded on first start.
 */
public final class TopicAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(TopicAdmin.class);

    private TopicAdmin() {}

    /**
     * A compacted topic keeps every record for an hour before the cleaner may drop it for a newer one. A
     * reconcile reads {@code tally.item-counts} up to a snapshot taken at its start, one partition after
     * another: a view below the snapshot must still be there when its partition is read, even if the item
     * was voted on again since.
     */
    static final Duration MIN_COMPACTION_LAG = Duration.ofHours(1);

    /** Every topic of the namespace as Tally creates it: partitions, replicas and the settings it relies on. */
    public static List<NewTopic> specs(KafkaSettings kafka) {
        return Topics.ALL.stream().map(t -> newTopic(kafka.topic(t), kafka)).toList();
    }

    private static NewTopic newTopic(Topic<?, ?> topic, KafkaSettings kafka) {
        Map<String, String> configs = new LinkedHashMap<>();
        if (topic.compacted()) {
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
            configs.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(MIN_COMPACTION_LAG.toMillis()));
        } else {
            configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
            configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(topic.retentionMs()));
        }
        if (kafka.replicationFactor() >= 3) {
            configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        }
        return new NewTopic(topic.name(), kafka.partitions(), kafka.replicationFactor()).configs(configs);
    }

    public static void ensureTopics(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-topic-admin"))) {
            List<NewTopic> specs = specs(kafka);
            if (kafka.createTopics()) {
                create(admin, specs, kafka);
            } else {
                List<String> wrong = mismatches(admin, specs, kafka);
                if (!wrong.isEmpty()) {
                    throw new Env.ConfigException("TALLY_CREATE_TOPICS=false, and Tally's topics are not as it needs them: "
                            + String.join("; ", wrong) + " (./tally topics prints what it needs)");
                }
                LOG.info("checked the {} topics of namespace {}: each as Tally needs it", specs.size(), kafka.namespace());
            }
            ReactionRegistry.seedDefaults(kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw KafkaAccess.refused("list or create Tally's topics", e, kafka);
        }
    }

    private static void create(Admin admin, List<NewTopic> specs, KafkaSettings kafka)
            throws ExecutionException, TimeoutException, InterruptedException {
        Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        List<NewTopic> missing = specs.stream().filter(t -> !existing.contains(t.name())).toList();
        if (missing.isEmpty()) {
            return;
        }
        for (var entry : admin.createTopics(missing).values().entrySet()) {
            try {
                entry.getValue().get(30, TimeUnit.SECONDS);
                LOG.info("created topic {} ({} partitions)", entry.getKey(), kafka.partitions());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        awaitMetadata(admin, missing.stream().map(NewTopic::name).toList());
    }

    /**
     * What differs between the cluster's topics and {@code specs}, one phrase per topic and setting: a missing
     * topic, another partition count, another cleanup policy, fewer replicas; where Tally relies on them, a retention
     * shorter than forever (the event log and the quarantine), a compaction lag under an hour (the counts), and
     * {@code min.insync.replicas} below 2 on a replicated deployment.
     */
    static List<String> mismatches(Admin admin, List<NewTopic> specs, KafkaSettings kafka)
            throws ExecutionException, TimeoutException, InterruptedException {
        Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        List<String> wrong = new ArrayList<>();
        List<NewTopic> present = new ArrayList<>();
        for (NewTopic spec : specs) {
            if (existing.contains(spec.name())) {
                present.add(spec);
            } else {
                wrong.add(spec.name() + " does not exist");
            }
        }
        if (present.isEmpty()) {
            return wrong;
        }
        List<String> names = present.stream().map(NewTopic::name).toList();
        Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
        Map<ConfigResource, Config> configs = admin.describeConfigs(names.stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList()).all().get(30, TimeUnit.SECONDS);
        for (NewTopic spec : present) {
            TopicDescription d = described.get(spec.name());
            Config c = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()));
            wrong.addAll(mismatches(spec, d.partitions().size(), d.partitions().get(0).replicas().size(), c, kafka));
        }
        return wrong;
    }

    static List<String> mismatches(NewTopic spec, int partitions, int replicas, Config config, KafkaSettings kafka) {
        List<String> wrong = new ArrayList<>();
        String name = spec.name();
        if (partitions != spec.numPartitions()) {
            wrong.add(name + " has " + partitions + " partitions, not " + spec.numPartitions() + " (TALLY_PARTITIONS)");
        }
        if (replicas < spec.replicationFactor()) {
            wrong.add(name + " has " + replicas + " replicas, fewer than " + spec.replicationFactor()
                    + " (TALLY_REPLICATION_FACTOR)");
        }
        Map<String, String> want = spec.configs();
        String policy = value(config, TopicConfig.CLEANUP_POLICY_CONFIG);
        if (!want.get(TopicConfig.CLEANUP_POLICY_CONFIG).equals(policy)) {
            wrong.add(name + " has cleanup.policy=" + policy + ", not " + want.get(TopicConfig.CLEANUP_POLICY_CONFIG));
        }
        if ("-1".equals(want.get(TopicConfig.RETENTION_MS_CONFIG)) && !"-1".equals(value(config, TopicConfig.RETENTION_MS_CONFIG))) {
            wrong.add(name + " has retention.ms=" + value(config, TopicConfig.RETENTION_MS_CONFIG)
                    + ", not -1: every count is recomputed from it, so it is kept forever");
        }
        if (name.equals(kafka.topic(Topics.ITEM_COUNTS).name())
                && parseLong(value(config, TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG)) < MIN_COMPACTION_LAG.toMillis()) {
            wrong.add(name + " has min.compaction.lag.ms=" + value(config, TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG)
                    + ", under " + MIN_COMPACTION_LAG.toMillis() + " (the reconcile reads it in passes)");
        }
        if (want.containsKey(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG)
                && parseLong(value(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG)) < 2) {
            wrong.add(name + " has min.insync.replicas=" + value(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG)
                    + ", under 2: an acknowledged vote must be on two replicas");
        }
        return wrong;
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config == null ? null : config.get(name);
        return entry == null ? null : entry.value();
    }

    private static long parseLong(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
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
            throw KafkaAccess.refused("describe topic " + topic, e, kafka);
        }
    }

    /**
     * Creation returns when the controller has the topics; a consumer asking the broker at once may still
     * see no partitions (a global store would then fail to start). Wait until the broker describes them.
     */
    private static void awaitMetadata(Admin admin, Collection<String> names) throws InterruptedException {
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
}
