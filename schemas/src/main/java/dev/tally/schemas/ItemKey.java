package dev.tally.schemas;

/**
 * An item's identity in every item-keyed topic and store, written {@code type:id}. A type never holds a
 * colon ({@code [a-z][a-z0-9_-]*}), so the first colon splits it from the id (which may hold more).
 */
public record ItemKey(String type, String id) {
    public ItemKey {
        if (type == null || id == null || type.contains(":")) {
            throw new IllegalArgumentException("an item key needs a type without ':' and an id, got " + type + " / " + id);
        }
    }

    /** Reads {@code type:id}. */
    public static ItemKey parse(String key) {
        int colon = key.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("not an item key (type:id): '" + key + "'");
        }
        return new ItemKey(key.substring(0, colon), key.substring(colon + 1));
    }

    @Override
    public String toString() {
        return type + ":" + id;
    }
}
