package dev.tally.schemas;

import java.util.OptionalLong;
import java.util.Set;
import org.apache.avro.Schema;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The serde of a topic whose records became batches: writes the batch type {@code B}, and reads both a
 * batch and a record written as a single {@code S} (any recorded version), which it wraps as a batch of
 * one. Which of the two a record is, its single-object fingerprint says.
 */
public final class BatchSerde<B extends SpecificRecord, S extends SpecificRecord>
        implements Serde<B>, Serializer<B>, Deserializer<B>, Fingerprinted {
    private final AvroSerde<B> batches;
    private final AvroSerde<S> singles;
    private final Set<Long> singleFingerprints;
    private final Function<S, B> wrap;

    private BatchSerde(Class<B> batchType, Class<S> singleType, Function<S, B> wrap) {
        this.batches = AvroSerde.of(batchType);
        this.singles = AvroSerde.of(singleType);
        this.wrap = wrap;
        this.singleFingerprints = singles.readableFingerprints();
    }

    /** @param wrap makes a batch of one single record */
    public static <B extends SpecificRecord, S extends SpecificRecord> BatchSerde<B, S> of(
            Class<B> batchType, Class<S> singleType, Function<S, B> wrap) {
        return new BatchSerde<>(batchType, singleType, wrap);
    }

    /** The schema every record is written in: the current batch schema. */
    @Override
    public Schema writtenSchema() {
        return batches.writtenSchema();
    }

    /** The fingerprints of every schema this build reads: any recorded batch or single version. */
    @Override
    public Set<Long> readableFingerprints() {
        return Stream.concat(batches.readableFingerprints().stream(), singleFingerprints.stream())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Whether these single-object bytes hold a single record rather than a batch. */
    boolean isSingle(byte[] bytes) {
        OptionalLong fingerprint = AvroSerde.headerFingerprint(bytes);
        return fingerprint.isPresent() && singleFingerprints.contains(fingerprint.getAsLong());
    }

    public B decode(byte[] bytes) {
        return isSingle(bytes) ? wrap.apply(singles.decode(bytes)) : batches.decode(bytes);
    }

    public byte[] encode(B batch) {
        return batches.encode(batch);
    }

    @Override
    public byte[] serialize(String topic, B data) {
        return data == null ? null : encode(data);
    }

    @Override
    public B deserialize(String topic, byte[] data) {
        return data == null ? null : decode(data);
    }

    @Override
    public Serializer<B> serializer() {
        return this;
    }

    @Override
    public Deserializer<B> deserializer() {
        return this;
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}
}
