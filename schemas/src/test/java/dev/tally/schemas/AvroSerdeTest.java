package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.CountDelta;
import java.util.Map;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {
    private final AvroSerde<CountDelta> serde = AvroSerde.of(CountDelta.class);

    private static CountDelta delta() {
        return CountDelta.newBuilder().setItemType("post").setItemId("1").setUpvotes(3).setDownvotes(-1)
                .setReactions(Map.of("like", 2L)).setSourcePartition(4).setThroughOffset(99).build();
    }

    @Test
    void shouldWriteSingleObjectEncodingWithSchemaFingerprint() {
        byte[] bytes = serde.serialize("tally.count-deltas", delta());

        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        long fingerprint = SchemaNormalization.parsingFingerprint64(CountDelta.getClassSchema());
        long written = 0;
        for (int i = 9; i >= 2; i--) {
            written = (written << 8) | (bytes[i] & 0xFF); // little-endian
        }
        assertThat(written).isEqualTo(fingerprint);
        assertThat(AvroSerde.headerFingerprint(bytes)).hasValue(fingerprint);
        assertThat(AvroSerde.headerFingerprint("not avro at all".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void shouldRoundTrip() {
        assertThat(serde.deserialize("t", serde.serialize("t", delta()))).isEqualTo(delta());
    }

    @Test
    void shouldPassNullsThroughForTombstones() {
        assertThat(serde.serialize("t", null)).isNull();
        assertThat(serde.deserialize("t", null)).isNull();
    }

    @Test
    void shouldRefuseBytesThatAreNotSingleObjectEncoded() {
        assertThatThrownBy(() -> serde.deserialize("t", new byte[] {1, 2, 3, 4}))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("CountDelta");
    }

    @Test
    void everyRecordedSchemaParsesAndIsKnownToTheStore() {
        SchemaHistory.all().values().forEach(versions -> versions.forEach(schema ->
                assertThat(SchemaHistory.store().findByFingerprint(SchemaNormalization.parsingFingerprint64(schema)))
                        .isEqualTo(schema)));
    }

    @Test
    void topicCatalogueNamesFollowTheContract() {
        assertThat(Topics.ALL).extracting(Topic::name).contains("tally.vote-commands", "tally.vote-events",
                "tally.item-counts", "tally.quarantine");
        assertThat(Topics.ITEM_COUNTS.compacted()).isTrue();
        assertThat(Topics.byName("tally.vote-events")).isSameAs(Topics.VOTE_EVENTS);
    }

    @Test
    void everyTopicConstantIsInTheCatalogueSoItGetsCreated() throws Exception {
        for (var field : Topics.class.getFields()) {
            if (field.getType() == Topic.class) {
                assertThat(Topics.ALL).as(field.getName()).contains((Topic<?, ?>) field.get(null));
            }
        }
    }
}
