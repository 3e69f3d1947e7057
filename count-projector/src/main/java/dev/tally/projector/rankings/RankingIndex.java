package dev.tally.projector.rankings;

import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedList;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * The layout of the ranking index store, one RocksDB store per partition whose byte order is every list's order:
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>entry</th><th>key</th><th>value</th></tr>
 *   <tr><td>an item in a list</td><td>the list's slot, the item type, a 0 byte, the item's {@link OrderKey}</td>
 *       <td>{@link Entry}: its upvotes, downvotes and weighted score</td></tr>
 *   <tr><td>when an item's windowed keys change next</td><td>{@value #DUE}, the time (8 bytes), the item key</td>
 *       <td>empty</td></tr>
 *   <tr><td>the mark: how many batches were written, and the offset of the event log the partition reflects</td>
 *       <td>{@value #POSITION}</td><td>two 8-byte numbers</td></tr>
 *   <tr><td>the z the Wilson bounds were computed with</td><td>{@value #Z}</td><td>8 bytes</td></tr>
 * </table>
 * An item type matches {@code [a-z][a-z0-9_-]*}, so the 0 byte after it ends it and one type's list is one range.
 */
final class RankingIndex {
    static final byte DUE = 0x40;
    static final byte POSITION = 0x50;
    static final byte Z = 0x51;

    private RankingIndex() {}

    /** An item's place in a list, and what a page shows of it. */
    record Entry(OrderKey place, long upvotes, long downvotes, double weightedScore) {}

    static byte[] listKey(RankedList list, String itemType, OrderKey place) {
        byte[] prefix = listPrefix(list, itemType);
        byte[] key = place.bytes();
        byte[] out = Arrays.copyOf(prefix, prefix.length + key.length);
        System.arraycopy(key, 0, out, prefix.length, key.length);
        return out;
    }

    /** Every key of one type's list starts with this. */
    static byte[] listPrefix(RankedList list, String itemType) {
        byte[] type = itemType.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(type.length + 2).put(list.slot()).put(type).put((byte) 0).array();
    }

    static OrderKey place(byte[] listKey, int prefixLength) {
        return OrderKey.of(Arrays.copyOfRange(listKey, prefixLength, listKey.length));
    }

    static byte[] value(long upvotes, long downvotes, double weightedScore) {
        return ByteBuffer.allocate(24).putLong(upvotes).putLong(downvotes).putDouble(weightedScore).array();
    }

    static Entry entry(OrderKey place, byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        return new Entry(place, b.getLong(), b.getLong(), b.getDouble());
    }

    static byte[] dueKey(Instant at, String itemKey) {
        byte[] item = itemKey.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(9 + item.length).put(DUE).putLong(at.toEpochMilli()).put(item).array();
    }

    static String dueItem(byte[] dueKey) {
        return new String(dueKey, 9, dueKey.length - 9, StandardCharsets.UTF_8);
    }

    /** The first key after every due entry at or before {@code now}. */
    static byte[] dueUntil(Instant now) {
        return ByteBuffer.allocate(9).put(DUE).putLong(now.toEpochMilli() + 1).array();
    }

    static byte[] single(byte what) {
        return new byte[] {what};
    }

    static byte[] mark(long writes, long offset) {
        return ByteBuffer.allocate(16).putLong(writes).putLong(offset).array();
    }

    static long markWrites(byte[] mark) {
        return ByteBuffer.wrap(mark).getLong(0);
    }

    /** The offset of the event log a mark's partition reflects: every event before it is in the lists. */
    static long markOffset(byte[] mark) {
        return ByteBuffer.wrap(mark).getLong(8);
    }

    static byte[] z(double z) {
        return ByteBuffer.allocate(8).putDouble(z).array();
    }
}
