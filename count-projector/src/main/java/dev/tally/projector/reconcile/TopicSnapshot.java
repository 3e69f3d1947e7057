package dev.tally.projector.reconcile;

import dev.tally.common.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads one topic from its beginning up to end offsets fixed in advance, read_committed.
 *
 * <p><b>Why the high watermark, not the last stable offset.</b> Several transactional producers write
 * each partition of {@code tally.vote-events} (every vote-processor task writes every item's partition).
 * A read_committed consumer's end offset is the last stable offset, which an older transaction still
 * open holds back below records that other transactions have already committed. Stopping there would
 * miss committed events that a view already reflects. So the end is the high watermark (everything
 * written when the snapshot was taken), and the read waits until the transactions spanning it are
 * decided: it then holds every committed record below the snapshot and nothing above it.
 */
final class TopicSnapshot {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic;
    private final Map<TopicPartition, Long> begins;
    private final Map<TopicPartition, Long> ends;

    private TopicSnapshot(String topic, Map<TopicPartition, Long> begins, Map<TopicPartition, Long> ends) {
        this.topic = topic;
        this.begins = Map.copyOf(begins);
        this.ends = Map.copyOf(ends);
    }

    /** Fixes the end of every partition of the topic now. */
    static TopicSnapshot take(Admin admin, String topic) {
        try {
            var description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).get(topic);
            var options = new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED);
            Map<TopicPartition, Long> begins = offsets(admin, description, OffsetSpec.earliest(), options);
            Map<TopicPartition, Long> ends = offsets(admin, description, OffsetSpec.latest(), options);
            return new TopicSnapshot(topic, begins, ends);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the end offsets of " + topic, e);
        }
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, TopicDescription description, OffsetSpec spec,
                                                     ListOffsetsOptions options)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> request = description.partitions().stream()
                .collect(Collectors.toMap(p -> new TopicPartition(description.name(), p.partition()), p -> spec));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(request, options).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    int partitionCount() {
        return ends.size();
    }

    /** The same snapshot, of one partition only. */
    TopicSnapshot partition(int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        if (!ends.containsKey(tp)) {
            throw new IllegalArgumentException(topic + " has no partition " + partition);
        }
        return new TopicSnapshot(topic, Map.of(tp, begins.get(tp)), Map.of(tp, ends.get(tp)));
    }

    /** Offsets between the beginning and the snapshot's end when it was taken (transaction markers included). */
    long offsets() {
        return ends.entrySet().stream().mapToLong(e -> Math.max(0, e.getValue() - begins.get(e.getKey()))).sum();
    }

    /**
     * Hands every committed record below the snapshot to {@code sink}, in offset order per partition.
     *
     * @param stall how long the read may make no progress (a transaction left open, a broker gone)
     *              before it fails, naming the partitions still behind
     * @return the number of records handed over
     */
    long read(KafkaSettings kafka, String clientId, Consumer<ConsumerRecord<byte[], byte[]>> sink,
              Progress progress, Duration stall) {
        var props = kafka.clientProps(clientId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        long records = 0;
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>(ends.keySet());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> from = consumer.beginningOffsets(partitions, TIMEOUT); // retention may have moved it
            long total = partitions.stream().mapToLong(tp -> Math.max(0, ends.get(tp) - from.get(tp))).sum();
            Set<TopicPartition> open = new HashSet<>(partitions);
            long done = closeFinished(consumer, open, from);
            progress.update(records, done, total);
            long lastDone = done;
            long lastChange = System.nanoTime();
            while (!open.isEmpty()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        sink.accept(r);
                        records++;
                    }
                }
                done = closeFinished(consumer, open, from);
                progress.update(records, done, total);
                if (done != lastDone) {
                    lastDone = done;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > stall.toNanos()) {
                    throw new IllegalStateException("reading " + topic + " made no progress for " + stall.toSeconds()
                            + " s; behind: " + open.stream().map(tp -> "partition " + tp.partition() + " at "
                            + consumer.position(tp) + " of " + ends.get(tp)).sorted().toList());
                }
            }
        }
        return records;
    }

    /** Pauses the partitions that reached their end, and returns how many offsets are consumed in all. */
    private long closeFinished(KafkaConsumer<?, ?> consumer, Set<TopicPartition> open, Map<TopicPartition, Long> from) {
        long done = 0;
        List<TopicPartition> finished = new ArrayList<>();
        for (TopicPartition tp : ends.keySet()) {
            long end = ends.get(tp);
            long position = open.contains(tp) ? consumer.position(tp, TIMEOUT) : end;
            done += Math.max(0, Math.min(position, end) - from.get(tp));
            if (open.contains(tp) && position >= end) {
                finished.add(tp);
            }
        }
        if (!finished.isEmpty()) {
            consumer.pause(finished);
            finished.forEach(open::remove);
        }
        return done;
    }
}
