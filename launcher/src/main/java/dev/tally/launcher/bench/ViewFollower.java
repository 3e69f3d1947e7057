package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows {@code tally.item-counts} (read_committed: what downstream consumers and live streams see) and
 * keeps the latest counts and watermarks of every item. A vote is <em>visible</em> once its item's view
 * has a watermark at or above the vote's command offset in its partition; sampled votes record the time
 * from when they were due (a paced load's intended send time) or sent to that moment.
 */
public final class ViewFollower implements AutoCloseable {
    /** The latest view of one item. */
    /**
     * One item's latest counts, updated in place under the follower's lock: a new object per record would live
     * until the item's next record — seconds with 100,000 items — so the bench itself would feed the old
     * generation of the heap it shares with the node it measures, and its full collections.
     */
    static final class View {
        long up;
        long down;
        final long[] watermarks;

        View(int partitions) {
            watermarks = new long[partitions];
            Arrays.fill(watermarks, -1);
        }

        boolean reflects(int partition, long offset) {
            return partition < watermarks.length && watermarks[partition] >= offset;
        }
    }

    private record Sample(int partition, long offset, long fromNanos) {}

    private final int partitions;
    private final Map<String, View> views = new ConcurrentHashMap<>();
    private final Map<String, List<Sample>> pending = new HashMap<>(); // guarded by this
    private Latencies visible = new Latencies(); // guarded by this
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long lastRecordNanos = System.nanoTime();
    private volatile Throwable failure;
    private final List<long[]> timeline; // {due nanos, vote→visible nanos, partition} per sample; null: not kept

    public ViewFollower(KafkaSettings kafka, int partitions) {
        this(kafka, partitions, false);
    }

    /** Follows the views; with {@code keepTimeline}, every sample is kept for {@link #writeTimeline}. */
    public ViewFollower(KafkaSettings kafka, int partitions, boolean keepTimeline) {
        this.partitions = partitions;
        this.timeline = keepTimeline ? new ArrayList<>() : null;
        var props = kafka.clientProps("tally-bench-views");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> parts = consumer.partitionsFor(Topics.ITEM_COUNTS.name()).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
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
                for (ConsumerRecord<String, byte[]> r : records) {
                    lastRecordNanos = now;
                    if (r.value() == null) {
                        views.remove(r.key());
                        continue;
                    }
                    ItemCounts counts = decoder.deserialize(r.topic(), r.value());
                    synchronized (this) {
                        View view = views.computeIfAbsent(r.key(), k -> new View(partitions));
                        view.up = counts.getUpvotes();
                        view.down = counts.getDownvotes();
                        counts.getWatermarks().forEach((p, offset) -> {
                            int partition = Integer.parseInt(p);
                            if (partition >= 0 && partition < partitions) {
                                view.watermarks[partition] = offset;
                            }
                        });
                        List<Sample> waiting = pending.get(r.key());
                        if (waiting != null) {
                            for (Iterator<Sample> it = waiting.iterator(); it.hasNext(); ) {
                                Sample s = it.next();
                                if (view.reflects(s.partition, s.offset)) {
                                    visible.recordNanos(now - s.fromNanos);
                                    if (timeline != null) {
                                        timeline.add(new long[] {s.fromNanos, now - s.fromNanos, s.partition});
                                    }
                                    it.remove();
                                }
                            }
                            if (waiting.isEmpty()) {
                                pending.remove(r.key());
                            }
                        }
                    }
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

    /**
     * A sampled vote's command is at partition/offset; its latency counts from {@code fromNanos}, when the vote was
     * due (paced) or sent.
     */
    public synchronized void expect(String itemKey, int partition, long offset, long fromNanos) {
        View view = views.get(itemKey);
        if (view != null && view.reflects(partition, offset)) {
            visible.recordNanos(System.nanoTime() - fromNanos);
        } else {
            pending.computeIfAbsent(itemKey, k -> new ArrayList<>(2)).add(new Sample(partition, offset, fromNanos));
        }
    }

    /** How many items' views do not yet reflect the command offsets given per item. */
    public synchronized long behind(Map<String, long[]> required) {
        long behind = 0;
        for (var e : required.entrySet()) {
            View view = views.get(e.getKey());
            long[] need = e.getValue();
            for (int p = 0; p < need.length; p++) {
                if (need[p] >= 0 && (view == null || !view.reflects(p, need[p]))) {
                    behind++;
                    break;
                }
            }
        }
        return behind;
    }

    /** Items whose view's up/down differ from the totals given (items absent from both count as zero). */
    public synchronized List<String> mismatches(Map<String, long[]> totals) {
        List<String> out = new ArrayList<>();
        totals.forEach((item, t) -> {
            View v = views.get(item);
            long up = v == null ? 0 : v.up;
            long down = v == null ? 0 : v.down;
            if (up != t[0] || down != t[1]) {
                out.add(item + " view up=" + up + " down=" + down + ", log up=" + t[0] + " down=" + t[1]);
            }
        });
        views.forEach((item, v) -> {
            if (!totals.containsKey(item) && (v.up != 0 || v.down != 0)) {
                out.add(item + " view up=" + v.up + " down=" + v.down + ", not in the log");
            }
        });
        return out;
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
