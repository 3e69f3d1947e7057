package dev.tally.schemas;

import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;

/**
 * One Kafka topic with its serdes: the only way code names a topic.
 *
 * @param name       the topic name: a namespace, a dot, the topic's own name ({@code tally.vote-events}; see
 *                   {@link Namespace})
 * @param keySerde   serde of the key
 * @param valueSerde serde of the value
 * @param compacted  whether the topic keeps only the latest value per key
 * @param retentionMs how long records are kept when not compacted; -1 keeps them forever
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, boolean compacted, long retentionMs) {
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z][a-z0-9_]*\\.[a-z][a-z-]*");

    public Topic {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a topic name is a namespace, a dot and a name ('tally.vote-events'): " + name);
        }
    }

    /** The name without its namespace: {@code vote-events}. */
    public String localName() {
        return name.substring(name.indexOf('.') + 1);
    }

    /** The value serde's schema fingerprints, if its values are Avro single-object records. */
    public Optional<Fingerprinted> fingerprints() {
        return valueSerde instanceof Fingerprinted f ? Optional.of(f) : Optional.empty();
    }
}
