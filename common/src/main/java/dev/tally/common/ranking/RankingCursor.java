package dev.tally.common.ranking;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/**
 * Where the next page of a ranked list starts: after {@code after}, the last item of the page before, which was at
 * {@code rank}, in the list of {@code sort} and {@code window} under {@code policy}. It names a position in the order,
 * not an offset, so votes that move other items neither skip nor repeat anything on the next page; an item that itself
 * crosses the cursor between two pages is shown where it stands when each page is read. The ranks of the next page
 * follow on from {@code rank}.
 *
 * <p>On the wire an opaque base64url string (a version byte, the sort, the window, the policy, the rank, the order
 * key's bytes); a cursor of another list or policy, or one that does not decode, is refused.
 */
public record RankingCursor(RankingSort sort, RankingWindow window, RankingPolicy policy, int rank, OrderKey after) {
    private static final byte VERSION = 1;
    private static final int HEADER = 4 + Integer.BYTES;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    /** The header, then an order key of 8 bytes and at most a 64-character id. */
    private static final int MAX_BYTES = HEADER + 8 + 64;

    public String encode() {
        byte[] key = after.bytes();
        return ENCODER.encodeToString(ByteBuffer.allocate(HEADER + key.length).put(VERSION).put((byte) sort.ordinal())
                .put((byte) window.ordinal()).put((byte) policy.ordinal()).putInt(rank).put(key).array());
    }

    /** The cursor a request carries, for a request of {@code sort}, {@code window} and {@code policy}. */
    public static RankingCursor parse(String text, RankingSort sort, RankingWindow window, RankingPolicy policy) {
        byte[] bytes;
        try {
            bytes = DECODER.decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cursor is not one this API gave out (not base64url)");
        }
        if (bytes.length < HEADER + 9 || bytes.length > MAX_BYTES || bytes[0] != VERSION
                || bytes[1] < 0 || bytes[1] >= RankingSort.values().length
                || bytes[2] < 0 || bytes[2] >= RankingWindow.values().length
                || bytes[3] < 0 || bytes[3] >= RankingPolicy.values().length) {
            throw new IllegalArgumentException("cursor is not one this API gave out");
        }
        RankingSort its = RankingSort.values()[bytes[1]];
        RankingWindow itsWindow = RankingWindow.values()[bytes[2]];
        RankingPolicy itsPolicy = RankingPolicy.values()[bytes[3]];
        if (its != sort || itsWindow != window || itsPolicy != policy) {
            throw new IllegalArgumentException("cursor belongs to sort=" + its.wireName() + " window=" + itsWindow.wireName()
                    + " policy=" + itsPolicy.wireName() + ", not sort=" + sort.wireName() + " window=" + window.wireName()
                    + " policy=" + policy.wireName());
        }
        int rank = ByteBuffer.wrap(bytes, 4, 4).getInt();
        OrderKey key;
        try {
            if (rank < 1) {
                throw new IllegalArgumentException("rank " + rank);
            }
            key = OrderKey.of(Arrays.copyOfRange(bytes, HEADER, bytes.length));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cursor is not one this API gave out");
        }
        return new RankingCursor(sort, window, policy, rank, key);
    }
}
