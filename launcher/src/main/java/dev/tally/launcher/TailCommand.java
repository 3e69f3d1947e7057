package dev.tally.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./tally tail <topic>}: prints committed records of a Tally topic as JSON lines, Avro decoded.
 * With {@code --from-beginning} it prints from the oldest record to the topic's end as it was at start,
 * with {@code --max N} the last N records (by timestamp, across partitions), and then stops — unless
 * {@code --follow}, which keeps printing what arrives (the default when neither is given).
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
        header = "Prints records of a Tally topic as JSON lines (decoded Avro).",
        description = "--from-beginning prints from the oldest record, --max N the newest N; both stop at the topic's"
                + " end unless --follow. Without either it follows new records until Ctrl-C.")
final class TailCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "TOPIC", description = "e.g. tally.vote-events")
    String topic;

    @Option(names = "--from-beginning", description = "start at the oldest record instead of the newest")
    boolean fromBeginning;

    @Option(names = "--max", paramLabel = "N", description = "print at most N records: the first N with "
            + "--from-beginning, else the newest N")
    Long max;

    @Option(names = "--follow", description = "keep printing new records after the topic's end")
    boolean follow;

    @Option(names = "--raw", description = "print each value as it is on the topic, base64, one per line (for other "
            + "tools: the single-object header, C3 01 and the 8-byte schema fingerprint, then the Avro body)")
    boolean raw;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--idle-exit", paramLabel = "DURATION", hidden = true, description = "stop when idle this long (tests)")
    String idleExit;

    @Override
    public Integer call() throws Exception {
        if (max != null && max < 1) {
            System.err.println("tail: --max must be at least 1, was " + max);
            return 2;
        }
        KafkaSettings kafka = kafkaOption.kafka();
        Topic<?, ?> t = Topics.byName(topic);
        var props = kafka.clientProps("tally-tail");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        boolean stopAtEnd = !follow && (fromBeginning || max != null);
        boolean newest = max != null && !fromBeginning; // the last N, printed once they are all read
        long idleLimit = idleExit == null ? Long.MAX_VALUE : Env.of(Map.of("idle", idleExit)).duration("idle", null).toMillis();
        long lastRecord = System.currentTimeMillis();
        long printed = 0;
        List<ConsumerRecord<byte[], byte[]>> last = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(t.name(), Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions); // read_committed: the stable end
            if (fromBeginning) {
                consumer.seekToBeginning(partitions);
            } else if (newest && !follow) {
                last.addAll(newest(consumer, partitions, end, max));
            } else if (newest) {
                Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
                partitions.forEach(p -> consumer.seek(p, Math.max(begin.get(p), end.get(p) - max)));
            } else {
                consumer.seekToEnd(partitions);
            }
            while ((max == null || printed < max) && !(stopAtEnd && reachedEnd(consumer, end))) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    lastRecord = System.currentTimeMillis();
                    if (newest && !follow) {
                        last.add(r);
                    } else if (max == null || printed < max) {
                        System.out.println(raw ? rawLine(r) : line(t, r));
                        printed++;
                    }
                }
                if (System.currentTimeMillis() - lastRecord > idleLimit) {
                    break;
                }
            }
        }
        last.sort(Comparator.comparingLong(ConsumerRecord::timestamp));
        int keep = (int) Math.min(last.size(), max == null ? 0 : max);
        for (ConsumerRecord<byte[], byte[]> r : last.subList(last.size() - keep, last.size())) {
            System.out.println(raw ? rawLine(r) : line(t, r));
        }
        if (stopAtEnd && printed == 0 && last.isEmpty()) {
            System.err.println("tail: " + t.name() + " has no committed records" + (fromBeginning ? "" : " to show"));
        }
        return 0;
    }

    /**
     * The newest {@code n} committed records of each partition, read backwards in growing windows: the
     * offsets just below a transactional topic's end are transaction markers and aborted records, not
     * records, so "the last n offsets" can hold none. Leaves every partition positioned at its end.
     */
    private static List<ConsumerRecord<byte[], byte[]>> newest(KafkaConsumer<byte[], byte[]> consumer,
                                                               List<TopicPartition> partitions,
                                                               Map<TopicPartition, Long> end, long n) {
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
        for (TopicPartition p : partitions) {
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long window = n + 1;
            long from;
            do {
                records.clear();
                from = Math.max(begin.get(p), end.get(p) - window);
                consumer.pause(partitions);
                consumer.resume(List.of(p));
                consumer.seek(p, from);
                while (consumer.position(p) < end.get(p)) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.offset() < end.get(p)) {
                            records.add(r);
                        }
                    }
                }
                window *= 4;
            } while (records.size() < n && from > begin.get(p));
            found.addAll(records.subList((int) Math.max(0, records.size() - n), records.size()));
        }
        consumer.resume(partitions);
        return found;
    }

    /** Whether every partition has been read up to the end it had when the command started. */
    private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static String rawLine(ConsumerRecord<byte[], byte[]> r) {
        return r.value() == null ? "" : java.util.Base64.getEncoder().encodeToString(r.value());
    }

    private static String line(Topic<?, ?> topic, ConsumerRecord<byte[], byte[]> r) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("partition", r.partition());
        out.put("offset", r.offset());
        out.put("timestamp", r.timestamp());
        Object key = r.key() == null ? null : topic.keySerde().deserializer().deserialize(topic.name(), r.key());
        out.put("key", key instanceof byte[] b ? java.util.Base64.getEncoder().encodeToString(b) : key);
        Object value = r.value() == null ? null : topic.valueSerde().deserializer().deserialize(topic.name(), r.value());
        out.put("value", value instanceof byte[] b ? java.util.Base64.getEncoder().encodeToString(b)
                : value == null ? null : JSON.readTree(GenericData.get().toString(value)));
        return JSON.writeValueAsString(out);
    }
}
