package dev.tally.projector.reconcile;

import dev.tally.schema.ItemCounts;
import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One item's counts, as the view holds them or as the event log adds them up. Reactions with a count of
 * zero are left out, as the count-projector's fold leaves them out, so two equal tallies compare equal.
 *
 * @param reactions code to count, sorted so drift lines read the same on every run
 */
public record Counts(long up, long down, double weightedUp, double weightedDown, SortedMap<String, Long> reactions) {
    public static final Counts ZERO = new Counts(0, 0, 0.0, 0.0, new TreeMap<>());

    public Counts {
        TreeMap<String, Long> nonZero = new TreeMap<>(reactions);
        nonZero.values().removeIf(n -> n == 0);
        reactions = Collections.unmodifiableSortedMap(nonZero);
    }

    /** The counts a published view holds. */
    public static Counts of(ItemCounts view) {
        return new Counts(view.getUpvotes(), view.getDownvotes(), view.getWeightedUp(), view.getWeightedDown(),
                new TreeMap<>(view.getReactions()));
    }

    public long reaction(String code) {
        return reactions.getOrDefault(code, 0L);
    }

    /** Every reaction code either side counts, sorted. */
    static SortedSet<String> codes(Counts a, Counts b) {
        SortedSet<String> codes = new TreeSet<>(a.reactions.keySet());
        codes.addAll(b.reactions.keySet());
        return codes;
    }
}
