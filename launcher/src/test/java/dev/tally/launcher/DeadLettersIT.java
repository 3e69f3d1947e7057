package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.DeadLetterWatch;
import dev.tally.common.DeadLetters;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TallyMetrics;
import dev.tally.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A command no service can read — bytes that are not a vote command, written to
 * {@code tally.vote-commands} by someone else — lands in {@code tally.dead-letters} with its source and
 * the error; the watch counts it for the gauge and {@code /readyz}; {@code list} shows it and why;
 * {@code replay} feeds it back to its source topic once (both applications that read the topic
 * dead-lettered it, it goes back once), after which it is marked replayed and a second replay sends
 * only what is new.
 */
class DeadLettersIT {
    private static final byte[] GARBAGE = "not an avro vote command".getBytes(StandardCharsets.UTF_8);

    @Test
    void anUnreadableCommandIsCountedShownWithItsCauseAndReplayedOnce() throws Exception {
        TallyNode node = TallyNode.start(WalkingSkeletonIT.env(SharedBroker.dataDir("dead-letters")),
                EnumSet.allOf(TallyNode.Service.class));
        try (TallyMetrics metrics = new TallyMetrics()) {
            await(node::ready, "services RUNNING");
            KafkaSettings kafka = node.runtime().kafka();
            long before = ours(DeadLetters.list(kafka)).size();
            try (var producer = new KafkaProducer<>(kafka.producerProps("dead-letters-it", Duration.ofSeconds(10)),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(Topics.VOTE_COMMANDS.name(), 0, "k".getBytes(StandardCharsets.UTF_8), GARBAGE)).get();
            }
            await(() -> ours(list(kafka)).size() >= before + 2, "dead-lettered by the vote-processor and the fraud-detector");
            List<DeadLetters.Letter> letters = ours(DeadLetters.list(kafka));
            DeadLetters.Letter first = letters.get(letters.size() - 1);
            System.out.println("DeadLettersIT: " + first.line());
            assertThat(first.sourceTopic()).isEqualTo(Topics.VOTE_COMMANDS.name());
            assertThat(first.sourcePartition()).isZero();
            assertThat(first.exception()).as("the error that put it there").isNotEqualTo("?");
            assertThat(first.replayed()).isFalse();

            try (DeadLetterWatch watch = new DeadLetterWatch(kafka, metrics)) {
                await(() -> watch.pending() >= 2, "the watch counts them");
                assertThat(watch.warnings()).singleElement().asString().contains("dead-letters list");
                assertThat(metrics.scrape()).contains("tally_dead_letters_pending");
            }

            List<DeadLetters.Letter> sent = ours(DeadLetters.replay(kafka));
            assertThat(sent).as("one source record, sent back once").hasSize(1);
            assertThat(ours(DeadLetters.list(kafka)).stream().filter(DeadLetters.Letter::replayed).count())
                    .isGreaterThanOrEqualTo(2);
            // still unreadable, so the services dead-letter it again, from its new offset in the source topic
            await(() -> ours(list(kafka)).stream().anyMatch(l -> !l.replayed()), "fed back and dead-lettered again");
            List<DeadLetters.Letter> again = ours(DeadLetters.replay(kafka));
            assertThat(again).hasSize(1);
            assertThat(again.get(0).sourceOffset()).as("the replayed copy, not the first record").isNotEqualTo(first.sourceOffset());
        } finally {
            node.close();
        }
    }

    private static List<DeadLetters.Letter> list(KafkaSettings kafka) {
        try {
            return DeadLetters.list(kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static List<DeadLetters.Letter> ours(List<DeadLetters.Letter> letters) {
        return letters.stream().filter(l -> Arrays.equals(l.value(), GARBAGE)).toList();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }
}
