package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schema.VoterItemState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class WrappingSerdeTest {
    private static VoteCommand command(String voter) {
        return VoteCommand.newBuilder().setCommandId("c-" + voter).setVoter(voter).setItemType("post").setItemId("1")
                .setAction(CommandAction.VOTE).setVoteValue(1).setReceivedAt(Instant.EPOCH).build();
    }

    @Test
    void aBatchRoundTrips() {
        VoteCommandBatch batch = new VoteCommandBatch(new ArrayList<>(List.of(command("a"), command("b"))));
        var serde = Topics.VOTE_COMMANDS.valueSerde();
        assertThat(serde.deserializer().deserialize("t", serde.serializer().serialize("t", batch))).isEqualTo(batch);
    }

    @Test
    void aCommandWrittenAloneReadsAsABatchOfOne() {
        byte[] single = AvroSerde.of(VoteCommand.class).encode(command("a"));

        VoteCommandBatch read = Topics.VOTE_COMMANDS.valueSerde().deserializer().deserialize("t", single);

        assertThat(read.getCommands()).containsExactly(command("a"));
    }

    @Test
    void anOutcomeWrittenAloneReadsAsABatchOfOne() {
        VoteOutcome o = VoteOutcome.newBuilder().setCommandId("c").setItemType("post").setItemId("1")
                .setStatus(OutcomeStatus.APPLIED).setOutcome(Outcome.ACCEPTED).setBefore(new VoterItemState(0, null, 1.0))
                .setAfter(new VoterItemState(1, null, 1.0)).setReplyPartition(3).setSourcePartition(0).setSourceOffset(7)
                .build();
        byte[] single = AvroSerde.of(VoteOutcome.class).encode(o);

        VoteOutcomeBatch read = Topics.VOTE_OUTCOMES.valueSerde().deserializer().deserialize("t", single);

        assertThat(read.getOutcomes()).containsExactly(o);
    }

    @Test
    void aVotersPartitionIsWhereTheProducerPutsARecordKeyedByTheVoter() {
        for (int i = 0; i < 1000; i++) {
            String voter = "voter-" + i;
            assertThat(Topics.voterPartition(voter, 12))
                    .isEqualTo(BuiltInPartitioner.partitionForKey(voter.getBytes(StandardCharsets.UTF_8), 12));
        }
    }
}
