package dev.tally.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
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

/** {@code ./tally tail <topic>}: prints committed records of a Tally topic as JSON lines, Avro decoded. */
@Command(name = "tail", mixinStandardHelpOptions = true,
        description = "Prints records of a Tally topic as JSON lines (decoded Avro).")
final class TailCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "TOPIC", description = "e.g. tally.vote-events")
    String topic;

    @Option(names = "--from-beginning", description = "start at the oldest record instead of the newest")
    boolean fromBeginning;

    @Option(names = "--max", paramLabel = "N", description = "stop after N records")
    Long max;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--idle-exit", paramLabel = "DURATION", hidden = true, description = "stop when idle this long (tests)")
    String idleExit;

    @Override
    public Integer call() throws Exception {
        Env env = kafkaOption.env();
        KafkaSettings kafka = KafkaSettings.from(env);
        Topic<?, ?> t = Topics.byName(topic);
        var props = kafka.clientProps("tally-tail");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        long printed = 0;
        long idleLimit = idleExit == null ? Long.MAX_VALUE : Env.of(Map.of("idle", idleExit)).duration("idle", null).toMillis();
        long lastRecord = System.currentTimeMillis();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(t.name(), Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            if (fromBeginning) {
                consumer.seekToBeginning(partitions);
            } else {
                consumer.seekToEnd(partitions);
            }
            while (max == null || printed < max) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    System.out.println(line(t, r));
                    lastRecord = System.currentTimeMillis();
                    if (max != null && ++printed >= max) {
                        break;
                    }
                }
                if (System.currentTimeMillis() - lastRecord > idleLimit) {
                    break;
                }
            }
        }
        return 0;
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
