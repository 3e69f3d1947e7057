package dev.tally.common;

import dev.tally.schemas.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code tally.dead-letters}: the raw records a Streams application could not read or process, each with
 * the headers Kafka Streams adds (KIP-1034: the exception, its message, the source topic, partition and
 * offset). Which of them are still to be replayed is the committed position of the consumer group
 * {@code <namespace>-}{@value #REPLAY}: {@link #replay} sends each pending record back to its source topic and moves
 * that position in the same transaction, so a record is fed back exactly once.
 */
public final class DeadLetters {
    /** The replay's consumer group and transactional id, in the namespace: {@code tally-dead-letters-replay}. */
    public static final String REPLAY = "dead-letters-replay";
    private static final String ERRORS = "__streams.errors.";

    private DeadLetters() {}

    /** One dead letter: where it sits, when it came, what it was and why it failed. */
    public record Letter(int partition, long offset, Instant at, String sourceTopic, int sourcePartition,
                         long sourceOffset, String exception, String message, byte[] key, byte[] value,
                         List<Header> headers, boolean replayed) {
        /** One line: {@code 0:12  2026-…  from tally.vote-commands-3@1234  SerializationException: …}. */
        public String line() {
            return String.format("%d:%d  %s  from %s-%d@%d  %s: %s  (%d-byte value)%s", partition, offset, at, sourceTopic,
                    sourcePartition, sourceOffset, exception, message, value == null ? 0 : value.length,
                    replayed ? "  [replayed]" : "");
        }

        static Letter of(ConsumerRecord<byte[], byte[]> r, boolean replayed) {
            List<Header> carried = new ArrayList<>();
            for (Header h : r.headers()) {
                if (!h.key().startsWith(ERRORS)) {
                    carried.add(h);
                }
            }
            return new Letter(r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()),
                    text(r, "topic"), (int) number(r, "partition"), number(r, "offset"), text(r, "exception"),
                    text(r, "message"), r.key(), r.value(), carried, replayed);
        }

        private static String text(ConsumerRecord<byte[], byte[]> r, String name) {
            Header h = r.headers().lastHeader(ERRORS + name);
            return h == null || h.value() == null ? "?" : new String(h.value(), StandardCharsets.UTF_8);
        }

        /** A number header: written as text by some versions, as a big-endian int or long by others. */
        private static long number(ConsumerRecord<byte[], byte[]> r, String name) {
            Header h = r.headers().lastHeader(ERRORS + name);
            if (h == null || h.value() == null) {
                return -1;
            }
            byte[] v = h.value();
            try {
                return Long.parseLong(new String(v, StandardCharsets.UTF_8).strip());
            } catch (NumberFormatException e) {
                return v.length == 4 ? ByteBuffer.wrap(v).getInt() : v.length == 8 ? ByteBuffer.wrap(v).getLong() : -1;
            }
        }
    }

    /** Every dead letter in the topic, oldest first per partition; {@code replayed} for those before the replay position. */
    public static List<Letter> list(KafkaSettings kafka) throws InterruptedException {
        Map<TopicPartition, Long> replayedUpTo = replayPosition(kafka);
        List<Letter> out = new ArrayList<>();
        read(kafka, Map.of(), r -> out.add(Letter.of(r,
                r.offset() < replayedUpTo.getOrDefault(new TopicPartition(r.topic(), r.partition()), 0L))));
        return out;
    }

    /**
     * Sends every dead letter not replayed yet back to its source topic (same key, value and headers,
     * without the error headers), and marks them replayed, in one transaction. A source record that
     * several applications could not read (a topic with more than one reading application; each of Tally's own
     * topics has one) is sent back once. Every application reading the
     * source topic sees it again: replay is for records none of them could read. Returns what was sent.
     */
    public static List<Letter> replay(KafkaSettings kafka) throws InterruptedException {
        Map<TopicPartition, Long> from = replayPosition(kafka);
        Map<String, Letter> bySource = new java.util.LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        read(kafka, from, r -> {
            Letter l = Letter.of(r, false);
            bySource.putIfAbsent(l.sourceOffset() < 0 ? "dead-letter " + r.partition() + ":" + r.offset()
                    : l.sourceTopic() + "-" + l.sourcePartition() + "@" + l.sourceOffset(), l);
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        });
        List<Letter> pending = List.copyOf(bySource.values());
        if (pending.isEmpty()) {
            return pending;
        }
        var props = kafka.producerProps("tally-dead-letters-replay", Duration.ofSeconds(30));
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, kafka.id(REPLAY));
        try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (Letter l : pending) {
                if (l.sourceTopic().equals("?")) {
                    throw new IllegalStateException("dead letter " + l.partition() + ":" + l.offset() + " names no source topic");
                }
                producer.send(new ProducerRecord<>(l.sourceTopic(), l.sourcePartition() >= 0 ? l.sourcePartition() : null,
                        l.key(), l.value(), new RecordHeaders(l.headers())));
            }
            producer.sendOffsetsToTransaction(next, new ConsumerGroupMetadata(kafka.id(REPLAY)));
            producer.commitTransaction();
        }
        return pending;
    }

    /** How many dead letters are not replayed yet: the topic's committed records past the replay position. */
    public static long pending(KafkaSettings kafka) throws InterruptedException {
        long[] n = {0};
        read(kafka, replayPosition(kafka), r -> n[0]++);
        return n[0];
    }

    /** Where the replay group stands, per partition (absent: nothing replayed there). */
    private static Map<TopicPartition, Long> replayPosition(KafkaSettings kafka) throws InterruptedException {
        try (Admin admin = Admin.create(kafka.clientProps("tally-dead-letters"))) {
            Map<TopicPartition, Long> out = new HashMap<>();
            admin.listConsumerGroupOffsets(kafka.id(REPLAY)).partitionsToOffsetAndMetadata().get().forEach((tp, o) -> {
                if (o != null) {
                    out.put(tp, o.offset());
                }
            });
            return out;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the dead-letter replay position", e);
        }
    }

    /** Reads the topic (committed records only) from {@code from} (default: the beginning) to its end. */
    private static void read(KafkaSettings kafka, Map<TopicPartition, Long> from,
                             java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
        TopicScan.readFrom(kafka, kafka.topic(Topics.DEAD_LETTERS).name(), new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                from, Duration.ofMinutes(2), each);
    }
}
