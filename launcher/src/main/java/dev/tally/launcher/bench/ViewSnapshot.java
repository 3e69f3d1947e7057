package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Every item's view as {@code tally.item-counts} holds it when read (read_committed, from the beginning: what a
 * downstream consumer that starts now sees), to check a run's views against its event log: none behind the
 * commands, each equal to the log's totals.
 */
public final class ViewSnapshot {
    /** One item's latest counts and watermarks. */
    private record View(long up, long down, long[] watermarks) {
        boolean reflects(int partition, long offset) {
            return partition < watermarks.length && watermarks[partition] >= offset;
        }
    }

    private final Map<String, View> views;
    private final Map<TopicPartition, Long> ends;

    private ViewSnapshot(Map<String, View> views, Map<TopicPartition, Long> ends) {
        this.views = views;
        this.ends = ends;
    }

    /** Reads the topic to its end; {@code partitions}: those of {@code tally.vote-commands}, which watermarks name. */
    public static ViewSnapshot read(KafkaSettings kafka, int partitions) {
        var keys = Topics.ITEM_COUNTS.keySerde().deserializer();
        var decoder = Topics.ITEM_COUNTS.valueSerde().deserializer();
        Map<String, View> views = new HashMap<>();
        Map<TopicPartition, Long> ends = EventLog.readToEnd(kafka, kafka.topic(Topics.ITEM_COUNTS).name(), "tally-bench-views", r -> {
            String item = keys.deserialize(r.topic(), r.key());
            if (r.value() == null) {
                views.remove(item);
                return;
            }
            ItemCounts counts = decoder.deserialize(r.topic(), r.value());
            long[] watermarks = new long[partitions];
            Arrays.fill(watermarks, -1);
            counts.getWatermarks().forEach((p, offset) -> {
                int partition = Integer.parseInt(p);
                if (partition >= 0 && partition < partitions) {
                    watermarks[partition] = offset;
                }
            });
            views.put(item, new View(counts.getUpvotes(), counts.getDownvotes(), watermarks));
        });
        return new ViewSnapshot(views, ends);
    }

    /**
     * Reads the views again every 200 ms until none is behind the command offsets {@code required} per item, or
     * {@code timeout} has passed; returns the last read.
     */
    public static ViewSnapshot readCaughtUp(KafkaSettings kafka, int partitions, Map<String, long[]> required,
                                            Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ViewSnapshot views = read(kafka, partitions);
        while (views.behind(required) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            views = read(kafka, partitions);
        }
        return views;
    }

    /** The end offsets the read stopped at, by partition of {@code tally.item-counts}. */
    public Map<TopicPartition, Long> ends() {
        return ends;
    }

    /** Whether the item's view reflects the command at {@code offset} of {@code partition}. */
    public boolean reflects(String item, int partition, long offset) {
        View view = views.get(item);
        return view != null && view.reflects(partition, offset);
    }

    /** How many items' views do not yet reflect the command offsets given per item. */
    public long behind(Map<String, long[]> required) {
        long behind = 0;
        for (var e : required.entrySet()) {
            long[] need = e.getValue();
            for (int p = 0; p < need.length; p++) {
                if (need[p] >= 0 && !reflects(e.getKey(), p, need[p])) {
                    behind++;
                    break;
                }
            }
        }
        return behind;
    }

    /** Items whose view's up/down differ from the totals given (items absent from both count as zero). */
    public List<String> mismatches(Map<String, long[]> totals) {
        List<String> out = new ArrayList<>();
        totals.forEach((item, t) -> {
            View v = views.get(item);
            long up = v == null ? 0 : v.up();
            long down = v == null ? 0 : v.down();
            if (up != t[0] || down != t[1]) {
                out.add(item + " view up=" + up + " down=" + down + ", log up=" + t[0] + " down=" + t[1]);
            }
        });
        views.forEach((item, v) -> {
            if (!totals.containsKey(item) && (v.up() != 0 || v.down() != 0)) {
                out.add(item + " view up=" + v.up() + " down=" + v.down() + ", not in the log");
            }
        });
        return out;
    }
}
