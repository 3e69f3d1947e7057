package dev.tally.examples;

import dev.tally.schema.VoteEvent;
import dev.tally.schemas.AvroSerde;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What an analytics team writes against Tally: a plain Kafka consumer of {@code tally.vote-events}
 * (keyed by {@code type:id}, values Avro single-object encoded, decoded with the published schemas),
 * read committed from the start, folding each event's before → after into net votes per item.
 *
 * <pre>java -cp "examples/target/examples.jar:examples/target/lib/*" dev.tally.examples.VoteEventsConsumer 127.0.0.1:9092</pre>
 *
 * It prints each event as it arrives and, every few seconds, the top items by net votes. Its own group
 * id means it never disturbs Tally's applications.
 */
public final class VoteEventsConsumer {
    private VoteEventsConsumer() {}

    public static void main(String[] args) {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "analytics-example");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // only what Tally committed
        Map<String, Long> net = new TreeMap<>();
        long lastReport = System.currentTimeMillis();
        try (var consumer = new KafkaConsumer<>(props, new StringDeserializer(), AvroSerde.of(VoteEvent.class))) {
            consumer.subscribe(List.of("tally.vote-events"));
            while (true) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    VoteEvent e = record.value();
                    net.merge(record.key(), (long) e.getAfter().getVote() - e.getBefore().getVote(), Long::sum);
                    System.out.printf("%s %s %s: vote %d -> %d, reaction %s -> %s (voter %s…)%n", e.getResolvedAt(),
                            record.key(), e.getOutcome(), e.getBefore().getVote(), e.getAfter().getVote(),
                            e.getBefore().getReaction(), e.getAfter().getReaction(), e.getVoter().substring(0, 8));
                }
                if (System.currentTimeMillis() - lastReport > 5_000 && !net.isEmpty()) {
                    lastReport = System.currentTimeMillis();
                    System.out.println("top by net votes: " + net.entrySet().stream()
                            .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5).toList());
                }
            }
        }
    }
}
