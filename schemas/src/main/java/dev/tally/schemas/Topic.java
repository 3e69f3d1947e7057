package dev.tally.schemas;

import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;

/**
 * One Kafka topic with its serdes: the only way code names a topic.
 *
 * @param name       the topic name, as in the contract
 * @param keySerde   serde of the key
 * @param valueSerde serde of the value
 * @param compacted  whether the topic keeps only the latest value per key
 * @param retentionMs how long records are kept when not compacted; -1 keeps them forever
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde, boolean compacted, long retentionMs) {
    public Topic {
        if (name == null || !name.startsWith("tally.")) {
            throw new IllegalArgumentException("topic names start with 'tally.': " + name);
        }
    }

    /** The value serde's schema fingerprints, if its values are Avro single-object records. */
    public Optional<Fingerprinted> fingerprints() {
        return valueSerde instanceof Fingerprinted f ? Optional.of(f) : Optional.empty();
    }
}
