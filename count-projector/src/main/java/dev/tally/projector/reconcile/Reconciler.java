package dev.tally.projector.reconcile;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recomputes every count from the event log and compares it with the published views; writes
 * corrections when asked. The comparison is exact under live traffic (see {@link Ledger} for the
 * watermarks that make it so).
 *
 * <p>A run takes two snapshots at its start, in this order: the end of {@code tally.item-counts}, then
 * the end of {@code tally.vote-events}. A view is published only after the events it reflects are
 * committed, so every event a view in the first snapshot reflects lies below the second. Both topics
 * are then read read_committed up to their snapshot ({@link TopicSnapshot}): the latest view per item,
 * then the whole log.
 *
 * <p><b>Memory: one partition at a time.</b> Both topics are keyed by item and made with the same number
 * of partitions, so partition p of {@code tally.item-counts} holds the views of exactly the items whose
 * events are in partition p of {@code tally.vote-events} (the same key, the same default partitioner).
 * A run folds one such pair at a time, with the same snapshots: it holds the latest view and a running
 * sum per item of one partition, and keeps from each only the comparisons the report keeps (see
 * {@link Report}). If the partition counts differ (one topic grown by hand) it falls back to one pass
 * over both whole topics, and says so.
 */
public final class Reconciler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STALL = Duration.ofSeconds(60);

    private final KafkaSettings kafka;
    private final String projectorGroup;
    private final Admin admin;
    private KafkaProducer<String, CountDeltaBatch> producer;

    /**
     * @param projectorApplicationId the count-projector's application id ({@code <namespace>-count-projector}),
     *                               whose committed offsets tell when a repair is reflected in the views
     */
    public Reconciler(KafkaSettings kafka, String projectorApplicationId) {
        this.kafka = kafka;
        this.projectorGroup = projectorApplicationId;
        this.admin = Admin.create(kafka.clientProps("tally-reconcile-admin"));
    }

    /** One full comparison of every item, keeping only the drifting ones; {@code progress} follows the event log. */
    public Report reconcile(Progress progress) {
        return reconcile(progress, key -> false);
    }

    /**
     * One full comparison of every item; the report keeps the drifting ones and those {@code kept} accepts.
     * {@code progress} follows the read of the event log.
     */
    public Report reconcile(Progress progress, Predicate<String> kept) {
        long start = System.nanoTime();
        TopicSnapshot viewEnd = TopicSnapshot.take(admin, kafka.topic(Topics.ITEM_COUNTS).name());
        TopicSnapshot logEnd = TopicSnapshot.take(admin, kafka.topic(Topics.VOTE_EVENTS).name());
        Report.Builder report = new Report.Builder(kept);
        if (viewEnd.partitionCount() == logEnd.partitionCount()) {
            long total = logEnd.offsets();
            long[] before = new long[2]; // events and offsets of the partitions done
            for (int p = 0; p < viewEnd.partitionCount(); p++) {
                TopicSnapshot log = logEnd.partition(p);
                compare(viewEnd.partition(p), log, report, (events, read, partTotal) ->
                        progress.update(before[0] + events, before[1] + read, total));
                before[0] = report.events();
                before[1] += log.offsets();
            }
        } else {
            LOG.warn("reconcile: {} has {} partitions and {} has {}: not co-partitioned, so every item is held at once",
                    kafka.topic(Topics.ITEM_COUNTS).name(), viewEnd.partitionCount(), kafka.topic(Topics.VOTE_EVENTS).name(), logEnd.partitionCount());
            compare(viewEnd, logEnd, report, progress);
        }
        Report done = report.build(Duration.ofNanos(System.nanoTime() - start));
        LOG.info("reconcile: {} ({} events in {} ms, {} events/s; {} not yet projected)", done.summary(),
                done.eventsRead(), done.elapsed().toMillis(), Math.round(done.eventsPerSecond()), done.unprojected());
        return done;
    }

    /** Reads the latest views of {@code views}, folds the events of {@code log} against them, compares into the report. */
    private void compare(TopicSnapshot views, TopicSnapshot log, Report.Builder report, Progress progress) {
        Map<String, ItemCounts> latest = new HashMap<>();
        views.read(kafka, "tally-reconcile-views", r -> {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            ItemCounts view = decode(Topics.ITEM_COUNTS, r);
            if (view == null) {
                latest.remove(key);
            } else {
                latest.put(key, view);
            }
        }, Progress.NONE, STALL);
        Ledger ledger = new Ledger(latest);
        log.read(kafka, "tally-reconcile-events", r -> {
            VoteEvent event = decode(Topics.VOTE_EVENTS, r);
            if (event != null) {
                ledger.accept(event);
            }
        }, progress, STALL);
        ledger.compareInto(report);
    }

    /**
     * Writes one correcting {@code CountDelta} (expected − actual, {@code source_partition} -1) per
     * drifting item of the report to {@code tally.count-deltas}, each a batch of one keyed by its item, and returns once all are acknowledged.
     *
     * <p>Corrections are deltas, so votes that arrive meanwhile stay counted. But a report must be repaired
     * once only, and only if taken after the previous repair was reflected (see {@link #projected}):
     * otherwise the same drift is corrected twice.
     */
    public Repair repair(Report report) {
        List<ItemDrift> drifting = report.drifting();
        if (drifting.isEmpty()) {
            return Repair.NONE;
        }
        if (producer == null) {
            var topic = Topics.COUNT_DELTAS;
            producer = new KafkaProducer<>(kafka.producerProps("tally-reconcile", TIMEOUT),
                    topic.keySerde().serializer(), topic.valueSerde().serializer());
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (ItemDrift item : drifting) {
            sent.add(producer.send(new ProducerRecord<>(kafka.topic(Topics.COUNT_DELTAS).name(), item.item(), Topics.batchOf(item.correction()))));
        }
        producer.flush();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        List<String> items = new ArrayList<>();
        for (int i = 0; i < drifting.size(); i++) {
            String item = drifting.get(i).item();
            try {
                RecordMetadata md = sent.get(i).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                offsets.merge(new TopicPartition(md.topic(), md.partition()), md.offset(), Math::max);
                items.add(item);
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                throw new IllegalStateException("writing the correction of " + item + " to "
                        + kafka.topic(Topics.COUNT_DELTAS).name() + " failed (" + items.size() + " of " + drifting.size()
                        + " written): " + cause, cause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing the correction of " + item, e);
            }
        }
        LOG.info("reconcile: wrote corrections for {} items to {}", items.size(), kafka.topic(Topics.COUNT_DELTAS).name());
        return new Repair(items, offsets);
    }

    /**
     * Whether the count-projector has committed past every correction of the repair, so the next
     * snapshot of {@code tally.item-counts} reflects them (under exactly-once its offsets commit in the
     * same transaction as the views they produced).
     */
    public boolean projected(Repair repair) {
        if (repair.offsets().isEmpty()) {
            return true;
        }
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(projectorGroup).partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot read the offsets of the count-projector group '" + projectorGroup
                    + "' on " + kafka.topic(Topics.COUNT_DELTAS).name() + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the offsets of '" + projectorGroup + "'", e);
        }
        return repair.offsets().entrySet().stream().allMatch(e -> {
            OffsetAndMetadata c = committed.get(e.getKey());
            return c != null && c.offset() > e.getValue();
        });
    }

    /** Waits until {@link #projected} holds or the timeout passes; returns whether it holds. */
    public boolean awaitProjected(Repair repair, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!projected(repair)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    private static <V> V decode(Topic<String, V> topic, ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return null;
        }
        try {
            return topic.valueSerde().deserializer().deserialize(topic.name(), r.value());
        } catch (RuntimeException e) {
            // a record that cannot be read makes every count it touches unverifiable: stop, do not skip
            throw new IllegalStateException(topic.name() + " partition " + r.partition() + " offset " + r.offset()
                    + ": cannot decode the record: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(TIMEOUT);
        }
        admin.close(TIMEOUT);
    }
}
