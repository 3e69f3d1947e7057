package dev.tally.processor;

import dev.tally.common.VoterState;
import dev.tally.schema.CountDelta;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Resolves each command against the voter's state on the item, in the one task that owns the voter.
 * For a change it writes the new state, emits the event, and adds the count change to the item's
 * pending delta; it always answers the waiting API instance. A wall-clock punctuator forwards the
 * pending deltas and deletes them: because they live in a changelogged store, a crash restores them
 * exactly as of the last committed transaction, and the input replays from there (no vote is lost or
 * counted twice).
 */
final class VoteResolver extends ContextualProcessor<String, VoteCommand, String, Object> {
    private final Duration flushInterval;
    private KeyValueStore<String, VoterItemState> states;
    private KeyValueStore<String, CountDelta> pending;

    VoteResolver(Duration flushInterval) {
        this.flushInterval = flushInterval;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        super.init(context);
        states = context.getStateStore(VoteTopology.VOTER_ITEM_STORE);
        pending = context.getStateStore(VoteTopology.PENDING_DELTAS_STORE);
        context.schedule(flushInterval, PunctuationType.WALL_CLOCK_TIME, this::flush);
    }

    @Override
    public void process(Record<String, VoteCommand> record) {
        VoteCommand command = record.value();
        if (command == null) {
            return;
        }
        RecordMetadata source = context().recordMetadata().orElseThrow();
        String itemKey = Topics.itemKey(command.getItemType(), command.getItemId());
        String stateKey = stateKey(command.getVoter(), itemKey);
        VoterState before = fromAvro(states.get(stateKey));
        VoteRules.Resolution resolution = VoteRules.resolve(before, command);
        VoterState after = resolution.after();
        long now = context().currentSystemTimeMs();

        if (resolution.outcome() != Outcome.UNCHANGED) {
            states.put(stateKey, toAvro(after));
            addToPending(itemKey, command, before, after, source);
            VoteEvent event = VoteEvent.newBuilder()
                    .setCommandId(command.getCommandId()).setVoter(command.getVoter())
                    .setItemType(command.getItemType()).setItemId(command.getItemId())
                    .setOutcome(resolution.outcome()).setBefore(toAvro(before)).setAfter(toAvro(after))
                    .setReceivedAt(command.getReceivedAt()).setResolvedAt(java.time.Instant.ofEpochMilli(now))
                    .setSourcePartition(source.partition()).setSourceOffset(source.offset())
                    .build();
            context().forward(new Record<>(itemKey, (Object) event, record.timestamp()), VoteTopology.EVENTS_SINK);
        }
        if (command.getReplyPartition() >= 0) {
            VoteOutcome outcome = VoteOutcome.newBuilder()
                    .setCommandId(command.getCommandId())
                    .setItemType(command.getItemType()).setItemId(command.getItemId())
                    .setStatus(OutcomeStatus.APPLIED).setOutcome(resolution.outcome())
                    .setBefore(toAvro(before)).setAfter(toAvro(after))
                    .setReplyPartition(command.getReplyPartition())
                    .setSourcePartition(source.partition()).setSourceOffset(source.offset())
                    .build();
            context().forward(new Record<>(command.getCommandId(), (Object) outcome, record.timestamp()),
                    VoteTopology.OUTCOMES_SINK);
        }
    }

    private void addToPending(String itemKey, VoteCommand command, VoterState before, VoterState after,
                              RecordMetadata source) {
        CountDelta delta = pending.get(itemKey);
        if (delta == null) {
            delta = CountDelta.newBuilder().setItemType(command.getItemType()).setItemId(command.getItemId())
                    .setReactions(new HashMap<>()).setSourcePartition(source.partition())
                    .setThroughOffset(source.offset()).build();
        }
        delta.setUpvotes(delta.getUpvotes() + (after.vote() == 1 ? 1 : 0) - (before.vote() == 1 ? 1 : 0));
        delta.setDownvotes(delta.getDownvotes() + (after.vote() == -1 ? 1 : 0) - (before.vote() == -1 ? 1 : 0));
        if (!java.util.Objects.equals(before.reaction(), after.reaction())) {
            var reactions = new HashMap<>(delta.getReactions());
            if (before.reaction() != null) {
                reactions.merge(before.reaction(), -1L, Long::sum);
            }
            if (after.reaction() != null) {
                reactions.merge(after.reaction(), 1L, Long::sum);
            }
            delta.setReactions(reactions);
        }
        delta.setThroughOffset(source.offset());
        pending.put(itemKey, delta);
    }

    /** Forwards every pending delta (one record per item touched since the last flush) and clears them. */
    private void flush(long timestamp) {
        List<KeyValue<String, CountDelta>> batch = new ArrayList<>();
        try (KeyValueIterator<String, CountDelta> it = pending.all()) {
            it.forEachRemaining(batch::add);
        }
        for (KeyValue<String, CountDelta> entry : batch) {
            context().forward(new Record<>(entry.key, (Object) entry.value, timestamp), VoteTopology.DELTAS_SINK);
            pending.delete(entry.key);
        }
    }

    static String stateKey(String voter, String itemKey) {
        return voter + "|" + itemKey;
    }

    static VoterState fromAvro(VoterItemState s) {
        return s == null ? VoterState.NONE : new VoterState(s.getVote(), s.getReaction());
    }

    static VoterItemState toAvro(VoterState s) {
        return new VoterItemState(s.vote(), s.reaction());
    }
}
