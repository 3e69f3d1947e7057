package dev.tally.processor;

import dev.tally.schemas.ItemKey;
import dev.tally.schemas.FlagKey;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.VoteCommand;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Soft rejection: while the fraud-detector flags an item as under a burst, a change from a
 * voter without history is held instead of applied. The voter is answered as if it counted and sees it
 * on their own reads (the voter-item record's held state, {@link VoterItems#hold}); the public counts exclude it;
 * it waits in {@value VoteTopology#HELD_STORE} (and {@code tally.quarantine}) for a decision.
 *
 * <p>A voter-item's held commands form a queue in the order they were cast
 * ({@value VoteTopology#HELD_QUEUE_STORE}), and a new command on a voter-item with held ones joins the
 * queue. A decision marks its command; the decided commands at the head of the queue then leave it in
 * cast order (a release applies it through the normal path, a discard drops it), so the voter's last cast
 * vote is what counts whatever order the decisions come in. A decision for a command no longer held, or
 * already decided, changes nothing: each is applied exactly once.
 */
final class Quarantine {
    private final KeyValueStore<String, QuarantineRecord> held;
    private final KeyValueStore<String, String> queues;
    private final KeyValueStore<String, FraudFlag> flags;

    Quarantine(KeyValueStore<String, QuarantineRecord> held, KeyValueStore<String, String> queues,
               KeyValueStore<String, FraudFlag> flags) {
        this.held = held;
        this.queues = queues;
        this.flags = flags;
    }

    /** The burst flag covering the item at the command's time, if any. */
    Optional<FraudFlag> burst(VoteCommand c) {
        FraudFlag flag = flags.get(FlagKey.burst(new ItemKey(c.getItemType(), c.getItemId())).toString());
        boolean active = flag != null && flag.getKind() == FlagKind.BURST
                && !c.getReceivedAt().isBefore(flag.getRaisedAt()) && c.getReceivedAt().isBefore(flag.getExpiresAt());
        return active ? Optional.of(flag) : Optional.empty();
    }

    /** Holds a command at the end of its voter-item's queue. */
    QuarantineRecord hold(VoteCommand c, String stateKey, String reason, long now) {
        QuarantineRecord record = new QuarantineRecord(c.getCommandId(), QuarantineStatus.HELD, reason, c, Instant.ofEpochMilli(now));
        held.put(c.getCommandId(), record);
        String queue = queues.get(stateKey);
        queues.put(stateKey, queue == null ? c.getCommandId() : queue + SEPARATOR + c.getCommandId());
        return record;
    }

    /**
     * Records a decision on a command still held and undecided, and returns the recorded decision; a
     * decision on anything else changes nothing.
     */
    Optional<QuarantineRecord> decide(QuarantineRecord decision, long now) {
        QuarantineRecord record = held.get(decision.getCommandId());
        if (record == null || record.getStatus() != QuarantineStatus.HELD || decision.getStatus() == QuarantineStatus.HELD) {
            return Optional.empty();
        }
        QuarantineRecord decided = QuarantineRecord.newBuilder(record).setStatus(decision.getStatus())
                .setReason(decision.getReason()).setDecidedAt(Instant.ofEpochMilli(now)).build();
        held.put(decided.getCommandId(), decided);
        return Optional.of(decided);
    }

    /** Takes the decided commands off the head of the voter-item's queue, in cast order. */
    List<QuarantineRecord> takeDecided(String stateKey) {
        List<String> queue = queue(stateKey);
        List<QuarantineRecord> taken = new ArrayList<>();
        while (!queue.isEmpty()) {
            QuarantineRecord head = held.get(queue.get(0));
            if (head != null && head.getStatus() == QuarantineStatus.HELD) {
                break;
            }
            queue.remove(0);
            if (head != null) {
                held.delete(head.getCommandId());
                taken.add(head);
            }
        }
        if (queue.isEmpty()) {
            queues.delete(stateKey);
        } else if (!taken.isEmpty()) {
            queues.put(stateKey, String.join(SEPARATOR, queue));
        }
        return taken;
    }

    /** The commands still queued on the voter-item and not discarded, in cast order. */
    List<VoteCommand> queued(String stateKey) {
        List<VoteCommand> out = new ArrayList<>();
        for (String id : queue(stateKey)) {
            QuarantineRecord r = held.get(id);
            if (r != null && r.getStatus() != QuarantineStatus.DISCARDED) {
                out.add(r.getCommand());
            }
        }
        return out;
    }

    /** Held, undecided commands held since before {@code cutoff} (epoch ms), for the review job. */
    List<QuarantineRecord> heldSince(long cutoff) {
        List<QuarantineRecord> due = new ArrayList<>();
        try (KeyValueIterator<String, QuarantineRecord> it = held.all()) {
            it.forEachRemaining(e -> {
                if (e.value.getStatus() == QuarantineStatus.HELD && e.value.getDecidedAt().toEpochMilli() <= cutoff) {
                    due.add(e.value);
                }
            });
        }
        return due;
    }

    /** Command ids are UUIDs (the API's) or the operator's: none holds a space. */
    private static final String SEPARATOR = " ";

    private List<String> queue(String stateKey) {
        String queue = queues.get(stateKey);
        return queue == null || queue.isEmpty() ? new ArrayList<>() : new ArrayList<>(List.of(queue.split(SEPARATOR)));
    }
}
