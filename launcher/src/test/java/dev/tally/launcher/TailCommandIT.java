package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicAdmin;
import dev.tally.schemas.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./tally tail} on the real broker: {@code --from-beginning} and {@code --max N} stop at the topic's
 * end, however few records it holds, and {@code --max N} alone prints the newest N committed records, even
 * where the last offsets of the topic are transaction markers and aborted records; {@code --raw} prints
 * the value's bytes as they are on the topic.
 */
class TailCommandIT {
    @Test
    void tailStopsAtTheEndAndMaxAloneShowsTheNewest() throws Exception {
        String bootstrap = SharedBroker.get().bootstrap();
        KafkaSettings kafka = KafkaSettings.from(dev.tally.common.Env.of(Map.of("TALLY_BOOTSTRAP", bootstrap)));
        TopicAdmin.ensureTopics(kafka);
        String run = UUID.randomUUID().toString();
        List<String> mine = List.of(run + "-a", run + "-b", run + "-c");
        var props = kafka.producerProps("tail-it", Duration.ofSeconds(10));
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tail-it-" + run);
        try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (String value : mine) {
                producer.send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), 0, null, value.getBytes(StandardCharsets.UTF_8))).get();
                Thread.sleep(5); // distinct timestamps: "newest" is by timestamp
            }
            producer.commitTransaction();
            // then an aborted transaction: the offsets at the end are its record and two markers, none shown
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), 0, null, (run + "-aborted").getBytes(StandardCharsets.UTF_8))).get();
            producer.abortTransaction();
        }

        // more asked for than the topic holds: it still returns, with every record there is
        List<String> all = tail(bootstrap, "--from-beginning", "--max", "1000000");
        assertThat(all.stream().filter(l -> mine.stream().anyMatch(v -> l.contains(encoded(v))))).hasSize(3);

        // the newest two, oldest first
        List<String> newest = tail(bootstrap, "--max", "2");
        assertThat(newest).hasSize(2);
        assertThat(newest.get(0)).contains(encoded(mine.get(1)));
        assertThat(newest.get(1)).contains(encoded(mine.get(2)));

        // --raw: the value as it is on the topic, base64
        assertThat(tail(bootstrap, "--max", "1", "--raw")).containsExactly(encoded(mine.get(2)));
    }

    private static String encoded(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    /** Runs the command and returns its lines on stdout; it must end on its own. */
    private static List<String> tail(String bootstrap, String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            PrintStream original = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                String[] full = new String[args.length + 3];
                full[0] = Topics.DEAD_LETTERS.name();
                full[1] = "--bootstrap";
                full[2] = bootstrap;
                System.arraycopy(args, 0, full, 3, args.length);
                assertThat(new CommandLine(new TailCommand()).execute(full)).isZero();
            } finally {
                System.setOut(original);
            }
            return Arrays.stream(out.toString(StandardCharsets.UTF_8).split("\n")).filter(l -> !l.isBlank()).toList();
        });
    }
}
