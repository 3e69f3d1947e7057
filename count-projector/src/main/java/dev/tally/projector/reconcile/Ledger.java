package dev.tally.projector.reconcile;

import dev.tally.common.CountChange;
import dev.tally.common.VoterState;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pure part of reconciling (no Kafka): given the latest view of every item, folds events into what
 * the views should hold and compares.
 *
 * <p><b>Why the watermarks.</b> Under live traffic the view always lags the log a little. Each view
 * records, per {@code tally.vote-commands} partition, the highest command offset it reflects; an event
 * whose {@code source_offset} is at or below the watermark of its {@code source_partition} is in the
 * view, one above it is not yet. Folding exactly the events at or below the watermarks gives what the
 * view must hold if no count was lost or doubled, so the comparison is exact while votes keep arriving.
 * An item with events but no view has empty watermarks: it expects zeros. Events written before
 * positions were recorded ({@code source_partition} -1) cannot be placed against a watermark and are
 * counted as projected.
 *
 * <p><b>Weights.</b> Each event's before and after states carry what their vote weighs (1.0 in events
 * written before weights were recorded), and the weighted counts are folded with them.
 *
 * <p><b>Memory.</b> One entry per item in the view or the log, held until the comparison is made: the
 * {@link Reconciler} gives a ledger one partition at a time (both topics are keyed by item).
 */
public final class Ledger {
    private final Map<String, ItemCounts> views;
    private final Map<String, Sum> sums = new HashMap<>();
    private long events;

    /** @param views the latest {@code ItemCounts} per item key ({@code type:id}); the ledger keeps this map */
    public Ledger(Map<String, ItemCounts> views) {
        this.views = views;
    }

    /** Adds one event of the log, if the item's view already reflects it. */
    public void accept(VoteEvent event) {
        events++;
        Sum sum = sums.computeIfAbsent(Topics.itemKey(event.getItemType(), event.getItemId()),
                k -> new Sum(event.getItemType(), event.getItemId()));
        if (projected(event, views.get(sum.key()))) {
            sum.add(event.getBefore(), event.getAfter());
        } else {
            sum.unprojected++;
        }
    }

    /** Whether the view reflects the event: its offset is at or below the watermark of its partition. */
    static boolean projected(VoteEvent event, ItemCounts view) {
        if (event.getSourcePartition() < 0) {
            return true;
        }
        if (view == null) {
            return false;
        }
        Long watermark = view.getWatermarks().get(Integer.toString(event.getSourcePartition()));
        return watermark != null && event.getSourceOffset() <= watermark;
    }

    public long eventsRead() {
        return events;
    }

    /** Compares every item in the views or the log and keeps every comparison (for tests of a few items). */
    public Report report(Duration elapsed) {
        Report.Builder report = new Report.Builder(Report.EVERY_ITEM);
        compareInto(report);
        return report.build(elapsed);
    }

    /** Compares every item in the views or the log into {@code report}. */
    void compareInto(Report.Builder report) {
        report.addEvents(events);
        views.forEach((key, view) -> {
            Sum sum = sums.get(key);
            report.add(sum == null ? new ItemDrift(view.getItemType(), view.getItemId(), Counts.of(view), Counts.ZERO, 0)
                    : new ItemDrift(sum.itemType, sum.itemId, Counts.of(view), sum.counts(), sum.unprojected));
        });
        sums.forEach((key, sum) -> {
            if (!views.containsKey(key)) {
                report.add(new ItemDrift(sum.itemType, sum.itemId, Counts.ZERO, sum.counts(), sum.unprojected));
            }
        });
    }

    /** The running fold (after − before) of one item's projected events. */
    private static final class Sum {
        final String itemType;
        final String itemId;
        long up;
        long down;
        double weightedUp;
        double weightedDown;
        Map<String, Long> reactions; // made at the first reaction: most items have none
        long unprojected;

        Sum(String itemType, String itemId) {
            this.itemType = itemType;
            this.itemId = itemId;
        }

        String key() {
            return Topics.itemKey(itemType, itemId);
        }

        void add(VoterItemState before, VoterItemState after) {
            CountChange change = CountChange.of(new VoterState(before.getVote(), before.getReaction()),
                    new VoterState(after.getVote(), after.getReaction()), before.getWeight(), after.getWeight());
            up += change.up();
            down += change.down();
            weightedUp += change.weightedUp();
            weightedDown += change.weightedDown();
            if (change.changesReactions()) {
                if (reactions == null) {
                    reactions = new HashMap<>();
                }
                change.applyTo(reactions);
            }
        }

        Counts counts() {
            return new Counts(up, down, weightedUp, weightedDown, reactions == null ? new TreeMap<>() : new TreeMap<>(reactions));
        }
    }
}
