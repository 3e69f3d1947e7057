package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.VoteEvent;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The build's compatibility gate: downstream consumers read Tally's topics with any schema version
 * they were built with, so every current schema must read data written by each recorded version
 * (backward) and be readable by each of them (forward). A change that breaks this fails
 * {@code mvn verify}; a new compatible version must be recorded under {@code avro-history/}.
 */
class SchemaCompatibilityGateTest {

    static Stream<Schema> currentSchemas() {
        return CurrentSchemas.ALL.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("currentSchemas")
    void currentSchemaIsRecordedInHistory(Schema current) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(current);
        assertThat(SchemaHistory.versions(current.getFullName()))
                .as("record %s as the next version: write schemas/src/main/resources/avro-history/%s/vN.avsc "
                        + "with the content below and list it in index.txt%n%s", current.getFullName(),
                        current.getFullName(), current.toString(true))
                .extracting(SchemaNormalization::parsingFingerprint64)
                .contains(fingerprint);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("currentSchemas")
    void currentSchemaIsBackwardAndForwardCompatibleWithEveryRecordedVersion(Schema current) {
        List<Schema> history = SchemaHistory.versions(current.getFullName());
        assertThat(history).isNotEmpty();
        for (Schema old : history) {
            assertThat(mutuallyCompatible(current, old))
                    .as("%s must stay backward and forward compatible with recorded version %s",
                            current.getFullName(), old)
                    .isTrue();
        }
    }

    @Test
    void gateRejectsAFieldAddedWithoutDefault() {
        Schema current = VoteEvent.getClassSchema();
        String broken = current.toString().replaceFirst("\"fields\":\\[",
                "\"fields\":[{\"name\":\"surprise\",\"type\":\"string\"},");
        Schema incompatible = new Schema.Parser().parse(broken);

        assertThat(mutuallyCompatible(incompatible, current)).isFalse();
    }

    @Test
    void gateAcceptsAFieldAddedWithDefault() {
        Schema current = VoteEvent.getClassSchema();
        String evolved = current.toString().replaceFirst("\"fields\":\\[",
                "\"fields\":[{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"},");

        assertThat(mutuallyCompatible(new Schema.Parser().parse(evolved), current)).isTrue();
    }

    private static boolean mutuallyCompatible(Schema a, Schema b) {
        return SchemaCompatibility.checkReaderWriterCompatibility(a, b).getType()
                == SchemaCompatibilityType.COMPATIBLE
                && SchemaCompatibility.checkReaderWriterCompatibility(b, a).getType()
                == SchemaCompatibilityType.COMPATIBLE;
    }
}
