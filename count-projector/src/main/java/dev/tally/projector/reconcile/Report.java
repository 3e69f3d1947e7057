package dev.tally.projector.reconcile;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The outcome of one reconcile run: how many items were compared (in the view, in the log, or both), the
 * total drift, and the comparisons kept — every drifting item, plus those the caller asked to keep.
 *
 * <p>Only those are kept so a run's memory is bounded by one partition's items, not the catalogue's (see
 * {@link Reconciler}); a caller that checks items it knows were compared names them with the predicate
 * given to {@link Reconciler#reconcile(Progress, Predicate)} ({@link #EVERY_ITEM} in tests).
 *
 * @param items         item key ({@code type:id}) to its comparison, sorted: the drifting and the asked-for
 * @param itemsCompared every item compared
 * @param drift         total drift, the sum over every item
 * @param unprojected   events written to the log but not yet in any view: in flight, not drift
 * @param eventsRead    records of {@code tally.vote-events} read (the measure of reconcile speed)
 * @param elapsed       wall time of the whole run, both topics
 */
public record Report(SortedMap<String, ItemDrift> items, long itemsCompared, long drift, long unprojected,
                     long eventsRead, Duration elapsed) {
    /** Keeps every item's comparison: for tests over a few items, not for a catalogue. */
    public static final Predicate<String> EVERY_ITEM = key -> true;

    public Report {
        items = Collections.unmodifiableSortedMap(new TreeMap<>(items));
    }

    /** The items whose view disagrees with the log, sorted by item key. */
    public List<ItemDrift> drifting() {
        return items.values().stream().filter(d -> d.drift() > 0).toList();
    }

    /** The comparison of one item, if it drifts or was asked for. */
    public Optional<ItemDrift> item(String itemKey) {
        return Optional.ofNullable(items.get(itemKey));
    }

    public double eventsPerSecond() {
        return elapsed.isZero() ? 0 : eventsRead * 1000.0 / Math.max(1, elapsed.toMillis());
    }

    /** The contract's closing line: {@code items=N drift=D}. */
    public String summary() {
        return "items=" + itemsCompared + " drift=" + drift;
    }

    /** Adds up the comparisons of a run, part by part, keeping the drifting and the asked-for ones. */
    static final class Builder {
        private final Predicate<String> kept;
        private final SortedMap<String, ItemDrift> items = new TreeMap<>();
        private long compared;
        private long drift;
        private long unprojected;
        private long events;

        Builder(Predicate<String> kept) {
            this.kept = kept;
        }

        void add(ItemDrift item) {
            compared++;
            long d = item.drift();
            drift += d;
            unprojected += item.unprojected();
            if (d > 0 || kept.test(item.item())) {
                items.put(item.item(), item);
            }
        }

        void addEvents(long read) {
            events += read;
        }

        long events() {
            return events;
        }

        Report build(Duration elapsed) {
            return new Report(items, compared, drift, unprojected, events, elapsed);
        }
    }
}
