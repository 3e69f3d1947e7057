package dev.tally.common.ranking;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * An item's place in a ranked list as bytes whose unsigned, byte-by-byte order (RocksDB's default comparator) is
 * the list's order: the ranking key, highest first, then the item id, ascending. A page is then a range scan of a
 * store keyed by these bytes, starting after the last key of the page before.
 *
 * <p>Layout: 8 bytes of the key, then the item id in UTF-8. The key's IEEE 754 bits are made to sort as unsigned
 * numbers in the order of the values (negative values' bits inverted, positive values' sign bit set), then inverted
 * so that higher values come first. {@code -0.0} is {@code 0.0}; NaN has no place and is refused.
 */
public record OrderKey(double key, String itemId) {
    private static final int KEY_BYTES = Long.BYTES;

    public OrderKey {
        if (Double.isNaN(key)) {
            throw new IllegalArgumentException("a ranking key must be a number, for item " + itemId);
        }
        if (itemId == null || itemId.isEmpty()) {
            throw new IllegalArgumentException("an item id is required");
        }
        key = key == 0.0 ? 0.0 : key; // -0.0 and 0.0 are one place
    }

    public byte[] bytes() {
        byte[] id = itemId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(KEY_BYTES + id.length).putLong(~ascending(key)).put(id).array();
    }

    public static OrderKey of(byte[] bytes) {
        if (bytes.length <= KEY_BYTES) {
            throw new IllegalArgumentException("an order key is 8 bytes and an item id, got " + bytes.length + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long bits = ~buffer.getLong();
        double key = Double.longBitsToDouble(bits < 0 ? bits ^ Long.MIN_VALUE : ~bits);
        if (Double.isNaN(key)) {
            throw new IllegalArgumentException("an order key is a number; no list holds NaN");
        }
        return new OrderKey(key, new String(bytes, KEY_BYTES, bytes.length - KEY_BYTES, StandardCharsets.UTF_8));
    }

    /** The value's bits, turned so that their unsigned order is the values' order. */
    private static long ascending(double value) {
        long bits = Double.doubleToLongBits(value);
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }
}
