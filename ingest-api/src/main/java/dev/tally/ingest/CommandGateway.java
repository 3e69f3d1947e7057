package dev.tally.ingest;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicFollower;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Request-reply over Kafka. Appends each command to {@code tally.vote-commands} (keyed by hashed voter,
 * acks=all, idempotent) and completes its waiter when the vote-processor's answer appears on this
 * instance's own partition of {@code tally.vote-outcomes}, read committed: an answer is only seen once
 * the transaction that produced it has committed.
 */
public final class CommandGateway implements CommandSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommandGateway.class);

    private final KafkaProducer<String, VoteCommand> producer;
    private final TopicPartition replyPartition;
    private final Map<String, CompletableFuture<VoteOutcome>> waiting = new ConcurrentHashMap<>();
    private final TopicFollower<String, VoteOutcome> listener;

    public CommandGateway(KafkaSettings kafka, int replyPartition, Duration sendTimeout) {
        checkReplyPartition(replyPartition, kafka);
        var commands = Topics.VOTE_COMMANDS;
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-ingest-api", sendTimeout),
                commands.keySerde().serializer(), commands.valueSerde().serializer());
        Properties c = kafka.clientProps("tally-ingest-outcomes-" + replyPartition);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
        var consumer = new KafkaConsumer<>(c, Topics.VOTE_OUTCOMES.keySerde().deserializer(),
                Topics.VOTE_OUTCOMES.valueSerde().deserializer());
        this.replyPartition = new TopicPartition(Topics.VOTE_OUTCOMES.name(), replyPartition);
        consumer.assign(List.of(this.replyPartition));
        consumer.seekToEnd(List.of(this.replyPartition));
        // resolve the position now, so no answer to a command sent after this returns can be skipped
        long start = consumer.position(this.replyPartition, Duration.ofSeconds(30));
        LOG.info("reading answers from {} from offset {}", this.replyPartition, start);
        this.listener = TopicFollower.start(consumer, "tally-outcome-listener", Duration.ofMillis(500), this::answer);
    }

    /** The reply partition must exist in tally.vote-outcomes. */
    public static void checkReplyPartition(int replyPartition, KafkaSettings kafka) {
        if (replyPartition >= kafka.partitions()) {
            throw new Env.ConfigException("TALLY_REPLY_PARTITION=" + replyPartition + " must be below TALLY_PARTITIONS="
                    + kafka.partitions());
        }
    }

    @Override
    public int replyPartition() {
        return replyPartition.partition();
    }

    @Override
    public Submission submit(VoteCommand command) {
        CompletableFuture<VoteOutcome> answered = new CompletableFuture<>();
        waiting.put(command.getCommandId(), answered);
        answered.whenComplete((o, e) -> waiting.remove(command.getCommandId()));
        CompletableFuture<RecordMetadata> appended = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(Topics.VOTE_COMMANDS.name(), command.getVoter(), command), (md, e) -> {
                if (e != null) {
                    appended.completeExceptionally(e);
                    answered.cancel(false);
                } else {
                    appended.complete(md);
                }
            });
        } catch (RuntimeException e) { // metadata not available within max.block.ms, or closed
            appended.completeExceptionally(e);
            answered.cancel(false);
        }
        return new Submission(appended, answered);
    }

    private void answer(ConsumerRecords<String, VoteOutcome> outcomes) {
        for (ConsumerRecord<String, VoteOutcome> r : outcomes) {
            CompletableFuture<VoteOutcome> waiter = waiting.get(r.key());
            if (waiter != null && r.value() != null) {
                waiter.complete(r.value());
            }
        }
    }

    @Override
    public void close() {
        listener.close();
        producer.close(Duration.ofSeconds(5));
    }
}
