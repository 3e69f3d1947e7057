package dev.tally.projector.ranking;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicFollower;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.RankingArtifact;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ranking job (the rankings' read path): follows {@code tally.item-counts} and, every interval,
 * regenerates the ranking of every item type seen, validates it, and publishes it twice — to the
 * compacted {@code tally.rankings} (keyed by item type, for the HTTP route and downstream consumers) and
 * as {@code <dir>/<item_type>/top.json}, a static file a CDN can serve without touching anything else.
 *
 * <p>Nothing is generated until the view has read all of {@code tally.item-counts}: a ranking of half the
 * items would replace a good list with a wrong one. Until then it checks again every second. The two
 * outputs fail independently: Kafka being away does not stop the file, nor the reverse.
 *
 * <p>Memory is bounded by the lists, not the catalogue: the job keeps only each type's best candidates
 * ({@link TopCandidates}), and when those no longer decide a type's list exactly it reads
 * {@code tally.item-counts} again from the start (publishing that type's list again once it has).
 */
public final class RankingJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RankingJob.class);
    private static final Duration CATCH_UP_CHECK = Duration.ofSeconds(1);

    private final Duration interval;
    private final RankingCycle cycle;
    private final RankingFiles files;
    private final TopCandidates candidates = new TopCandidates();
    private final KafkaConsumer<String, ItemCounts> consumer;
    private final TopicFollower<String, ItemCounts> follower;
    private volatile Map<TopicPartition, Long> readTo; // the end offsets the current read must reach
    private volatile boolean caughtUp;
    private volatile boolean rereadRequested;
    private final KafkaProducer<String, RankingArtifact> producer;
    private final ScheduledThreadPoolExecutor scheduler;
    private final String countsTopic;
    private final String rankingsTopic;

    /**
     * Starts following the counts and schedules the first run at once.
     *
     * @param interval  how often every ranking is regenerated; artifacts older than three intervals are stale
     * @param outputDir the root of the static files
     */
    public RankingJob(KafkaSettings kafka, Duration interval, Path outputDir) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("ranking interval must be positive, was " + interval);
        }
        this.interval = interval;
        this.cycle = new RankingCycle(new RankingValidator(interval.multipliedBy(RankingConfig.STALE_AFTER_INTERVALS)));
        this.files = new RankingFiles(outputDir);
        this.countsTopic = kafka.topic(Topics.ITEM_COUNTS).name();
        this.rankingsTopic = kafka.topic(Topics.RANKINGS).name();
        var props = kafka.clientProps("tally-ranking-job");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, Topics.ITEM_COUNTS.keySerde().deserializer(),
                Topics.ITEM_COUNTS.valueSerde().deserializer());
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(countsTopic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            this.readTo = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            this.producer = new KafkaProducer<>(kafka.producerProps("tally-ranking-job", Duration.ofSeconds(10)),
                    Topics.RANKINGS.keySerde().serializer(), Topics.RANKINGS.valueSerde().serializer());
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        this.follower = TopicFollower.start(consumer, "tally-ranking-counts", Duration.ofMillis(500), this::apply);
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tally-ranking-job");
            t.setDaemon(true);
            return t;
        });
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // close() need not wait for the next run
        scheduler.execute(this::tick);
        LOG.info("ranking job publishes every {} to {} and {}", interval, rankingsTopic, files.root());
    }

    /** Convenience for the launcher. */
    public RankingJob(KafkaSettings kafka, RankingConfig config) {
        this(kafka, config.interval(), config.outputDir());
    }

    /**
     * On the follower thread, after every poll: every item's latest counts into the candidates; when the
     * job asked for it, forget them and read the topic again from the start.
     */
    private void apply(ConsumerRecords<String, ItemCounts> batch) {
        for (ConsumerRecord<String, ItemCounts> r : batch) {
            if (r.value() != null) {
                candidates.accept(r.value());
            }
        }
        if (rereadRequested) {
            rereadRequested = false;
            caughtUp = false;
            candidates.clear();
            consumer.seekToBeginning(consumer.assignment());
            readTo = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
        } else if (!caughtUp) {
            caughtUp = readTo.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
        }
    }

    /** One run, then the next one scheduled: an interval after a run, a second after a wait for the counts. */
    private void tick() {
        Duration next = interval;
        try {
            if (!caughtUp || rereadRequested) {
                LOG.debug("ranking waits for {} to be read", countsTopic);
                next = CATCH_UP_CHECK;
            } else {
                TopCandidates.Snapshot snapshot = candidates.snapshot();
                publish(cycle.generate(snapshot.exact(), Instant.now()));
                if (!snapshot.inexact().isEmpty()) {
                    LOG.info("the candidates no longer decide the ranking of {}: reading {} again", snapshot.inexact(),
                            countsTopic);
                    rereadRequested = true;
                    next = CATCH_UP_CHECK;
                }
            }
        } catch (RuntimeException e) {
            if (scheduler.isShutdown()) {
                return;
            }
            LOG.error("ranking run failed; next run in {}", interval, e);
        }
        try {
            scheduler.schedule(this::tick, next.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("ranking job closed");
        }
    }

    /** Files first (local, fast), then Kafka, each failure confined to its own output and type. */
    private void publish(List<RankingArtifact> artifacts) {
        for (RankingArtifact artifact : artifacts) {
            try {
                files.write(artifact);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot write the ranking file of '{}' under {}", artifact.getItemType(), files.root(), e);
            }
        }
        for (RankingArtifact artifact : artifacts) {
            String type = artifact.getItemType();
            try {
                producer.send(new ProducerRecord<>(rankingsTopic, type, artifact), (meta, e) -> {
                    if (e != null) {
                        LOG.warn("cannot publish the ranking of '{}' to {}", type, rankingsTopic, e);
                    }
                });
            } catch (RuntimeException e) {
                if (scheduler.isShutdown()) {
                    throw e;
                }
                LOG.warn("cannot publish the ranking of '{}' to {}", type, rankingsTopic, e);
            }
        }
        producer.flush();
        LOG.debug("published {} rankings", artifacts.size());
    }

    @Override
    public void close() {
        scheduler.shutdown(); // a run in progress finishes; the next one is cancelled
        try {
            if (!scheduler.awaitTermination(15, TimeUnit.SECONDS)) {
                LOG.warn("ranking run did not finish within 15 s; interrupting it");
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
        follower.close();
    }
}
