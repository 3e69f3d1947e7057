package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/** The end of a run on the Kafka side: wait until every command is processed, then read the event log. */
public final class EventLog {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STALL = Duration.ofMinutes(2);

    private EventLog() {}

    /**
     * Waits until the vote-processor ({@code group}) has committed past the end of every partition of
     * {@code tally.vote-commands}: under exactly-once its events are then committed too, so the log is
     * complete. Returns whether that happened within {@code timeout}.
     */
    public static boolean awaitProcessed(KafkaSettings kafka, String group, Duration timeout) throws Exception {
        return awaitCommitted(kafka, group, kafka.topic(Topics.VOTE_COMMANDS).name(), timeout);
    }

    /**
     * Waits until {@code group} has committed past the end, as it is now, of every partition of {@code topic}
     * (a consumer group that has read all that was written so far). Returns whether that happened within
     * {@code timeout}.
     */
    public static boolean awaitCommitted(KafkaSettings kafka, String group, String topic, Duration timeout) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-admin"))) {
            Map<TopicPartition, Long> ends = ends(admin, topic);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Map<TopicPartition, OffsetAndMetadata> committed = committed(admin, group, topic);
                boolean done = ends.entrySet().stream().allMatch(e -> e.getValue() == 0
                        || (committed.get(e.getKey()) != null && committed.get(e.getKey()).offset() >= e.getValue()));
                if (done) {
                    return true;
                }
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(100);
            }
        }
    }

    /** The end offset of every partition of {@code tally.vote-commands}: what has been written so far. */
    static Map<TopicPartition, Long> commandEnds(Admin admin) throws Exception {
        return ends(admin, Topics.VOTE_COMMANDS.name());
    }

    /** The end offset of every partition of {@code topic}. */
    public static Map<TopicPartition, Long> ends(Admin admin, String topic) throws Exception {
        var description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> latest = description.partitions().stream()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p.partition()), p -> OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /** The offsets {@code group} has committed on {@code topic}. */
    public static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).forEach((tp, o) -> {
            if (o != null && tp.topic().equals(topic)) {
                committed.put(tp, o);
            }
        });
        return committed;
    }

    /**
     * Whether a group has read each partition to {@code ends}. A Streams application commits past the last record it
     * processed, so on a transactional topic whose last offset is a commit marker it stays one short of the end.
     */
    public static boolean caughtUp(Map<TopicPartition, Long> ends, Map<TopicPartition, OffsetAndMetadata> committed) {
        return ends.entrySet().stream().allMatch(e -> e.getValue() == 0
                || (committed.get(e.getKey()) != null && committed.get(e.getKey()).offset() >= e.getValue() - 1));
    }

    /** How many offsets up to {@code ends} a group has not committed yet, over all partitions. */
    public static long behind(Map<TopicPartition, Long> ends, Map<TopicPartition, OffsetAndMetadata> committed) {
        long n = 0;
        for (var e : ends.entrySet()) {
            var c = committed.get(e.getKey());
            n += Math.max(0, e.getValue() - (c == null ? 0 : c.offset()));
        }
        return n;
    }

    /** Reads {@code tally.vote-events} read_committed from the beginning to its end into a per-item audit. */
    public static LogAudit read(KafkaSettings kafka, int commandPartitions) {
        return read(kafka, new LogAudit(commandPartitions));
    }

    /** Reads {@code tally.vote-events} read_committed from the beginning to its end into {@code audit}. */
    public static LogAudit read(KafkaSettings kafka, LogAudit audit) {
        var decoder = Topics.VOTE_EVENTS.valueSerde().deserializer();
        readToEnd(kafka, kafka.topic(Topics.VOTE_EVENTS).name(), "tally-bench-log", r -> {
            if (r.value() == null) {
                return;
            }
            VoteEvent e = decoder.deserialize(r.topic(), r.value());
            audit.accept(e.getVoter(), Topics.itemKey(e.getItemType(), e.getItemId()), e.getBefore().getVote(),
                    e.getAfter().getVote(), e.getSourcePartition(), e.getSourceOffset());
        });
        return audit;
    }

    /**
     * A read_committed consumer of every partition of {@code topic}, positioned at the beginning, that commits
     * nothing: how the bench reads what the node wrote.
     */
    static <K> KafkaConsumer<K, byte[]> fromBeginning(KafkaSettings kafka, String clientId, String topic, Deserializer<K> keys) {
        var props = kafka.clientProps(clientId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        var consumer = new KafkaConsumer<>(props, keys, new ByteArrayDeserializer());
        try {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            return consumer;
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
    }

    /**
     * Hands every committed record of {@code topic} to {@code sink}, from the beginning to the end
     * offsets (read_committed: the last stable offsets) as they are when the read starts, which it returns.
     */
    static Map<TopicPartition, Long> readToEnd(KafkaSettings kafka, String topic, String clientId,
                                               Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        try (var consumer = fromBeginning(kafka, clientId, topic, new ByteArrayDeserializer())) {
            List<TopicPartition> parts = List.copyOf(consumer.assignment());
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts, TIMEOUT);
            long lastRecordAt = System.nanoTime();
            long records = 0;
            while (parts.stream().anyMatch(tp -> consumer.position(tp, TIMEOUT) < ends.get(tp))) {
                if (System.nanoTime() - lastRecordAt > STALL.toNanos()) {
                    throw new IllegalStateException("reading " + topic + " made no progress for " + STALL.toSeconds()
                            + " s at " + records + " records");
                }
                var batch = consumer.poll(Duration.ofMillis(200));
                if (!batch.isEmpty()) {
                    lastRecordAt = System.nanoTime();
                }
                for (var r : batch) {
                    records++;
                    sink.accept(r);
                }
            }
            return ends;
        }
    }
}
