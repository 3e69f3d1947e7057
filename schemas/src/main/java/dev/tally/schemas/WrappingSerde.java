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
 * The serde of a record type that superseded another by wrapping it — a topic whose records became batches, a
 * store whose values gained company: writes the wrapping type {@code B}, and reads both a {@code B} and a
 * record written as a plain {@code S} (any recorded version), which it wraps. Which of the two a record is,
 * its single-object fingerprint says.
 */
public final class WrappingSerde<B extends SpecificRecord, S extends SpecificRecord>
        implements Serde<B>, Serializer<B>, Deserializer<B>, Fingerprinted {
    private final AvroSerde<B> wrappers;
    private final AvroSerde<S> plains;
    private final Set<Long> plainFingerprints;
    private final Function<S, B> wrap;

    private WrappingSerde(Class<B> wrapperType, Class<S> plainType, Function<S, B> wrap) {
        this.wrappers = AvroSerde.of(wrapperType);
        this.plains = AvroSerde.of(plainType);
        this.wrap = wrap;
        this.plainFingerprints = plains.readableFingerprints();
    }

    /** @param wrap makes a {@code B} of one plain {@code S} (a batch of one, a value without the rest) */
    public static <B extends SpecificRecord, S extends SpecificRecord> WrappingSerde<B, S> of(
            Class<B> wrapperType, Class<S> plainType, Function<S, B> wrap) {
        return new WrappingSerde<>(wrapperType, plainType, wrap);
    }

    /** The schema every record is written in: the current {@code B} schema. */
    @Override
    public Schema writtenSchema() {
        return wrappers.writtenSchema();
    }

    /** The fingerprints of every schema this build reads: any recorded {@code B} or {@code S} version. */
    @Override
    public Set<Long> readableFingerprints() {
        return Stream.concat(wrappers.readableFingerprints().stream(), plainFingerprints.stream())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Whether these single-object bytes hold a plain {@code S} rather than a {@code B}. */
    boolean isPlain(byte[] bytes) {
        OptionalLong fingerprint = AvroSerde.headerFingerprint(bytes);
        return fingerprint.isPresent() && plainFingerprints.contains(fingerprint.getAsLong());
    }

    public B decode(byte[] bytes) {
        return isPlain(bytes) ? wrap.apply(plains.decode(bytes)) : wrappers.decode(bytes);
    }

    public byte[] encode(B value) {
        return wrappers.encode(value);
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
