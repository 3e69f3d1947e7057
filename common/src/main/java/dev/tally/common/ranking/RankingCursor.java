package dev.tally.common.ranking;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/**
 * Where the next page of a ranked list starts: after {@code after}, the last item of the page before, in the list
 * of {@code sort} and {@code window}. It names a position in the order, not an offset, so votes that move other
 * items neither skip nor repeat anything on the next page; an item that itself crosses the cursor between two pages
 * is shown where it stands when each page is read.
 *
 * <p>On the wire an opaque base64url string (a version byte, the sort, the window, the order key's bytes); a cursor
 * from another sort or window, or one that does not decode, is refused.
 */
public record RankingCursor(RankingSort sort, RankingWindow window, OrderKey after) {
    private static final byte VERSION = 1;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    /** A version, a sort, a window, then an order key of at most 8 bytes and a 64-character id. */
    private static final int MAX_BYTES = 3 + 8 + 64;

    public String encode() {
        byte[] key = after.bytes();
        return ENCODER.encodeToString(ByteBuffer.allocate(3 + key.length).put(VERSION).put((byte) sort.ordinal())
                .put((byte) window.ordinal()).put(key).array());
    }

    /** The cursor a request carries, for a request of {@code sort} and {@code window}. */
    public static RankingCursor parse(String text, RankingSort sort, RankingWindow window) {
        byte[] bytes;
        try {
            bytes = DECODER.decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cursor is not one this API gave out (not base64url)");
        }
        if (bytes.length < 3 + 9 || bytes.length > MAX_BYTES || bytes[0] != VERSION
                || bytes[1] < 0 || bytes[1] >= RankingSort.values().length
                || bytes[2] < 0 || bytes[2] >= RankingWindow.values().length) {
            throw new IllegalArgumentException("cursor is not one this API gave out");
        }
        RankingSort its = RankingSort.values()[bytes[1]];
        RankingWindow itsWindow = RankingWindow.values()[bytes[2]];
        if (its != sort || itsWindow != window) {
            throw new IllegalArgumentException("cursor belongs to sort=" + its.wireName() + " window=" + itsWindow.wireName()
                    + ", not sort=" + sort.wireName() + " window=" + window.wireName());
        }
        OrderKey key;
        try {
            key = OrderKey.of(Arrays.copyOfRange(bytes, 3, bytes.length));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cursor is not one this API gave out");
        }
        return new RankingCursor(sort, window, key);
    }
}
