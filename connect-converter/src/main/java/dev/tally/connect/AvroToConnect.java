package dev.tally.connect;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Avro schemas and values as Connect schemas and values, for the types Tally's schemas use:
 *
 * <table>
 *   <caption>Avro to Connect</caption>
 *   <tr><th>Avro</th><th>Connect</th></tr>
 *   <tr><td>record</td><td>struct, named by the record's full name, fields in order</td></tr>
 *   <tr><td>{@code ["null", T]}</td><td>T, optional</td></tr>
 *   <tr><td>enum</td><td>string (the symbol)</td></tr>
 *   <tr><td>array, map (string keys)</td><td>array, map</td></tr>
 *   <tr><td>long {@code timestamp-millis}</td><td>{@link Timestamp}</td></tr>
 *   <tr><td>string, int, long, float, double, boolean, bytes</td><td>the same</td></tr>
 * </table>
 *
 * Anything else (a union of two non-null types, fixed) is a {@link DataException} naming the field:
 * no Tally schema has one, and a guess would be read as the truth.
 */
final class AvroToConnect {
    private final Map<Schema, org.apache.kafka.connect.data.Schema> schemas = new ConcurrentHashMap<>();

    /** The Connect schema of an Avro schema (cached: one per writer schema). */
    org.apache.kafka.connect.data.Schema schema(Schema avro) {
        return schemas.computeIfAbsent(avro, a -> build(a, false, a.getFullName()));
    }

    /** The Connect value of an Avro value of {@code avro}, as {@link #schema} describes it. */
    Object value(Schema avro, Object value) {
        return convert(avro, schema(avro), value);
    }

    private static org.apache.kafka.connect.data.Schema build(Schema avro, boolean optional, String where) {
        if (avro.getType() == Schema.Type.UNION) {
            List<Schema> types = avro.getTypes();
            if (types.size() == 2 && types.get(0).getType() == Schema.Type.NULL) {
                return build(types.get(1), true, where);
            }
            throw new DataException(where + ": a union other than [\"null\", T] has no Connect schema: " + avro);
        }
        SchemaBuilder b = switch (avro.getType()) {
            case RECORD -> {
                SchemaBuilder struct = SchemaBuilder.struct().name(avro.getFullName());
                for (Schema.Field f : avro.getFields()) {
                    struct.field(f.name(), build(f.schema(), false, where + "." + f.name()));
                }
                if (avro.getDoc() != null) {
                    struct.doc(avro.getDoc());
                }
                yield struct;
            }
            case ENUM, STRING -> SchemaBuilder.string();
            case ARRAY -> SchemaBuilder.array(build(avro.getElementType(), false, where + "[]"));
            case MAP -> SchemaBuilder.map(org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                    build(avro.getValueType(), false, where + "{}"));
            case LONG -> isTimestamp(avro) ? Timestamp.builder() : SchemaBuilder.int64();
            case INT -> SchemaBuilder.int32();
            case FLOAT -> SchemaBuilder.float32();
            case DOUBLE -> SchemaBuilder.float64();
            case BOOLEAN -> SchemaBuilder.bool();
            case BYTES -> SchemaBuilder.bytes();
            default -> throw new DataException(where + ": Avro " + avro.getType() + " has no Connect schema here");
        };
        return optional ? b.optional().build() : b.build();
    }

    private static boolean isTimestamp(Schema avro) {
        LogicalType logical = avro.getLogicalType();
        return logical instanceof LogicalTypes.TimestampMillis;
    }

    private static Object convert(Schema avro, org.apache.kafka.connect.data.Schema connect, Object value) {
        if (value == null) {
            return null;
        }
        return switch (avro.getType()) {
            case RECORD -> {
                IndexedRecord record = (IndexedRecord) value;
                Struct struct = new Struct(connect);
                for (Schema.Field f : avro.getFields()) {
                    struct.put(f.name(), convert(f.schema(), connect.field(f.name()).schema(), record.get(f.pos())));
                }
                yield struct;
            }
            case UNION -> convert(avro.getTypes().get(1), connect, value);
            case ENUM, STRING -> value.toString(); // a generated enum, a GenericEnumSymbol, a String or a Utf8
            case ARRAY -> {
                List<Object> out = new ArrayList<>();
                for (Object element : (Iterable<?>) value) {
                    out.add(convert(avro.getElementType(), connect.valueSchema(), element));
                }
                yield out;
            }
            case MAP -> {
                Map<String, Object> out = new LinkedHashMap<>();
                ((Map<?, ?>) value).forEach((k, v) -> out.put(k.toString(), convert(avro.getValueType(), connect.valueSchema(), v)));
                yield out;
            }
            case LONG -> isTimestamp(avro) ? (value instanceof Instant i ? Date.from(i) : new Date((Long) value)) : value;
            case BYTES -> {
                ByteBuffer buffer = ((ByteBuffer) value).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                yield bytes;
            }
            default -> value;
        };
    }
}
