package dev.tally.processor;

import dev.tally.common.VoterState;
import dev.tally.schema.CommandAction;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import java.util.Objects;

/**
 * Every rule of how one command changes one voter's state on one item, as a pure function.
 *
 * <ul>
 *   <li>A vote of 0 retracts the current vote.</li>
 *   <li>Repeating the current vote or reaction clears it in {@code TOGGLE} mode and changes
 *       nothing in {@code SET} mode.</li>
 *   <li>A vote in the other direction replaces the old one in one step; a different reaction replaces
 *       the old one; a {@code null} reaction clears it.</li>
 *   <li>The vote and the reaction are independent: changing one keeps the other.</li>
 * </ul>
 */
public final class VoteRules {
    private VoteRules() {}

    /** The state after the command and what kind of change that was. */
    public record Resolution(Outcome outcome, VoterState after) {}

    public static Resolution resolve(VoterState before, VoteCommand command) {
        boolean toggle = command.getMode() == VoteMode.TOGGLE;
        if (command.getAction() == CommandAction.VOTE) {
            int wanted = command.getVoteValue();
            Outcome outcome = change(before.vote() == 0 ? null : before.vote(), wanted == 0 ? null : wanted, toggle);
            int after = switch (outcome) {
                case RETRACTED -> 0;
                case UNCHANGED -> before.vote();
                default -> wanted;
            };
            return new Resolution(outcome, new VoterState(after, before.reaction()));
        }
        String wanted = command.getReaction();
        Outcome outcome = change(before.reaction(), wanted, toggle);
        String after = switch (outcome) {
            case RETRACTED -> null;
            case UNCHANGED -> before.reaction();
            default -> wanted;
        };
        return new Resolution(outcome, new VoterState(before.vote(), after));
    }

    /** One slot (the vote or the reaction) going from {@code current} to {@code wanted}; null is empty. */
    private static Outcome change(Object current, Object wanted, boolean toggle) {
        if (wanted == null) {
            return current == null ? Outcome.UNCHANGED : Outcome.RETRACTED;
        }
        if (Objects.equals(current, wanted)) {
            return toggle ? Outcome.RETRACTED : Outcome.UNCHANGED;
        }
        return current == null ? Outcome.ACCEPTED : Outcome.CHANGED;
    }
}
