package dev.tally.projector.reconcile;

import dev.tally.schema.CountDelta;
import dev.tally.schemas.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One item compared: what {@code tally.item-counts} holds ({@code actual}) against what the projected
 * part of the event log adds up to ({@code expected}).
 *
 * <p>Drift is |Δup| + |Δdown| + Σ|Δreaction|, plus 1 for each weighted count that differs from its
 * expected value by more than {@value #WEIGHT_TOLERANCE}: weighted counts are doubles, so a mismatch
 * there is counted as one unit rather than by its size, and stays visible in the total instead of in a
 * separate figure nobody reads.
 *
 * @param unprojected events of this item past the view's watermarks: written to the log but not yet
 *                    folded into the view, so not drift (a diagnostic: large and steady means a stuck projector)
 */
public record ItemDrift(String itemType, String itemId, Counts actual, Counts expected, long unprojected) {
    public static final double WEIGHT_TOLERANCE = 1e-9;

    public String item() {
        return Topics.itemKey(itemType, itemId);
    }

    public long drift() {
        long drift = Math.abs(actual.up() - expected.up()) + Math.abs(actual.down() - expected.down());
        for (String code : Counts.codes(actual, expected)) {
            drift += Math.abs(actual.reaction(code) - expected.reaction(code));
        }
        if (Math.abs(actual.weightedUp() - expected.weightedUp()) > WEIGHT_TOLERANCE) {
            drift++;
        }
        if (Math.abs(actual.weightedDown() - expected.weightedDown()) > WEIGHT_TOLERANCE) {
            drift++;
        }
        return drift;
    }

    /**
     * The operator's line, each figure as VIEW≠LOG ({@code =} where they agree), reactions that differ
     * only, weighted counts only when they differ:
     * {@code post:42 up 10≠12 down 3=3 reactions {like:1≠2}}.
     */
    public String line() {
        StringJoiner reactions = new StringJoiner(" ", "{", "}");
        for (String code : Counts.codes(actual, expected)) {
            if (actual.reaction(code) != expected.reaction(code)) {
                reactions.add(code + ":" + pair(actual.reaction(code), expected.reaction(code)));
            }
        }
        StringBuilder line = new StringBuilder(item())
                .append(" up ").append(pair(actual.up(), expected.up()))
                .append(" down ").append(pair(actual.down(), expected.down()))
                .append(" reactions ").append(reactions);
        if (Math.abs(actual.weightedUp() - expected.weightedUp()) > WEIGHT_TOLERANCE) {
            line.append(" weighted_up ").append(actual.weightedUp()).append('≠').append(expected.weightedUp());
        }
        if (Math.abs(actual.weightedDown() - expected.weightedDown()) > WEIGHT_TOLERANCE) {
            line.append(" weighted_down ").append(actual.weightedDown()).append('≠').append(expected.weightedDown());
        }
        return line.toString();
    }

    private static String pair(long view, long log) {
        return view + (view == log ? "=" : "≠") + log;
    }

    /**
     * The delta that brings the view to the log: expected − actual for every count. Its
     * {@code source_partition} and {@code through_offset} are -1, so the count-projector folds it without
     * moving any watermark (it reflects no command).
     */
    public CountDelta correction() {
        Map<String, Long> reactions = new HashMap<>();
        for (String code : Counts.codes(actual, expected)) {
            long delta = expected.reaction(code) - actual.reaction(code);
            if (delta != 0) {
                reactions.put(code, delta);
            }
        }
        return CountDelta.newBuilder().setItemType(itemType).setItemId(itemId)
                .setUpvotes(expected.up() - actual.up()).setDownvotes(expected.down() - actual.down())
                .setWeightedUp(expected.weightedUp() - actual.weightedUp())
                .setWeightedDown(expected.weightedDown() - actual.weightedDown())
                .setReactions(reactions).setSourcePartition(-1).setThroughOffset(-1)
                .build();
    }
}
