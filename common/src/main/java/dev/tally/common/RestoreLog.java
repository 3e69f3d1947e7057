package dev.tally.common;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * What one Streams application restored from its changelogs as it started, summed per store, for the
 * single line {@link StreamsService} logs when the application first runs: how many records into which
 * store, and how many of the store's partitions were rebuilt from the start of their changelog (state
 * Streams had to discard, e.g. after a crash under exactly-once) rather than caught up from where they
 * were.
 */
final class RestoreLog implements StateRestoreListener {
    private static final class Store {
        final LongAdder records = new LongAdder();
        final LongAdder partitions = new LongAdder();
        final LongAdder fromScratch = new LongAdder();
    }

    private final Map<String, Store> stores = new ConcurrentHashMap<>();

    @Override
    public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
        Store s = stores.computeIfAbsent(storeName, k -> new Store());
        s.partitions.increment();
        if (startingOffset <= 0 && endingOffset > 0) {
            s.fromScratch.increment();
        }
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
        stores.computeIfAbsent(storeName, k -> new Store()).records.add(numRestored);
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {}

    /** E.g. {@code restored 1,234 records: voter-item-state 1,000 (2 of 4 partitions from scratch), …}. */
    String summary() {
        if (stores.isEmpty()) {
            return "restored nothing (every store was up to date)";
        }
        long total = stores.values().stream().mapToLong(s -> s.records.sum()).sum();
        StringBuilder b = new StringBuilder(String.format("restored %,d records:", total));
        String sep = " ";
        for (var e : new TreeMap<>(stores).entrySet()) {
            Store s = e.getValue();
            b.append(sep).append(e.getKey()).append(String.format(" %,d", s.records.sum()));
            if (s.fromScratch.sum() > 0) {
                b.append(String.format(" (%d of %d partitions from scratch)", s.fromScratch.sum(), s.partitions.sum()));
            }
            sep = ", ";
        }
        return b.toString();
    }
}
