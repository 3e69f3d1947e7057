package dev.tally.ingest;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.SchemaReaders;
import dev.tally.common.TopicFollower;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * Request-reply over Kafka. Packs the commands that arrive together for one partition of
 * {@code tally.vote-commands} into one batch record ({@value #LINGER_MS} ms or {@value #MAX_BATCH} votes,
 * whichever comes first), each in the partition its hashed voter maps to, as a single record keyed by the
 * voter would be (acks=all, idempotent); and completes each waiter when the vote-processor's answers to
 * the batch appear on this instance's own partition of {@code tally.vote-outcomes}, read committed: an
 * answer is only seen once the transaction that produced it has committed.
 *
 * <p>Before it appends a batch it asks {@link SchemaReaders} whether every running reader of
 * {@code tally.vote-commands} decodes the schema it writes; if one does not (an older processor behind a
 * newer API), the batch is not appended and each waiter fails with {@link UnreadableCommandException}.
 */
public final class CommandGateway implements CommandSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommandGateway.class);

    static final int LINGER_MS = 2;
    static final int MAX_BATCH = 200;

    /** A command waiting to be appended, and its two futures. */
    private record Queued(VoteCommand command, CompletableFuture<RecordMetadata> appended,
                          CompletableFuture<VoteOutcome> answered) {}

    private final KafkaProducer<String, VoteCommandBatch> producer;
    private final BlockingQueue<Queued> queue = new LinkedBlockingQueue<>();
    private final Thread batcher;
    private volatile boolean closed;
    private final TopicPartition replyPartition;
    private final Map<String, CompletableFuture<VoteOutcome>> waiting = new ConcurrentHashMap<>();
    private final TopicFollower<String, VoteOutcomeBatch> listener;
    private final SchemaReaders readers;
    private long lastUnreadableWarning = System.nanoTime() - TimeUnit.MINUTES.toNanos(2); // batcher thread only
    private final long writtenFingerprint = Topics.VOTE_COMMANDS.fingerprints().orElseThrow().writtenFingerprint();
    private final String commandsTopic;

    public CommandGateway(KafkaSettings kafka, int replyPartition, Duration sendTimeout) {
        checkReplyPartition(replyPartition, kafka);
        var commands = Topics.VOTE_COMMANDS;
        this.commandsTopic = kafka.topic(commands).name();
        this.producer = new KafkaProducer<>(kafka.producerProps("tally-ingest-api", sendTimeout),
                commands.keySerde().serializer(), commands.valueSerde().serializer());
        Properties c = kafka.clientProps("tally-ingest-outcomes-" + replyPartition);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
        var consumer = new KafkaConsumer<>(c, Topics.VOTE_OUTCOMES.keySerde().deserializer(),
                Topics.VOTE_OUTCOMES.valueSerde().deserializer());
        this.replyPartition = new TopicPartition(kafka.topic(Topics.VOTE_OUTCOMES).name(), replyPartition);
        consumer.assign(List.of(this.replyPartition));
        consumer.seekToEnd(List.of(this.replyPartition));
        // resolve the position now, so no answer to a command sent after this returns can be skipped
        long start = consumer.position(this.replyPartition, Duration.ofSeconds(30));
        LOG.info("reading answers from {} from offset {}", this.replyPartition, start);
        this.listener = TopicFollower.start(consumer, "tally-outcome-listener", Duration.ofMillis(500), this::answer);
        this.readers = SchemaReaders.follow(kafka);
        this.batcher = new Thread(this::batchLoop, "tally-command-batcher");
        batcher.setDaemon(true);
        batcher.start();
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
        if (closed) {
            appended.completeExceptionally(new IllegalStateException("the command gateway is closed"));
            answered.cancel(false);
        } else {
            queue.add(new Queued(command, appended, answered));
        }
        return new Submission(appended, answered);
    }

    /** Takes what has queued up, for at most {@value #LINGER_MS} ms or {@value #MAX_BATCH} commands, and sends it. */
    private void batchLoop() {
        List<Queued> taken = new ArrayList<>();
        while (!closed) {
            try {
                Queued first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                taken.add(first);
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MS);
                while (taken.size() < MAX_BATCH) {
                    Queued next = queue.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (next == null) {
                        break;
                    }
                    taken.add(next);
                }
                send(taken);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException e) {
                LOG.error("command batcher: {}", e.toString(), e);
                taken.forEach(q -> fail(q, e));
            }
            taken.clear();
        }
        for (Queued q = queue.poll(); q != null; q = queue.poll()) {
            fail(q, new IllegalStateException("the command gateway closed before the vote was appended"));
        }
    }

    /** One batch record per partition, the commands in the order they came; a command its request gave up on is dropped. */
    private void send(List<Queued> taken) {
        Map<Integer, List<Queued>> byPartition = new LinkedHashMap<>();
        int partitions;
        try {
            partitions = producer.partitionsFor(commandsTopic).size();
        } catch (RuntimeException e) { // metadata not available within max.block.ms
            taken.forEach(q -> fail(q, e));
            return;
        }
        var unreadable = readers.cannotRead(commandsTopic, writtenFingerprint);
        if (unreadable.isPresent()) {
            if (System.nanoTime() - lastUnreadableWarning > TimeUnit.MINUTES.toNanos(1)) {
                lastUnreadableWarning = System.nanoTime();
                LOG.warn("refusing votes (503 processor-cannot-read): {}", unreadable.get());
            }
            UnreadableCommandException e = new UnreadableCommandException(unreadable.get());
            taken.forEach(q -> fail(q, e));
            return;
        }
        for (Queued q : taken) {
            if (!q.answered().isCancelled()) {
                byPartition.computeIfAbsent(Topics.voterPartition(q.command().getVoter(), partitions),
                        p -> new ArrayList<>()).add(q);
            }
        }
        byPartition.forEach((partition, queued) -> {
            List<VoteCommand> commands = new ArrayList<>(queued.size());
            queued.forEach(q -> commands.add(q.command()));
            try {
                producer.send(new ProducerRecord<>(commandsTopic, partition, commands.get(0).getVoter(),
                        new VoteCommandBatch(commands)), (md, e) -> queued.forEach(q -> {
                            if (e != null) {
                                fail(q, e);
                            } else {
                                q.appended().complete(md);
                            }
                        }));
            } catch (RuntimeException e) {
                queued.forEach(q -> fail(q, e));
            }
        });
    }

    private static void fail(Queued q, Throwable e) {
        q.appended().completeExceptionally(e);
        q.answered().cancel(false);
    }

    private void answer(ConsumerRecords<String, VoteOutcomeBatch> outcomes) {
        for (ConsumerRecord<String, VoteOutcomeBatch> r : outcomes) {
            if (r.value() == null) {
                continue;
            }
            for (VoteOutcome outcome : r.value().getOutcomes()) {
                CompletableFuture<VoteOutcome> waiter = waiting.get(outcome.getCommandId());
                if (waiter != null) {
                    waiter.complete(outcome);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        batcher.interrupt();
        try {
            batcher.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listener.close();
        readers.close();
        producer.close(Duration.ofSeconds(5));
    }
}
