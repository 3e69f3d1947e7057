package dev.tally.common.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Sorts, windows and cursors as a request names them: each bad one refused with a message that says what is wrong. */
class RankingCursorTest {

    @Test
    void aCursorComesBackAsTheSamePositionForTheSameList() {
        RankingCursor cursor = new RankingCursor(RankingSort.TOP, RankingWindow.WEEK, new OrderKey(-12.5, "post-9"));
        String text = cursor.encode();

        assertThat(text).matches("[A-Za-z0-9_-]+");
        assertThat(RankingCursor.parse(text, RankingSort.TOP, RankingWindow.WEEK)).isEqualTo(cursor);
    }

    @Test
    void aCursorOfAnotherListOrNotOursIsRefused() {
        String top = new RankingCursor(RankingSort.TOP, RankingWindow.WEEK, new OrderKey(3, "a")).encode();

        assertThatThrownBy(() -> RankingCursor.parse(top, RankingSort.HOT, RankingWindow.ALL))
                .hasMessage("cursor belongs to sort=top window=week, not sort=hot window=all");
        assertThatThrownBy(() -> RankingCursor.parse(top, RankingSort.TOP, RankingWindow.DAY))
                .hasMessageContaining("not sort=top window=day");
        assertThatThrownBy(() -> RankingCursor.parse("not base64!", RankingSort.HOT, RankingWindow.ALL))
                .hasMessageContaining("not base64url");
        for (byte[] forged : new byte[][] {{1, 0, 5}, {2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 'a'}, {1, 9, 5, 0, 0, 0, 0, 0, 0, 0, 0, 'a'},
                {1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 'a'}, new byte[200]}) {
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(forged);
            assertThatThrownBy(() -> RankingCursor.parse(text, RankingSort.HOT, RankingWindow.ALL))
                    .hasMessage("cursor is not one this API gave out");
        }
    }

    @Test
    void sortsAndWindowsAreNamedExactlyAndOnlyTopTakesAWindow() {
        assertThat(RankingSort.parse("controversial")).isEqualTo(RankingSort.CONTROVERSIAL);
        assertThatThrownBy(() -> RankingSort.parse("Hot"))
                .hasMessage("sort must be one of hot, best, top, controversial, rising, new, got 'Hot'");
        assertThat(RankingSort.TOP.window(null)).isEqualTo(RankingWindow.ALL);
        assertThat(RankingSort.TOP.window("day")).isEqualTo(RankingWindow.DAY);
        assertThat(RankingSort.HOT.window(null)).isEqualTo(RankingWindow.ALL);
        assertThatThrownBy(() -> RankingSort.HOT.window("day")).hasMessage("sort=hot takes no window; only sort=top does");
        assertThatThrownBy(() -> RankingSort.TOP.window("fortnight"))
                .hasMessage("window must be one of hour, day, week, month, year, all, got 'fortnight'");
        assertThat(RankingWindow.MONTH.length().toDays()).isEqualTo(30);
        assertThat(RankingWindow.ALL.length()).isNull();
    }
}
