package dev.tally.common.ranking;

import java.time.Duration;
import java.util.Locale;

/**
 * The trailing windows of {@code sort=top}: the net score of the votes <em>cast in</em> the window, so an item falls
 * as its old votes leave it, without a new vote. A month is 30 days and a year 365.
 */
public enum RankingWindow {
    HOUR(Duration.ofHours(1)), DAY(Duration.ofDays(1)), WEEK(Duration.ofDays(7)), MONTH(Duration.ofDays(30)),
    YEAR(Duration.ofDays(365)), ALL(null);

    private final Duration length;

    RankingWindow(Duration length) {
        this.length = length;
    }

    /** The window's length; null for {@code all}, which never lets a vote go. */
    public Duration length() {
        return length;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RankingWindow parse(String name) {
        return WireNames.parse(values(), RankingWindow::wireName, "window", name);
    }
}
