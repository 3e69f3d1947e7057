package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The voter-item store's record reads what the store held before it: a VoterItemState, of any recorded version. */
class VoterItemAliasTest {

    @Test
    void aVoterItemStateWrittenBeforeReadsAsAVoterItemWithDefaults() {
        byte[] current = AvroSerde.of(VoterItemState.class).encode(new VoterItemState(1, "love", 0.1));

        VoterItem read = AvroSerde.of(VoterItem.class).decode(current);

        assertThat(read).isEqualTo(new VoterItem(1, "love", 0.1, -1L, null, null, null));
    }

    @Test
    void theFirstRecordedVersionReadsToo() {
        Schema v1 = SchemaHistory.versions("dev.tally.schema.VoterItemState").get(0);
        var record = new org.apache.avro.generic.GenericData.Record(v1);
        record.put("vote", -1);
        record.put("reaction", null);
        byte[] bytes;
        try {
            bytes = new org.apache.avro.message.BinaryMessageEncoder<org.apache.avro.generic.GenericRecord>(
                    org.apache.avro.generic.GenericData.get(), v1).encode(record).array();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }

        assertThat(AvroSerde.of(VoterItem.class).decode(bytes)).isEqualTo(new VoterItem(-1, null, 1.0, -1L, null, null, null));
    }
}
