package dev.tally.projector.reconcile;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The outcome of one reconcile run: every item compared (in the view, in the log, or both), by item key.
 * Kept whole, not only the drifting items, so a caller can check an item it knows was compared (one
 * entry per item, the same order of memory as the run itself; see {@link Ledger}).
 *
 * @param items      item key ({@code type:id}) to its comparison, sorted
 * @param eventsRead records of {@code tally.vote-events} read (the measure of reconcile speed)
 * @param elapsed    wall time of the whole run, both topics
 */
public record Report(SortedMap<String, ItemDrift> items, long eventsRead, Duration elapsed) {
    public Report {
        items = Collections.unmodifiableSortedMap(new TreeMap<>(items));
    }

    public long itemsCompared() {
        return items.size();
    }

    /** Total drift, the sum over every item. */
    public long drift() {
        return items.values().stream().mapToLong(ItemDrift::drift).sum();
    }

    /** The items whose view disagrees with the log, sorted by item key. */
    public List<ItemDrift> drifting() {
        return items.values().stream().filter(d -> d.drift() > 0).toList();
    }

    /** Events written to the log but not yet in any view: in flight, not drift. */
    public long unprojected() {
        return items.values().stream().mapToLong(ItemDrift::unprojected).sum();
    }

    public Optional<ItemDrift> item(String itemKey) {
        return Optional.ofNullable(items.get(itemKey));
    }

    public double eventsPerSecond() {
        return elapsed.isZero() ? 0 : eventsRead * 1000.0 / Math.max(1, elapsed.toMillis());
    }

    /** The contract's closing line: {@code items=N drift=D}. */
    public String summary() {
        return "items=" + itemsCompared() + " drift=" + drift();
    }
}
