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
 * Records no service can read — bytes that are neither a vote command nor a count delta, written to
 * {@code tally.vote-commands} and {@code tally.count-deltas} by someone else — land in {@code tally.dead-letters}
 * with their source and the error (the commands' from the vote-processor, the deltas' from the count-projector,
 * their one reader since it watches bursts too); the watch counts them for the gauge and {@code /readyz};
 * {@code list} shows each and why; {@code replay} feeds each back to its source topic once, after which it is
 * marked replayed and a second replay sends only what is new.
 */
class DeadLettersIT {
    private static final byte[] GARBAGE = "neither a vote command nor a count delta".getBytes(StandardCharsets.UTF_8);
    private static final List<String> SOURCES = List.of(Topics.VOTE_COMMANDS.name(), Topics.COUNT_DELTAS.name());

    @Test
    void unreadableRecordsAreCountedShownWithTheirCauseAndReplayedOnce() throws Exception {
        TallyNode node = TallyNode.start(WalkingSkeletonIT.env(SharedBroker.dataDir("dead-letters")),
                EnumSet.allOf(TallyNode.Service.class));
        try (TallyMetrics metrics = new TallyMetrics()) {
            await(node::ready, "services RUNNING");
            KafkaSettings kafka = node.runtime().kafka();
            long before = ours(DeadLetters.list(kafka)).size();
            try (var producer = new KafkaProducer<>(kafka.producerProps("dead-letters-it", Duration.ofSeconds(10)),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                for (String topic : SOURCES) {
                    producer.send(new ProducerRecord<>(topic, 0, "k".getBytes(StandardCharsets.UTF_8), GARBAGE)).get();
                }
            }
            await(() -> ours(list(kafka)).size() >= before + 2, "dead-lettered by the vote-processor and the count-projector");
            List<DeadLetters.Letter> fresh = ours(DeadLetters.list(kafka)).stream().filter(l -> !l.replayed()).toList();
            fresh.forEach(l -> System.out.println("DeadLettersIT: " + l.line()));
            assertThat(fresh).extracting(DeadLetters.Letter::sourceTopic).containsExactlyInAnyOrder(
                    Topics.VOTE_COMMANDS.name(), Topics.COUNT_DELTAS.name());
            assertThat(fresh).allSatisfy(l -> {
                assertThat(l.sourcePartition()).isZero();
                assertThat(l.exception()).as("the error that put it there").isNotEqualTo("?");
            });

            try (DeadLetterWatch watch = new DeadLetterWatch(kafka, metrics)) {
                await(() -> watch.pending() >= 2, "the watch counts them");
                assertThat(watch.warnings()).singleElement().asString().contains("dead-letters list");
                assertThat(metrics.scrape()).contains("tally_dead_letters_pending");
            }

            List<DeadLetters.Letter> sent = ours(DeadLetters.replay(kafka));
            assertThat(sent).as("each source record sent back once").extracting(DeadLetters.Letter::sourceTopic)
                    .containsExactlyInAnyOrderElementsOf(SOURCES);
            assertThat(ours(DeadLetters.list(kafka)).stream().filter(DeadLetters.Letter::replayed).count())
                    .isGreaterThanOrEqualTo(2);
            // still unreadable, so the services dead-letter them again, from their new offsets in the source topics
            await(() -> ours(list(kafka)).stream().filter(l -> !l.replayed()).count() >= 2, "fed back and dead-lettered again");
            List<DeadLetters.Letter> again = ours(DeadLetters.replay(kafka));
            assertThat(again).extracting(DeadLetters.Letter::sourceTopic).containsExactlyInAnyOrderElementsOf(SOURCES);
            assertThat(again).allSatisfy(l -> assertThat(fresh).as("the replayed copies, not the first records")
                    .noneMatch(f -> f.sourceTopic().equals(l.sourceTopic()) && f.sourceOffset() == l.sourceOffset()));
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
