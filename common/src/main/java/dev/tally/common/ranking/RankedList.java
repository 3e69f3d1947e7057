package dev.tally.common.ranking;

/**
 * The ordered lists an item type has: one per sort, and one per window of {@code top}. {@code rising} is read from
 * {@link #TOP_HOUR}, its items above 0 only. The index keeps each list under its own one-byte {@link #slot()}.
 */
public enum RankedList {
    HOT, BEST, TOP_HOUR, TOP_DAY, TOP_WEEK, TOP_MONTH, TOP_YEAR, TOP_ALL, CONTROVERSIAL, NEW;

    private static final RankedList[] VALUES = values();

    /** The list a request of {@code sort} and {@code window} reads. */
    public static RankedList of(RankingSort sort, RankingWindow window) {
        return switch (sort) {
            case HOT -> HOT;
            case BEST -> BEST;
            case CONTROVERSIAL -> CONTROVERSIAL;
            case NEW -> NEW;
            case RISING -> TOP_HOUR;
            case TOP -> switch (window) {
                case HOUR -> TOP_HOUR;
                case DAY -> TOP_DAY;
                case WEEK -> TOP_WEEK;
                case MONTH -> TOP_MONTH;
                case YEAR -> TOP_YEAR;
                case ALL -> TOP_ALL;
            };
        };
    }

    /** The trailing window whose votes this list sums, or null for a list that time alone does not change. */
    public RankingWindow window() {
        return switch (this) {
            case TOP_HOUR -> RankingWindow.HOUR;
            case TOP_DAY -> RankingWindow.DAY;
            case TOP_WEEK -> RankingWindow.WEEK;
            case TOP_MONTH -> RankingWindow.MONTH;
            case TOP_YEAR -> RankingWindow.YEAR;
            default -> null;
        };
    }

    public byte slot() {
        return (byte) ordinal();
    }

    public static RankedList ofSlot(byte slot) {
        if (slot < 0 || slot >= VALUES.length) {
            throw new IllegalArgumentException("no ranked list has slot " + slot);
        }
        return VALUES[slot];
    }
}
