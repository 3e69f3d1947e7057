package dev.tally.common.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Sorts, windows and cursors as a request names them: each bad one refused with a message that says what is wrong. */
class RankingCursorTest {

    @Test
    void aCursorComesBackAsTheSamePositionForTheSameList() {
        RankingCursor cursor = new RankingCursor(RankingSort.TOP, RankingWindow.WEEK, RankingPolicy.SIGNED_IN, 25,
                new OrderKey(-12.5, "post-9"));
        String text = cursor.encode();

        assertThat(text).matches("[A-Za-z0-9_-]+");
        assertThat(RankingCursor.parse(text, RankingSort.TOP, RankingWindow.WEEK, RankingPolicy.SIGNED_IN)).isEqualTo(cursor);
    }

    @Test
    void aCursorOfAnotherListOrNotOursIsRefused() {
        String top = new RankingCursor(RankingSort.TOP, RankingWindow.WEEK, RankingPolicy.TRUSTED, 25, new OrderKey(3, "a")).encode();

        assertThatThrownBy(() -> RankingCursor.parse(top, RankingSort.HOT, RankingWindow.ALL, RankingPolicy.TRUSTED))
                .hasMessage("cursor belongs to sort=top window=week policy=trusted, not sort=hot window=all policy=trusted");
        assertThatThrownBy(() -> RankingCursor.parse(top, RankingSort.TOP, RankingWindow.DAY, RankingPolicy.TRUSTED))
                .hasMessageContaining("not sort=top window=day");
        assertThatThrownBy(() -> RankingCursor.parse(top, RankingSort.TOP, RankingWindow.WEEK, RankingPolicy.ALL))
                .hasMessageContaining("not sort=top window=week policy=all");
        assertThatThrownBy(() -> RankingCursor.parse("not base64!", RankingSort.HOT, RankingWindow.ALL, RankingPolicy.ALL))
                .hasMessageContaining("not base64url");
        byte[] key = {0, 0, 0, 0, 0, 0, 0, 0, 'a'};
        for (byte[] forged : new byte[][] {{1, 0, 5, 0}, header(2, 0, 5, 0, 1, key), header(1, 9, 5, 0, 1, key),
                header(1, 0, 9, 0, 1, key), header(1, 0, 5, 7, 1, key), header(1, 0, 5, 0, 0, key), new byte[200]}) {
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(forged);
            assertThatThrownBy(() -> RankingCursor.parse(text, RankingSort.HOT, RankingWindow.ALL, RankingPolicy.ALL))
                    .hasMessage("cursor is not one this API gave out");
        }
    }

    @Test
    void everyListsCursorAtTheEdgesOfItsFieldsComesBack() {
        for (RankingSort sort : RankingSort.values()) {
            for (RankingWindow window : new RankingWindow[] {RankingWindow.HOUR, RankingWindow.ALL}) {
                for (RankingPolicy policy : RankingPolicy.values()) {
                    for (String id : new String[] {"a", "i".repeat(64)}) {
                        RankingCursor cursor = new RankingCursor(sort, window, policy, 1, new OrderKey(0.5, id));
                        assertThat(RankingCursor.parse(cursor.encode(), sort, window, policy)).isEqualTo(cursor);
                    }
                }
            }
        }
        byte[] key = {0, 0, 0, 0, 0, 0, 0, 0, 'a'};
        byte[] tooLong = java.util.Arrays.copyOf(key, 8 + 65);
        java.util.Arrays.fill(tooLong, 8, tooLong.length, (byte) 'i');
        for (byte[] forged : new byte[][] {header(1, RankingSort.values().length, 5, 0, 1, key),
                header(1, 0, RankingWindow.values().length, 0, 1, key), header(1, 0, 5, RankingPolicy.values().length, 1, key),
                header(1, -1, 5, 0, 1, key), header(1, 0, -1, 0, 1, key), header(1, 0, 5, -1, 1, key), header(1, 0, 5, 0, 1, tooLong),
                header(1, 0, 5, 0, 1, java.util.Arrays.copyOf(key, 8))}) {
            String text = Base64.getUrlEncoder().withoutPadding().encodeToString(forged);
            assertThatThrownBy(() -> RankingCursor.parse(text, RankingSort.HOT, RankingWindow.ALL, RankingPolicy.ALL))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("cursor is not one this API gave out");
        }
    }

    private static byte[] header(int version, int sort, int window, int policy, int rank, byte[] key) {
        return java.nio.ByteBuffer.allocate(8 + key.length).put((byte) version).put((byte) sort).put((byte) window)
                .put((byte) policy).putInt(rank).put(key).array();
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
