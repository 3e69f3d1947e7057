package dev.tally.schemas;

/**
 * The key of a fraud verdict in {@code tally.fraud-flags}: what kind of verdict, about what. The fraud-detector
 * writes these, the vote-processor and the ingest API look them up; {@link #toString} is the wire form.
 */
public record FlagKey(Kind kind, String subject) {
    /** The kinds of verdict and their key prefixes. */
    public enum Kind {
        /** many voters from one network: a challenge ({@code net:<network>}) */
        CHALLENGE("net:"),
        /** a network over its daily quota ({@code netday:<network>}) */
        NETWORK_DAY("netday:"),
        /** a network over its daily quota on one item ({@code netitem:<network>:<type>:<id>}) */
        NETWORK_ITEM("netitem:"),
        /** an item under a burst ({@code item:<type>:<id>}) */
        BURST("item:");

        final String prefix;

        Kind(String prefix) {
            this.prefix = prefix;
        }
    }

    public static FlagKey challenge(String network) {
        return new FlagKey(Kind.CHALLENGE, network);
    }

    public static FlagKey networkDay(String network) {
        return new FlagKey(Kind.NETWORK_DAY, network);
    }

    public static FlagKey networkItem(String network, ItemKey item) {
        return new FlagKey(Kind.NETWORK_ITEM, network + ":" + item);
    }

    public static FlagKey burst(ItemKey item) {
        return new FlagKey(Kind.BURST, item.toString());
    }

    @Override
    public String toString() {
        return kind.prefix + subject;
    }
}
