package dev.tally.processor;

import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoterItemState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Soft rejection (seed 000): while the fraud-detector flags an item as under a burst, a change from a
 * voter without history is held instead of applied. The voter is answered as if it counted and sees it
 * on their own reads ({@value VoteTopology#HELD_STATE_STORE}); the public counts exclude it; it waits in
 * {@value VoteTopology#HELD_STORE} (and {@code tally.quarantine}) until a release applies it through the
 * normal path — exactly once, because a decision for a command no longer held changes nothing — or a
 * discard records it as discarded.
 */
final class Quarantine {
    private final KeyValueStore<String, QuarantineRecord> held;
    private final KeyValueStore<String, VoterItemState> heldStates;
    private final KeyValueStore<String, FraudFlag> flags;

    Quarantine(KeyValueStore<String, QuarantineRecord> held, KeyValueStore<String, VoterItemState> heldStates,
               KeyValueStore<String, FraudFlag> flags) {
        this.held = held;
        this.heldStates = heldStates;
        this.flags = flags;
    }

    /** The burst flag covering the item at the command's time, if any. */
    Optional<FraudFlag> burst(VoteCommand c) {
        FraudFlag flag = flags.get("item:" + c.getItemType() + ":" + c.getItemId());
        boolean active = flag != null && flag.getKind() == FlagKind.BURST
                && !c.getReceivedAt().isBefore(flag.getRaisedAt()) && c.getReceivedAt().isBefore(flag.getExpiresAt());
        return active ? Optional.of(flag) : Optional.empty();
    }

    /** The state the voter sees on a held item, if they have a vote held there. */
    Optional<VoterItemState> heldState(String stateKey) {
        return Optional.ofNullable(heldStates.get(stateKey));
    }

    QuarantineRecord hold(VoteCommand c, String stateKey, VoterItemState after, String reason, long now) {
        QuarantineRecord record = new QuarantineRecord(c.getCommandId(), QuarantineStatus.HELD, reason, c, Instant.ofEpochMilli(now));
        held.put(c.getCommandId(), record);
        heldStates.put(stateKey, after);
        return record;
    }

    /** Takes a held command out of the quarantine, if it is still held. */
    Optional<QuarantineRecord> take(String commandId, String stateKey) {
        QuarantineRecord record = held.get(commandId);
        if (record == null) {
            return Optional.empty();
        }
        held.delete(commandId);
        heldStates.delete(stateKey);
        return Optional.of(record);
    }

    /** Held commands older than {@code cutoff} (epoch ms), for the review job. */
    List<QuarantineRecord> heldSince(long cutoff) {
        List<QuarantineRecord> due = new ArrayList<>();
        try (KeyValueIterator<String, QuarantineRecord> it = held.all()) {
            it.forEachRemaining(e -> {
                if (e.value.getDecidedAt().toEpochMilli() <= cutoff) {
                    due.add(e.value);
                }
            });
        }
        return due;
    }
}
