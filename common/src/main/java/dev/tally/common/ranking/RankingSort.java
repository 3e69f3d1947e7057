package dev.tally.common.ranking;

import java.util.Locale;

/**
 * The orders a ranked list can be asked for. Each is a total order: items by their key, highest first, ties by
 * item id, ascending.
 *
 * <table>
 *   <caption>What each sort orders by (s the weighted net score, u and d the weighted up- and downvotes)</caption>
 *   <tr><th>sort</th><th>key</th><th>window</th></tr>
 *   <tr><td>{@code hot}</td><td>{@code sign(s)·log10(max(|s|,1)) + (t − t0)/45000}, t the item's first vote
 *       ({@link dev.tally.common.query.Scores#hot}); it does not change as time passes</td><td>none</td></tr>
 *   <tr><td>{@code best}</td><td>the Wilson lower bound of u / (u + d)</td><td>none</td></tr>
 *   <tr><td>{@code top}</td><td>s over the votes cast in the window</td><td>hour … all</td></tr>
 *   <tr><td>{@code controversial}</td><td>{@code (u+d)^(min(u,d)/max(u,d))}, items with both kinds only
 *       ({@link dev.tally.common.query.Scores#controversy})</td><td>none</td></tr>
 *   <tr><td>{@code rising}</td><td>s over the votes cast in the last hour</td><td>none</td></tr>
 *   <tr><td>{@code new}</td><td>the item's first vote, newest first</td><td>none</td></tr>
 * </table>
 */
public enum RankingSort {
    HOT(false), BEST(false), TOP(true), CONTROVERSIAL(false), RISING(false), NEW(false);

    private final boolean windowed;

    RankingSort(boolean windowed) {
        this.windowed = windowed;
    }

    /** Whether a request names a window ({@code top} only). */
    public boolean windowed() {
        return windowed;
    }

    /** The name in a request and an answer. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The sort a request names; an unknown name is refused with the list of known ones. */
    public static RankingSort parse(String name) {
        return WireNames.parse(values(), RankingSort::wireName, "sort", name);
    }

    /** The window a request with this sort may name: {@code top}'s defaults to {@code all}; other sorts take none. */
    public RankingWindow window(String requested) {
        if (!windowed) {
            if (requested != null) {
                throw new IllegalArgumentException("sort=" + wireName() + " takes no window; only sort=top does");
            }
            return RankingWindow.ALL;
        }
        return requested == null ? RankingWindow.ALL : RankingWindow.parse(requested);
    }
}
