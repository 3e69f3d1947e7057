package dev.tally.schemas;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.MissingSchemaException;
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
 *
 * <p>The bytes go through Avro's buffered coders, one pair per thread, reading the record's array in place. Avro's
 * own {@code BinaryMessageEncoder} and {@code BinaryMessageDecoder} write the same bytes, but through its unbuffered
 * ("direct") coders over a synchronized stream, one call per byte of every number, a real share of the node's CPU
 * (docs/decisions/0005-avro-single-object-encoding.md).
 */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T>, Serializer<T>, Deserializer<T>, Fingerprinted {
    static {
        // Avro 1.12 instantiates only trusted classes; trust Tally's generated records, keep the defaults.
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(),
                cls -> cls.getName().startsWith("dev.tally.schema.")));
    }

    private static final int HEADER_BYTES = 10;
    /** Each thread's buffer and coders, reused by every serde: a serde encodes or decodes one record at a time per thread. */
    private static final ThreadLocal<Coders> CODERS = ThreadLocal.withInitial(Coders::new);
    /** A thread that coded a record larger than this (a ranking artifact) lets its buffer and coders go, not keep them. */
    private static final int KEPT_BYTES = 1 << 20;

    private final Class<T> type;
    private final SpecificData model;
    private final Schema schema;
    private final long fingerprint;
    private final byte[] header;
    private final DatumWriter<T> writer;
    private final ConcurrentMap<Long, DatumReader<T>> readers = new ConcurrentHashMap<>(); // by writer fingerprint

    private AvroSerde(Class<T> type) {
        this.type = type;
        this.model = SpecificData.getForClass(type);
        this.schema = model.getSchema(type);
        this.fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        this.header = new byte[HEADER_BYTES];
        header[0] = (byte) 0xC3;
        header[1] = 0x01;
        for (int i = 0; i < 8; i++) {
            header[2 + i] = (byte) (fingerprint >>> (8 * i));
        }
        @SuppressWarnings("unchecked")
        DatumWriter<T> w = (DatumWriter<T>) model.createDatumWriter(schema);
        this.writer = w;
    }

    private static final class Coders {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        BinaryEncoder encoder;
        BinaryDecoder decoder;
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
        Coders coders = CODERS.get();
        coders.out.reset();
        coders.out.write(header, 0, HEADER_BYTES);
        coders.encoder = EncoderFactory.get().binaryEncoder(coders.out, coders.encoder);
        try {
            writer.write(value, coders.encoder);
            coders.encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding " + type.getSimpleName(), e);
        }
        byte[] bytes = coders.out.toByteArray();
        releaseAfter(bytes);
        return bytes;
    }

    public T decode(byte[] bytes) {
        try {
            OptionalLong written = headerFingerprint(bytes);
            if (written.isEmpty()) {
                throw new BadHeaderException("not single-object encoded: no C3 01 header and fingerprint");
            }
            DatumReader<T> reader = readers.computeIfAbsent(written.getAsLong(), this::readerFor);
            Coders coders = CODERS.get();
            coders.decoder = DecoderFactory.get().binaryDecoder(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES, coders.decoder);
            T value = reader.read(null, coders.decoder);
            releaseAfter(bytes);
            return value;
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot decode " + type.getSimpleName() + " (" + bytes.length
                    + " bytes): " + e.getMessage(), e);
        }
    }

    /**
     * Lets this thread's buffer and coders go after a record over {@link #KEPT_BYTES}: the encoder's buffer has grown to
     * the record's size, and the decoder holds the bytes it read until its next record.
     */
    private static void releaseAfter(byte[] record) {
        if (record.length > KEPT_BYTES) {
            CODERS.remove();
        }
    }

    /** Reads what the schema of this fingerprint wrote into the current class; the current one or any recorded version. */
    @SuppressWarnings("unchecked")
    private DatumReader<T> readerFor(long written) {
        Schema writerSchema = written == fingerprint ? schema : SchemaHistory.store().findByFingerprint(written);
        if (writerSchema == null) {
            throw new MissingSchemaException("Cannot resolve schema for fingerprint: " + written);
        }
        return (DatumReader<T>) model.createDatumReader(writerSchema, schema);
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
