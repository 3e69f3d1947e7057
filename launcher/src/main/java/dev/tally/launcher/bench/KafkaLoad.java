package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Kafka-native path: producer threads write {@code VoteCommand}s straight to
 * {@code tally.vote-commands}, keyed by voter, acks=all and idempotent, as a trusted upstream service
 * would. A vote is acknowledged when its send callback reports no error.
 */
public final class KafkaLoad {
    private KafkaLoad() {}

    public static void run(KafkaSettings kafka, Workload workload, int threads, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread worker = new Thread(() -> produce(kafka, workload, id, stats, follower), "bench-producer-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private static void produce(KafkaSettings kafka, Workload workload, int id, LoadStats stats, ViewFollower follower) {
        var props = kafka.producerProps("tally-bench-" + id, Duration.ofSeconds(120));
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 16L * 1024 * 1024);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 125_000); // ≥ linger + request timeout
        var topic = Topics.VOTE_COMMANDS;
        SplittableRandom random = new SplittableRandom(0x7a11L * 31 + id);
        try (var producer = new KafkaProducer<>(props, topic.keySerde().serializer(), topic.valueSerde().serializer())) {
            for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
                Workload.Vote vote = workload.vote(seq, random);
                VoteCommand command = VoteCommand.newBuilder()
                        .setCommandId(new UUID(random.nextLong(), random.nextLong()).toString())
                        .setVoter(vote.voter()).setItemType(Workload.ITEM_TYPE).setItemId(vote.itemId())
                        .setAction(CommandAction.VOTE).setVoteValue(vote.value()).setMode(VoteMode.SET)
                        .setRequestHash("").setReplyPartition(-1).setReceivedAt(Instant.now()).build();
                boolean sampled = stats.sampled(seq);
                producer.send(new ProducerRecord<>(topic.name(), vote.voter(), command), (md, e) -> {
                    if (e != null) {
                        stats.failed(e.toString());
                        return;
                    }
                    stats.acked();
                    if (sampled) {
                        follower.expect(vote.itemKey(), md.partition(), md.offset(), System.nanoTime());
                    }
                });
            }
            producer.flush();
        } catch (RuntimeException e) {
            stats.crashed(e);
        }
    }
}
