package dev.tally.common;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Deletes a state store's entries that a rule calls old, the way a punctuator frees space: in passes of a bounded
 * number of keys, so a big store is never one list of keys in memory, each pass's iterator closed before it deletes.
 */
public final class StorePurge {
    static final int CHUNK = 10_000;

    private StorePurge() {}

    /** Deletes every entry whose value is {@code old}; returns how many. */
    public static <V> int deleteWhere(KeyValueStore<String, V> store, Predicate<V> old) {
        return deleteWhere(store, old, CHUNK);
    }

    static <V> int deleteWhere(KeyValueStore<String, V> store, Predicate<V> old, int chunk) {
        int deleted = 0;
        String from = null;
        while (true) {
            List<String> doomed = new ArrayList<>();
            String last = null;
            boolean more;
            try (KeyValueIterator<String, V> it = store.range(from, null)) {
                for (int seen = 0; seen < chunk && it.hasNext(); seen++) {
                    KeyValue<String, V> kv = it.next();
                    last = kv.key;
                    if (old.test(kv.value)) {
                        doomed.add(kv.key);
                    }
                }
                more = it.hasNext();
            }
            doomed.forEach(store::delete);
            deleted += doomed.size();
            if (!more) {
                return deleted;
            }
            from = last; // inclusive: the last key again (if it was kept), then the next chunk
        }
    }
}
