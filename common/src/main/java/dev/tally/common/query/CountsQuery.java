package dev.tally.common.query;

/** Reads item counts from the count-projector's views, wherever they live. */
public interface CountsQuery {
    /** Counts of the item; zeros for an item never voted on. */
    ItemCountsView counts(String itemType, String itemId) throws Unavailable;
}
