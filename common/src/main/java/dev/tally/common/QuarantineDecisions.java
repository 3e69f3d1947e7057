package dev.tally.common;

import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes a reviewer's decision about a held vote to {@code tally.quarantine-decisions}, keyed by the
 * voter so it reaches the vote-processor task that holds the vote. The processor applies a release
 * through the normal path, exactly once; a repeated decision finds nothing held and changes nothing.
 */
public final class QuarantineDecisions implements AutoCloseable {
    /** Sends a decision. */
    @FunctionalInterface
    public interface Sender {
        void decide(QuarantineRecord held, QuarantineStatus decision, String reason);
    }

    private final KafkaProducer<String, QuarantineRecord> producer;
    private final String topic;

    public QuarantineDecisions(KafkaSettings kafka) {
        this.topic = kafka.topic(Topics.QUARANTINE_DECISIONS).name();
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-quarantine-decisions", Duration.ofSeconds(10)),
                Topics.QUARANTINE_DECISIONS.keySerde().serializer(), Topics.QUARANTINE_DECISIONS.valueSerde().serializer());
    }

    public void decide(QuarantineRecord held, QuarantineStatus decision, String reason) {
        QuarantineRecord record = QuarantineRecord.newBuilder(held).setStatus(decision).setReason(reason)
                .setDecidedAt(Instant.now()).build();
        try {
            producer.send(new ProducerRecord<>(topic, held.getCommand().getVoter(), record))
                    .get(15, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write the decision on " + held.getCommandId(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted deciding " + held.getCommandId(), e);
        }
    }

    public Sender sender() {
        return this::decide;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
