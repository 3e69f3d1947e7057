package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteMode;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Kafka-native path: producer threads write command batches straight to {@code tally.vote-commands},
 * each to the partition its voters map to, acks=all and idempotent, as a trusted upstream service would
 * (and as the ingest API does). A vote is acknowledged when its batch's send callback reports no error.
 */
public final class KafkaLoad {
    static final int MAX_BATCH = 200;
    public static final int LINGER_MS = 5;
    private static final String NETWORK_PADDING = "0".repeat(48);

    private KafkaLoad() {}

    public static void run(KafkaSettings kafka, Workload workload, int threads, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        run(kafka, workload, threads, stats, follower, Duration.ofMillis(LINGER_MS));
    }

    /** @param linger how long a partition's batch waits for more votes after its first */
    public static void run(KafkaSettings kafka, Workload workload, int threads, LoadStats stats, ViewFollower follower,
                           Duration linger) throws InterruptedException {
        run(kafka, workload, threads, stats, follower, linger, 0);
    }

    /**
     * @param networks how many network buckets the commands carry, each vote's drawn from its sequence number
     *                 (0: none, as a trusted upstream service sends; every HTTP vote carries one)
     */
    public static void run(KafkaSettings kafka, Workload workload, int threads, LoadStats stats, ViewFollower follower,
                           Duration linger, int networks) throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread worker = new Thread(() -> produce(kafka, workload, id, stats, follower, linger.toNanos(), networks),
                    "bench-producer-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private static void produce(KafkaSettings kafka, Workload workload, int id, LoadStats stats, ViewFollower follower,
                                long lingerNanos, int networks) {
        var props = kafka.producerProps("tally-bench-" + id, Duration.ofSeconds(120));
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 16L * 1024 * 1024);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 125_000); // ≥ linger + request timeout
        var topic = Topics.VOTE_COMMANDS;
        SplittableRandom random = new SplittableRandom(0x7a11L * 31 + id);
        try (var producer = new KafkaProducer<>(props, topic.keySerde().serializer(), topic.valueSerde().serializer())) {
            int partitions = producer.partitionsFor(topic.name()).size();
            Batches batches = new Batches(partitions, lingerNanos);
            for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
                Workload.Vote vote = workload.vote(seq, random);
                VoteCommand command = VoteCommand.newBuilder()
                        .setCommandId(new UUID(random.nextLong(), random.nextLong()).toString())
                        .setVoter(vote.voter()).setNetwork(networks == 0 ? null : network(seq, networks))
                        .setItemType(Workload.ITEM_TYPE).setItemId(vote.itemId())
                        .setAction(CommandAction.VOTE).setVoteValue(vote.value()).setMode(VoteMode.SET)
                        .setRequestHash("").setReplyPartition(-1).setReceivedAt(Instant.now()).build();
                int partition = Topics.voterPartition(vote.voter(), partitions);
                batches.add(partition, command, stats.sampled(seq) ? new Sample(vote.itemKey(), stats.dueNanos(seq)) : null);
                batches.sendDue(producer, stats, follower, System.nanoTime());
            }
            batches.sendDue(producer, stats, follower, Long.MAX_VALUE);
            producer.flush();
        } catch (RuntimeException e) {
            stats.crashed(e);
        }
    }

    /**
     * A network bucket as long as the API's (64 hex characters of a keyed hash), spread by a mix of the sequence: the
     * bucket's 16 hex digits behind 48 zeros, written as {@link Workload#voter} writes its id, not with
     * {@code String.format}, whose pattern parsing costs the sender on every vote.
     */
    static String network(long seq, int networks) {
        long bucket = Math.floorMod(seq * 0x9E3779B97F4A7C15L, (long) networks);
        return NETWORK_PADDING + HexFormat.of().toHexDigits(bucket);
    }

    /**
     * A vote whose vote→visible latency is sampled: its item, and when it was due (paced) or made (unpaced), from
     * which the latency counts — so the batch's linger, the producer's and the broker's delays and a stall of the
     * load itself are inside it, as a client would see them.
     */
    private record Sample(String itemKey, long fromNanos) {}

    /**
     * Votes packed per partition as the ingest API packs them: a batch leaves at {@value #MAX_BATCH} votes
     * or its linger ({@value #LINGER_MS} ms unless told) after its first vote.
     */
    private static final class Batches {
        private final List<List<VoteCommand>> commands = new ArrayList<>();
        private final List<List<Sample>> samples = new ArrayList<>();
        private final int[] votes;
        private final long[] firstAt;
        private final long lingerNanos;

        Batches(int partitions, long lingerNanos) {
            this.lingerNanos = lingerNanos;
            firstAt = new long[partitions];
            votes = new int[partitions];
            for (int p = 0; p < partitions; p++) {
                commands.add(new ArrayList<>());
                samples.add(new ArrayList<>());
            }
        }

        /**
         * @param sampled the vote's item and when it was due if its vote→visible latency is sampled, else null
         */
        void add(int partition, VoteCommand command, Sample sampled) {
            if (commands.get(partition).isEmpty()) {
                firstAt[partition] = System.nanoTime();
            }
            commands.get(partition).add(command);
            if (sampled != null) {
                samples.get(partition).add(sampled);
            }
            votes[partition]++;
        }

        /** Sends every batch that is full or has waited its linger ({@code now = Long.MAX_VALUE}: all). */
        void sendDue(KafkaProducer<String, VoteCommandBatch> producer, LoadStats stats, ViewFollower follower, long now) {
            for (int p = 0; p < firstAt.length; p++) {
                List<VoteCommand> batch = commands.get(p);
                if (batch.isEmpty() || (batch.size() < MAX_BATCH && now - firstAt[p] < lingerNanos)) {
                    continue;
                }
                List<Sample> sampled = samples.get(p);
                int count = votes[p];
                producer.send(new ProducerRecord<>(Topics.VOTE_COMMANDS.name(), p, batch.get(0).getVoter(),
                        new VoteCommandBatch(batch)), (md, e) -> {
                    if (e != null) {
                        for (int i = 0; i < count; i++) {
                            stats.failed(e.toString());
                        }
                        return;
                    }
                    for (int i = 0; i < count; i++) {
                        stats.acked();
                    }
                    for (Sample sample : sampled) {
                        follower.expect(sample.itemKey(), md.partition(), md.offset(), sample.fromNanos());
                    }
                });
                commands.set(p, new ArrayList<>());
                samples.set(p, new ArrayList<>());
                votes[p] = 0;
            }
        }
    }
}
