package dev.tally.common;

import java.util.Map;
import java.util.Optional;

/** A read-only, eventually up-to-date copy of a keyed table (e.g. a compacted topic) held in memory. */
public interface KeyedView<V> {
    Optional<V> get(String key);

    Map<String, V> snapshot();

    /** Whether the copy has read everything that existed when it started. */
    boolean caughtUp();

    /** Applies a write this process just made (null: a delete), so its own reads see it before the source comes round. */
    void applyLocal(String key, V value);
}
