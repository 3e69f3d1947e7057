package dev.tally.processor;

import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;

/**
 * What became of one command, as {@link VoteDecider} decided it; {@link VoteResolver} forwards what each
 * says. Every decision carries the answer for the waiting API instance.
 */
sealed interface Decision {
    VoteOutcome outcome();

    /** Refused by the catalogue, the registry, the voter's limits or an idempotency conflict: nothing changed. */
    record Refused(VoteOutcome outcome) implements Decision {}

    /** A retry with a known idempotency key: the first answer again, nothing applied. */
    record Replayed(VoteOutcome outcome) implements Decision {}

    /** Held in quarantine: the voter sees it, the public counts do not; {@code record} goes to {@code tally.quarantine}. */
    record Held(VoteOutcome outcome, QuarantineRecord record) implements Decision {}

    /** Applied: {@code event} is the change for the log, or null when the command changed nothing. */
    record Applied(VoteOutcome outcome, VoteEvent event) implements Decision {}
}
