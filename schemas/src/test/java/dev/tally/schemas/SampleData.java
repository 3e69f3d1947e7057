package dev.tally.schemas;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/** A value for every field of a schema, none of them empty, so a round trip exercises every type it uses. */
final class SampleData {
    private SampleData() {}

    static GenericRecord of(Schema record) {
        return (GenericRecord) value(record, 1);
    }

    private static Object value(Schema schema, int seed) {
        return switch (schema.getType()) {
            case RECORD -> {
                GenericData.Record r = new GenericData.Record(schema);
                int i = seed;
                for (Schema.Field f : schema.getFields()) {
                    r.put(f.pos(), value(f.schema(), ++i));
                }
                yield r;
            }
            case ENUM -> new GenericData.EnumSymbol(schema, schema.getEnumSymbols().get(seed % schema.getEnumSymbols().size()));
            case ARRAY -> new GenericData.Array<>(schema, List.of(value(schema.getElementType(), seed)));
            case MAP -> Map.of("k" + seed, value(schema.getValueType(), seed));
            case UNION -> value(schema.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst()
                    .orElse(schema.getTypes().get(0)), seed);
            case STRING -> "s" + seed;
            case BYTES -> ByteBuffer.wrap(new byte[] {(byte) seed});
            case FIXED -> new GenericData.Fixed(schema, new byte[schema.getFixedSize()]);
            case INT -> seed;
            case LONG -> 1_700_000_000_000L + seed;
            case FLOAT -> seed + 0.5f;
            case DOUBLE -> seed + 0.25;
            case BOOLEAN -> seed % 2 == 0;
            case NULL -> null;
        };
    }
}
