package dev.tally.projector.ranking;

import dev.tally.common.DoNotMutate;
import dev.tally.schema.ItemCounts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The items that can still make a top list, per item type, in memory bounded by the list rather than the
 * catalogue: the {@value #PER_TYPE} best rankable items of each type (rankable: past the gates, with an
 * id a client may show), in {@link Rankings#ORDER}, fed every item's latest counts as they change.
 *
 * <p>A type's top {@value Rankings#MAX_ITEMS} is exact while its candidates include everything that could
 * rank there. An item pushed out of the candidates, or arriving below the worst of a full set, is an
 * <em>outsider</em>; the set remembers the best outsider it ever saw (a bound: that item may have fallen
 * since). Its top list is exact when no outsider was ever seen, or when its {@value Rankings#MAX_ITEMS}th
 * candidate ranks before that bound. Otherwise — candidates dropped below the gates, or fell far — the
 * ranking job reads the counts again from the start ({@link #clear}, then every item again), which
 * rebuilds the set exactly. At most {@value #MAX_TYPES} item types are kept; more are logged and skipped.
 */
final class TopCandidates {
    private static final Logger LOG = LoggerFactory.getLogger(TopCandidates.class);
    static final int PER_TYPE = 4 * Rankings.MAX_ITEMS;
    static final int MAX_TYPES = 1_000;

    private record Entry(RankingCandidate candidate, ItemCounts counts) {}

    private static final java.util.Comparator<Entry> ORDER = (a, b) -> Rankings.ORDER.compare(a.candidate(), b.candidate());

    @DoNotMutate("a total order: two entries never compare equal, so < and <= agree")
    private static boolean before(Entry a, Entry b) {
        return ORDER.compare(a, b) < 0;
    }

    private static final class Type {
        final TreeSet<Entry> order = new TreeSet<>(ORDER);
        final Map<String, Entry> byKey = new HashMap<>();
        Entry bestOutside;

        void outside(Entry e) {
            if (bestOutside == null || before(e, bestOutside)) {
                bestOutside = e;
            }
        }

        boolean exact() {
            if (bestOutside == null) {
                return true;
            }
            if (order.size() < Rankings.MAX_ITEMS) {
                return false;
            }
            Entry nth = order.stream().skip(Rankings.MAX_ITEMS - 1).findFirst().orElseThrow();
            return before(nth, bestOutside);
        }
    }

    /** Per item type whose top list the candidates decide exactly, their counts; and the types they do not. */
    record Snapshot(Map<String, List<ItemCounts>> exact, Set<String> inexact) {}

    private final Map<String, Type> types = new TreeMap<>();
    private boolean warnedTypes;

    /** One item's latest counts. */
    synchronized void accept(ItemCounts counts) {
        RankingCandidate c = RankingCandidate.of(counts);
        boolean rankable = c.eligible() && RankingValidator.ITEM_ID.matcher(c.itemId()).matches();
        Type t = types.get(c.itemType());
        if (t == null) { // a type with no rankable item still gets its (insufficient-data) artifact
            if (types.size() >= MAX_TYPES) {
                warnOfTooManyTypes(c.itemType());
                return;
            }
            t = new Type();
            types.put(c.itemType(), t);
        }
        Entry old = t.byKey.remove(c.key());
        if (old != null) {
            t.order.remove(old);
        }
        if (!rankable) {
            return;
        }
        Entry e = new Entry(c, counts);
        if (t.order.size() < PER_TYPE) {
            add(t, e);
        } else if (before(e, t.order.last())) {
            Entry worst = t.order.pollLast();
            t.byKey.remove(worst.candidate().key());
            t.outside(worst);
            add(t, e);
        } else {
            t.outside(e);
        }
    }

    private static void add(Type t, Entry e) {
        t.order.add(e);
        t.byKey.put(e.candidate().key(), e);
    }

    /** Forgets everything, before every item is read again. */
    private void warnOfTooManyTypes(String type) {
        if (!warnedTypes) {
            warnedTypes = true;
            LOG.warn("more than {} item types to rank; '{}' and later ones are not ranked", MAX_TYPES, type);
        }
    }

    synchronized void clear() {
        types.clear();
    }

    synchronized Snapshot snapshot() {
        Map<String, List<ItemCounts>> exact = new TreeMap<>();
        Set<String> inexact = new TreeSet<>();
        types.forEach((name, t) -> {
            if (t.exact()) {
                exact.put(name, t.order.stream().map(Entry::counts).toList());
            } else {
                inexact.add(name);
            }
        });
        return new Snapshot(exact, inexact);
    }

    /** Candidates held, all types together (what the memory bound is about). */
    synchronized int size() {
        return types.values().stream().mapToInt(t -> t.order.size()).sum();
    }
}
