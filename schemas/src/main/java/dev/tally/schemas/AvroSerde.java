package dev.tally.schemas;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde for a generated Avro record in Avro's single-object encoding: {@code C3 01}, the 8-byte
 * CRC-64-AVRO fingerprint of the writer schema, then the binary body. Records written with any version
 * recorded in {@link SchemaHistory} are read into the current class.
 */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T>, Serializer<T>, Deserializer<T>, Fingerprinted {
    static {
        // Avro 1.12 instantiates only trusted classes; trust Tally's generated records, keep the defaults.
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(),
                cls -> cls.getName().startsWith("dev.tally.schema.")));
    }

    private final Class<T> type;
    private final Schema schema;
    private final BinaryMessageEncoder<T> encoder;
    private final BinaryMessageDecoder<T> decoder;

    private AvroSerde(Class<T> type) {
        this.type = type;
        SpecificData model = SpecificData.getForClass(type);
        this.schema = model.getSchema(type);
        // no copy: encode() copies the thread's buffer into the record's bytes at once, so one copy, not two
        this.encoder = new BinaryMessageEncoder<>(model, schema, false);
        this.decoder = new BinaryMessageDecoder<>(model, schema, SchemaHistory.store());
    }

    public static <T extends SpecificRecord> AvroSerde<T> of(Class<T> type) {
        return new AvroSerde<>(type);
    }

    /**
     * The writer schema's fingerprint in single-object bytes ({@code C3 01}, then 8 bytes little-endian),
     * or empty if the bytes are not single-object encoded.
     */
    public static OptionalLong headerFingerprint(byte[] bytes) {
        if (bytes == null || bytes.length < 10 || bytes[0] != (byte) 0xC3 || bytes[1] != 0x01) {
            return OptionalLong.empty();
        }
        long fingerprint = 0;
        for (int i = 9; i >= 2; i--) {
            fingerprint = (fingerprint << 8) | (bytes[i] & 0xFF);
        }
        return OptionalLong.of(fingerprint);
    }

    /** The current schema: the one every record this serde writes carries the fingerprint of. */
    @Override
    public Schema writtenSchema() {
        return schema;
    }

    /** The fingerprints of every schema of this type this build reads: each recorded version, and the current one. */
    @Override
    public Set<Long> readableFingerprints() {
        return Stream.concat(SchemaHistory.versions(schema.getFullName()).stream(), Stream.of(schema))
                .map(SchemaNormalization::parsingFingerprint64).collect(Collectors.toUnmodifiableSet());
    }

    public byte[] encode(T value) {
        try {
            ByteBuffer buf = encoder.encode(value);
            byte[] out = new byte[buf.remaining()];
            buf.get(out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("encoding " + type.getSimpleName(), e);
        }
    }

    public T decode(byte[] bytes) {
        try {
            return decoder.decode(bytes);
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot decode " + type.getSimpleName() + " (" + bytes.length
                    + " bytes): " + e.getMessage(), e);
        }
    }

    @Override
    public byte[] serialize(String topic, T data) {
        return data == null ? null : encode(data);
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        return data == null ? null : decode(data);
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}
}
