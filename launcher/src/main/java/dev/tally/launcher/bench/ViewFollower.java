package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows {@code tally.item-counts} (read_committed: what downstream consumers and live streams see) while a run
 * goes on, and times its sampled votes: a vote is <em>visible</em> once its item's view has a watermark at or above
 * the vote's command offset in its partition; a sampled vote's latency counts from when it was due (a paced load's
 * intended send time) or sent to that moment. Only the records of items with a sampled vote waiting are decoded; the
 * views as a whole are read once at the end ({@link ViewSnapshot}), so the follower takes little CPU from the node
 * it measures.
 */
public final class ViewFollower implements AutoCloseable {
    private record Sample(int partition, long offset, long fromNanos) {}

    private final Map<String, List<Sample>> pending = new HashMap<>(); // guarded by this
    private Latencies visible = new Latencies(); // guarded by this
    private final KafkaConsumer<String, byte[]> consumer;
    private final List<TopicPartition> parts;
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long lastRecordNanos = System.nanoTime();
    private volatile Throwable failure;
    private final List<long[]> timeline; // {due nanos, vote→visible nanos, partition} per sample; null: not kept

    public ViewFollower(KafkaSettings kafka) {
        this(kafka, false);
    }

    /** Follows the views; with {@code keepTimeline}, every sample is kept for {@link #writeTimeline}. */
    public ViewFollower(KafkaSettings kafka, boolean keepTimeline) {
        this.timeline = keepTimeline ? new ArrayList<>() : null;
        consumer = EventLog.fromBeginning(kafka, "tally-bench-views", kafka.topic(Topics.ITEM_COUNTS).name(), new StringDeserializer());
        parts = List.copyOf(consumer.assignment());
        thread = new Thread(this::follow, "bench-view-follower");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow() {
        var decoder = Topics.ITEM_COUNTS.valueSerde().deserializer();
        try {
            while (running) {
                var records = consumer.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                if (!records.isEmpty()) {
                    lastRecordNanos = now;
                }
                for (ConsumerRecord<String, byte[]> r : records) {
                    if (r.value() == null) {
                        continue;
                    }
                    synchronized (this) {
                        List<Sample> waiting = pending.get(r.key());
                        if (waiting == null) {
                            continue;
                        }
                        Map<String, Long> watermarks = decoder.deserialize(r.topic(), r.value()).getWatermarks();
                        for (Iterator<Sample> it = waiting.iterator(); it.hasNext(); ) {
                            Sample s = it.next();
                            Long through = watermarks.get(Integer.toString(s.partition));
                            if (through != null && through >= s.offset) {
                                record(s, now);
                                it.remove();
                            }
                        }
                        if (waiting.isEmpty()) {
                            pending.remove(r.key());
                        }
                    }
                }
                for (TopicPartition tp : parts) {
                    positions.put(tp, consumer.position(tp));
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (Throwable t) {
            failure = t;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void record(Sample s, long visibleAt) { // holding this
        visible.recordNanos(visibleAt - s.fromNanos);
        if (timeline != null) {
            timeline.add(new long[] {s.fromNanos, visibleAt - s.fromNanos, s.partition});
        }
    }

    /**
     * A sampled vote's command is at partition/offset; its latency counts from {@code fromNanos}, when the vote was
     * due (paced) or sent.
     */
    public synchronized void expect(String itemKey, int partition, long offset, long fromNanos) {
        pending.computeIfAbsent(itemKey, k -> new ArrayList<>(2)).add(new Sample(partition, offset, fromNanos));
    }

    /**
     * From now on only the votes sampled from now count (the measured run's): the warm-up samples votes too, so that
     * the JIT compiles these paths before the clock starts, and its samples are forgotten here.
     */
    public synchronized void measureFromNow() {
        visible = new Latencies();
        pending.clear();
        if (timeline != null) {
            timeline.clear();
        }
    }

    /** Waits until this follower has read as far as {@code ends} in every partition; whether it did within {@code timeout}. */
    public boolean awaitPosition(Map<TopicPartition, Long> ends, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ends.entrySet().stream().allMatch(e -> positions.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
            if (System.nanoTime() > deadline || failure != null) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /**
     * The samples still waiting that {@code views} shows visible: their item's view changed before the vote's
     * acknowledgement reached {@link #expect} (the follower then never sees them become visible). Each counts as
     * visible at the last record this follower read, a latency no shorter than its own; returns how many.
     */
    public synchronized long settle(ViewSnapshot views) {
        long settled = 0;
        for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            for (Iterator<Sample> s = e.getValue().iterator(); s.hasNext(); ) {
                Sample sample = s.next();
                if (views.reflects(e.getKey(), sample.partition, sample.offset)) {
                    record(sample, lastRecordNanos);
                    s.remove();
                    settled++;
                }
            }
            if (e.getValue().isEmpty()) {
                it.remove();
            }
        }
        return settled;
    }

    public long lastRecordNanos() {
        return lastRecordNanos;
    }

    /**
     * Writes one line per sampled vote that became visible: when it was due, in seconds since the JVM started
     * (the clock of {@code -Xlog:gc*:file=…:uptime}, so the tail lines up with a GC log), its vote→visible in
     * milliseconds and its command's partition, ordered by due time.
     */
    public void writeTimeline(Path file) throws IOException {
        long jvmStart = System.nanoTime() - ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
        List<long[]> samples;
        synchronized (this) {
            samples = new ArrayList<>(timeline);
        }
        samples.sort(Comparator.comparingLong(t -> t[0]));
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            out.println("# due_s vote_to_visible_ms partition");
            for (long[] t : samples) {
                out.printf(Locale.ROOT, "%.3f %.1f %d%n", (t[0] - jvmStart) / 1e9, t[1] / 1e6, t[2]);
            }
        }
    }

    public synchronized Latencies visible() {
        return visible;
    }

    public synchronized long pendingSamples() {
        return pending.values().stream().mapToLong(List::size).sum();
    }

    public Throwable failure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(15_000);
    }
}
