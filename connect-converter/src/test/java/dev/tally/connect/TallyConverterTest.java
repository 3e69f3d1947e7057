package dev.tally.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.CommandAction;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/** The bytes Tally writes, through the converter, as the structs a sink connector gets. */
class TallyConverterTest {
    private static final Instant AT = Instant.parse("2026-12-01T12:00:00.123Z");
    private final TallyConverter converter = new TallyConverter();

    TallyConverterTest() {
        converter.configure(Map.of(), false);
    }

    private static <V> byte[] written(Topic<String, V> topic, V value) {
        return topic.valueSerde().serializer().serialize(topic.name(), value);
    }

    @Test
    void aVoteEventIsAStructWithItsNestedStatesTimestampsAndOptionalFields() {
        VoteEvent event = VoteEvent.newBuilder().setCommandId("c-1").setVoter("v-hash").setItemType("post").setItemId("42")
                .setOutcome(Outcome.CHANGED).setBefore(new VoterItemState(1, null, 1.0))
                .setAfter(new VoterItemState(-1, "love", 0.1)).setReceivedAt(AT).setResolvedAt(AT.plusMillis(5))
                .setSourcePartition(3).setSourceOffset(77).build();

        SchemaAndValue converted = converter.toConnectData(Topics.VOTE_EVENTS.name(), written(Topics.VOTE_EVENTS, event));

        assertThat(converted.schema().name()).isEqualTo("dev.tally.schema.VoteEvent");
        Struct s = (Struct) converted.value();
        s.validate();
        assertThat(s.getString("item_id")).isEqualTo("42");
        assertThat(s.getString("outcome")).isEqualTo("CHANGED");
        assertThat(s.getStruct("before").getInt32("vote")).isEqualTo(1);
        assertThat(s.getStruct("before").get("reaction")).isNull();
        assertThat(s.getStruct("before").schema().field("reaction").schema().isOptional()).isTrue();
        assertThat(s.getStruct("after").getString("reaction")).isEqualTo("love");
        assertThat(s.getStruct("after").getFloat64("weight")).isEqualTo(0.1);
        assertThat(s.schema().field("received_at").schema().name()).isEqualTo(Timestamp.LOGICAL_NAME);
        assertThat((Date) s.get("received_at")).isEqualTo(Date.from(AT));
        assertThat(s.getInt64("source_offset")).isEqualTo(77);
    }

    @Test
    void aCommandBatchIsAnArrayOfCommandStructs() {
        VoteCommand vote = VoteCommand.newBuilder().setCommandId("c-2").setVoter("v").setItemType("post").setItemId("1")
                .setAction(CommandAction.VOTE).setVoteValue(1).setMode(VoteMode.SET).setReplyPartition(0)
                .setRequestHash("h").setReceivedAt(AT).build();
        SchemaAndValue converted = converter.toConnectData(Topics.VOTE_COMMANDS.name(),
                written(Topics.VOTE_COMMANDS, new VoteCommandBatch(List.of(vote, vote))));

        Struct batch = (Struct) converted.value();
        batch.validate();
        List<Struct> commands = batch.getArray("commands");
        assertThat(commands).hasSize(2);
        assertThat(commands.get(0).getString("action")).isEqualTo("VOTE");
        assertThat(commands.get(0).get("network")).isNull();
    }

    @Test
    void countsCarryTheirMaps() {
        ItemCounts counts = ItemCounts.newBuilder().setItemType("post").setItemId("9").setUpvotes(3).setDownvotes(1)
                .setWeightedUp(2.5).setWeightedDown(1).setReactions(Map.of("love", 2L)).setWatermarks(Map.of("0", 10L))
                .setFirstVoteAt(AT).setUpdatedAt(AT).build();
        Struct s = (Struct) converter.toConnectData(Topics.ITEM_COUNTS.name(), written(Topics.ITEM_COUNTS, counts)).value();
        s.validate();
        assertThat(s.getMap("reactions")).containsEntry("love", 2L);
        assertThat(s.getMap("watermarks")).containsEntry("0", 10L);
    }

    @Test
    void everyAvroTopicOfTallyHasAConnectSchema() {
        for (Topic<?, ?> topic : Topics.ALL) {
            topic.fingerprints().ifPresent(f -> assertThat(new AvroToConnect().schema(f.writtenSchema()).type())
                    .as(topic.name()).isEqualTo(Schema.Type.STRUCT));
        }
    }

    @Test
    void tombstonesKeysAndForeignTopicsAreHandledOrRefusedClearly() {
        assertThat(converter.toConnectData(Topics.ITEM_COUNTS.name(), null)).isEqualTo(SchemaAndValue.NULL);
        assertThatThrownBy(() -> converter.toConnectData("orders", new byte[] {1})).isInstanceOf(DataException.class)
                .hasMessageContaining("Tally's topics only");
        assertThatThrownBy(() -> converter.toConnectData(Topics.VOTE_EVENTS.name(), new byte[] {1, 2, 3}))
                .isInstanceOf(DataException.class).hasMessageContaining("not a record Tally wrote");
        TallyConverter keys = new TallyConverter();
        keys.configure(Map.of(), true);
        assertThatThrownBy(() -> keys.toConnectData(Topics.VOTE_EVENTS.name(), new byte[] {1}))
                .isInstanceOf(DataException.class).hasMessageContaining("StringConverter");
        assertThatThrownBy(() -> converter.fromConnectData(Topics.VOTE_EVENTS.name(), null, null))
                .isInstanceOf(DataException.class).hasMessageContaining("sink connectors");
    }
}
