package dev.tally.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import dev.tally.schemas.Namespace;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;

/**
 * How every service reaches Kafka and lays out Tally's topics.
 *
 * @param bootstrap         {@code TALLY_BOOTSTRAP} [127.0.0.1:$TALLY_KAFKA_PORT]
 * @param namespace         {@code TALLY_NAMESPACE} [tally]: the prefix of every topic, application id, consumer group and
 *                          transactional id, so that deployments share a cluster ({@link Namespace})
 * @param partitions        {@code TALLY_PARTITIONS} [2 in the dev profile, else 12]: partitions of every Tally topic,
 *                          fixed at creation (topics that exist keep theirs; every service reads the real count).
 *                          One machine gains nothing from more: each application runs one stream thread, which
 *                          works every task in turn, and each task pays per commit — a transaction marker for
 *                          every partition it touched, a write of every store's offsets, a produce batch per
 *                          partition and topic. A cluster keeps 12 to spread its instances
 *                          (docs/decisions/0010-partitions.md)
 * @param replicationFactor {@code TALLY_REPLICATION_FACTOR} [1]: 3 on a real cluster
 * @param standbyReplicas   {@code TALLY_STANDBY_REPLICAS} [1 when replicated, else 0]: warm copies of every
 *                          Streams store on other instances, for fast failover and stale reads
 * @param compression       {@code TALLY_COMPRESSION} [none]: what every Tally producer compresses batches
 *                          with. On one machine compression costs CPU, in compressing and in the broker's
 *                          validation, and saves nothing on loopback; lz4 or zstd pay off when brokers are across
 *                          a network (docs/decisions/0016-uncompressed-producers.md)
 * @param rocksDbMemoryMb   {@code TALLY_ROCKSDB_MEMORY_MB} [128]: the one RocksDB block cache, memtables included,
 *                          that every state store of every Streams application in the process shares
 *                          ({@link BoundedRocksDb})
 * @param rocksDbLog        {@code TALLY_ROCKSDB_LOG} [error]: {@code info} has every store write RocksDB's own LOG in
 *                          its directory — each flush and compaction with its reason and size, and the store's
 *                          statistics every minute — for diagnosing RocksDB's share of the CPU
 * @param createTopics      {@code TALLY_CREATE_TOPICS} [true]: create missing topics at start; false only checks that
 *                          each exists as Tally needs it ({@link TopicAdmin})
 * @param client            {@code TALLY_KAFKA_CONFIG} and {@code TALLY_KAFKA_*}: the client settings (security) every
 *                          client gets ({@link KafkaClientConfig})
 */
public record KafkaSettings(String bootstrap, Namespace namespace, int partitions, short replicationFactor,
                            int standbyReplicas, String compression, int rocksDbMemoryMb, String rocksDbLog,
                            boolean createTopics, KafkaClientConfig client) {
    private static final Set<String> COMPRESSIONS = Set.of("none", "lz4", "zstd", "snappy", "gzip");
    private static final Set<String> ROCKSDB_LOG_LEVELS = Set.of("error", "info");

    public KafkaSettings {
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new Env.ConfigException("TALLY_BOOTSTRAP must name at least one HOST:PORT");
        }
        if (partitions < 1) {
            throw new Env.ConfigException("TALLY_PARTITIONS must be at least 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new Env.ConfigException("TALLY_REPLICATION_FACTOR must be at least 1, was " + replicationFactor);
        }
        if (!COMPRESSIONS.contains(compression)) {
            throw new Env.ConfigException("TALLY_COMPRESSION must be one of none, lz4, zstd, snappy, gzip, was " + compression);
        }
        if (!ROCKSDB_LOG_LEVELS.contains(rocksDbLog)) {
            throw new Env.ConfigException("TALLY_ROCKSDB_LOG must be error or info, was " + rocksDbLog);
        }
    }

    public static KafkaSettings from(Env env) {
        String port = env.string("TALLY_KAFKA_PORT", "9092");
        short replication = (short) env.integer("TALLY_REPLICATION_FACTOR", 1, 1, 32);
        return new KafkaSettings(env.string("TALLY_BOOTSTRAP", "127.0.0.1:" + port), namespace(env),
                env.integer("TALLY_PARTITIONS", Profile.from(env).isDev() ? 2 : 12, 1, 10_000), replication,
                env.integer("TALLY_STANDBY_REPLICAS", replication > 1 ? 1 : 0, 0, 10),
                env.string("TALLY_COMPRESSION", "none").strip().toLowerCase(Locale.ROOT),
                env.integer("TALLY_ROCKSDB_MEMORY_MB", 128, 16, 1 << 20),
                env.string("TALLY_ROCKSDB_LOG", "error").strip().toLowerCase(Locale.ROOT),
                env.bool("TALLY_CREATE_TOPICS", true), KafkaClientConfig.from(env));
    }

    /** {@code TALLY_NAMESPACE} [tally]. */
    public static Namespace namespace(Env env) {
        String name = env.string("TALLY_NAMESPACE", Namespace.DEFAULT.value());
        try {
            return new Namespace(name);
        } catch (IllegalArgumentException e) {
            throw new Env.ConfigException("TALLY_NAMESPACE", name,
                    "1 to 32 lower-case letters, digits and underscores, starting with a letter");
        }
    }

    /** {@code topic} as this deployment's namespace names it. */
    public <K, V> Topic<K, V> topic(Topic<K, V> topic) {
        return namespace.topic(topic);
    }

    /** A consumer group, transactional id or application id of this deployment's namespace: {@code tally-<name>}. */
    public String id(String name) {
        return namespace.id(name);
    }

    /**
     * {@code TALLY_COMMIT_INTERVAL} [20ms]: how long each Streams transaction runs, and so about what a POST waits for
     * its answer (docs/decisions/0002-request-reply-over-kafka.md).
     */
    public static Duration commitInterval(Env env) {
        return env.duration("TALLY_COMMIT_INTERVAL", Duration.ofMillis(20), Duration.ofMillis(1), Duration.ofMinutes(1));
    }

    /**
     * This instance's name in its Streams group ({@code group.instance.id}; Streams adds the thread index):
     * a random id kept in the state directory, so it is the same on every restart of the instance and
     * different for every other. Two processes cannot share a state directory (Streams locks it); a copied
     * state directory must have its {@code instance.id} file removed, or the two copies fence each other.
     */
    public static String instanceId(Path stateDir) {
        Path file = stateDir.resolve("instance.id");
        try {
            if (Files.exists(file)) {
                String id = Files.readString(file).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            Files.createDirectories(stateDir);
            String id = UUID.randomUUID().toString();
            Files.writeString(file, id);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the Streams instance id in " + file, e);
        }
    }

    /** The settings of every client: where the cluster is, the client's name, and the operator's client settings. */
    public Properties clientProps(String clientId) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return client.applyTo(p);
    }

    /** An idempotent, acks=all producer that fails a send within {@code deliveryTimeout}. */
    public Properties producerProps(String clientId, Duration deliveryTimeout) {
        Properties p = clientProps(clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        int timeout = (int) Math.max(1000, deliveryTimeout.toMillis());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeout + 2);
        return client.applyTo(p);
    }

    /** Exactly-once Kafka Streams settings shared by every Tally topology. */
    public Properties streamsProps(String applicationId, Path stateDir, Duration commitInterval,
                                   String applicationServer) {
        Properties p = clientProps(applicationId);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // KIP-892: a store's writes are staged until the transaction commits, so after a crash (SIGKILL, power
        // loss) its on-disk state holds only committed data and catches up from the offset it holds; without
        // this, exactly-once Streams must wipe every store it cannot prove clean and rebuild it from scratch
        // (docs/decisions/0011-crash-recovery.md)
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
        p.put(BoundedRocksDb.MEMORY_BYTES, Long.toString((long) rocksDbMemoryMb << 20));
        p.put(BoundedRocksDb.LOG_LEVEL, rocksDbLog);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, (int) commitInterval.toMillis());
        // a thread commits between polls: one blocked in a 100 ms poll (the default) when its commit falls due
        // holds that transaction, and the POSTs waiting on it, for the rest of the poll
        p.put(StreamsConfig.POLL_MS_CONFIG, (int) Math.max(1, Math.min(100, commitInterval.toMillis())));
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) replicationFactor);
        p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
        p.put(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, StreamsConfig.OPTIMIZE);
        // never wait on an empty input partition: no Tally task orders one input by another's timestamps
        // (the processor's quarantine decisions apply whenever they come). With the default (0) Streams 4.4
        // formats a log message for every empty partition on every processing loop, a real share of the
        // vote-processor's CPU, because its decisions partition is nearly always empty.
        p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), compression);
        // a transaction's records leave in batches of up to 64 kB per partition rather than the default 16 kB: Streams'
        // producer lingers 100 ms, about a commit interval, so a batch holds most of what a transaction writes to its
        // partition and fewer produce requests carry it; the producer's pool keeps one 64 kB block per partition written
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 64 * 1024);
        // a record that cannot be read or processed goes to the dead-letter topic instead of halting the task
        p.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, topic(Topics.DEAD_LETTERS).name());
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        // static membership: an instance restarted on its state directory (after a crash too) takes its tasks
        // back at once, instead of waiting out the session of the incarnation it replaces
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), applicationId + "-" + instanceId(stateDir));
        // restoring a store (or a global table) ends at a transaction marker, which a fetch waits out for
        // fetch.max.wait.ms (500 ms by default) before it reports the end: once per task and per global store
        // in turn, most of a restart (docs/decisions/0011-crash-recovery.md)
        p.put(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 50);
        p.put(StreamsConfig.globalConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 50);
        // a crashed instance that does not come back has its tasks moved after 10 s rather than the default 45 s
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 2_000);
        if (applicationServer != null) {
            p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, applicationServer);
        }
        return client.applyTo(p);
    }
}
