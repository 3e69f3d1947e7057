package dev.tally.connect;

import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * The value converter for Tally's topics in a Kafka Connect worker ({@code value.converter=
 * dev.tally.connect.TallyConverter}; keys are UTF-8 strings: {@code key.converter=
 * org.apache.kafka.connect.storage.StringConverter}). It does for Tally's single-object encoding what a
 * Schema Registry converter does for registry topics: a record of {@code tally.vote-events} reaches the
 * sink connector as a Connect {@code Struct} named {@code dev.tally.schema.VoteEvent}, with its schema.
 *
 * <p>Which type a topic carries comes from the topic's name ({@link Topics}); the writer schema from the
 * record's fingerprint, resolved against every version Tally ever published (so records written by an
 * older Tally read into the current schema). The Avro to Connect mapping is {@link AvroToConnect}'s.
 *
 * <p>Sinks only: Tally's topics are written by Tally, so {@link #fromConnectData} refuses.
 */
public final class TallyConverter implements Converter {
    private final AvroToConnect avro = new AvroToConnect();
    private boolean isKey;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.isKey = isKey;
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (isKey) {
            throw new DataException("TallyConverter converts values; Tally's keys are UTF-8 strings: use"
                    + " key.converter=org.apache.kafka.connect.storage.StringConverter");
        }
        if (value == null) {
            return SchemaAndValue.NULL; // a tombstone of a compacted topic
        }
        Topic<?, ?> t;
        try {
            t = Topics.byName(topic);
        } catch (IllegalArgumentException e) {
            throw new DataException("TallyConverter reads Tally's topics only: " + e.getMessage());
        }
        if (t.fingerprints().isEmpty()) {
            throw new DataException(topic + " does not hold Avro records (use the ByteArrayConverter)");
        }
        Object decoded;
        try {
            decoded = t.valueSerde().deserializer().deserialize(topic, value);
        } catch (RuntimeException e) {
            throw new DataException(topic + ": not a record Tally wrote (" + value.length + " bytes): " + e.getMessage(), e);
        }
        SpecificRecord record = (SpecificRecord) decoded;
        Schema schema = avro.schema(record.getSchema());
        return new SchemaAndValue(schema, avro.value(record.getSchema(), record));
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        throw new DataException("TallyConverter is for sink connectors: Tally's topics are written by Tally only ("
                + topic + ")");
    }
}
