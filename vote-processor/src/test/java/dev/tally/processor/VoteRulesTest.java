package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.VoterState;
import dev.tally.schema.CommandAction;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VoteRulesTest {

    private static VoteCommand vote(int value, VoteMode mode) {
        return VoteCommand.newBuilder().setCommandId("c").setVoter("v").setItemType("post").setItemId("1")
                .setAction(CommandAction.VOTE).setVoteValue(value).setMode(mode).setReceivedAt(Instant.EPOCH).build();
    }

    private static VoteCommand reaction(String code, VoteMode mode) {
        return VoteCommand.newBuilder().setCommandId("c").setVoter("v").setItemType("post").setItemId("1")
                .setAction(CommandAction.REACTION).setReaction(code).setMode(mode).setReceivedAt(Instant.EPOCH).build();
    }

    @ParameterizedTest(name = "vote {0} then {1} ({2}) -> {3}, {4}")
    @CsvSource({
            "0, 1, TOGGLE, ACCEPTED, 1",
            "0, -1, TOGGLE, ACCEPTED, -1",
            "1, 1, TOGGLE, RETRACTED, 0",
            "1, 1, SET, UNCHANGED, 1",
            "1, -1, TOGGLE, CHANGED, -1",
            "-1, 1, SET, CHANGED, 1",
            "1, 0, TOGGLE, RETRACTED, 0",
            "-1, 0, SET, RETRACTED, 0",
            "0, 0, TOGGLE, UNCHANGED, 0",
            "0, 0, SET, UNCHANGED, 0",
    })
    void votes(int before, int value, VoteMode mode, Outcome outcome, int after) {
        var r = VoteRules.resolve(new VoterState(before, "love"), vote(value, mode));

        assertThat(r.outcome()).isEqualTo(outcome);
        assertThat(r.after()).isEqualTo(new VoterState(after, "love"));
    }

    @ParameterizedTest(name = "reaction {0} then {1} ({2}) -> {3}, {4}")
    @CsvSource(nullValues = "null", value = {
            "null, like, TOGGLE, ACCEPTED, like",
            "like, like, TOGGLE, RETRACTED, null",
            "like, like, SET, UNCHANGED, like",
            "like, wow, TOGGLE, CHANGED, wow",
            "like, null, SET, RETRACTED, null",
            "null, null, TOGGLE, UNCHANGED, null",
    })
    void reactions(String before, String code, VoteMode mode, Outcome outcome, String after) {
        var r = VoteRules.resolve(new VoterState(1, before), reaction(code, mode));

        assertThat(r.outcome()).isEqualTo(outcome);
        assertThat(r.after()).isEqualTo(new VoterState(1, after));
    }
}
