package dev.tally.processor;

import dev.tally.schema.ItemStatus;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The vote-processor's one processor: hands each command of a batch, in order, and each moderation
 * decision to {@link VoteDecider}, and forwards what every {@link Decision} says — the event to
 * {@code tally.vote-events}, a held command to {@code tally.quarantine}, and the batch's answers to each
 * waiting API instance as one {@code tally.vote-outcomes} record; the batch's commands that carried a network
 * go to {@code tally.network-commands}, one record per network, whatever was decided (the fraud-detector's
 * network watch counts what reached Kafka, and so never reads the command stream itself). Count deltas go to
 * {@code tally.count-deltas} as {@link PendingDeltas} says — what the first step of an interval to touch an item
 * changed leaves with that step, the rest when a wall-clock punctuator flushes the pending ones (a changelogged
 * store, so a crash restores them exactly as of the last committed transaction and the input replays from there:
 * no vote lost or counted twice)
 * — gathered into one record per {@code tally.count-deltas} partition for each command batch, decision or flush
 * ({@link DeltaBatches}).
 *
 * <p>What a step gathers (answers, deltas) and the once-per-task migration flag are set in {@link #init}, not in
 * the constructor: Kafka Streams keeps this processor when it revives a task after an aborted transaction and calls
 * {@code init} again, and a half-sent step of the aborted transaction must not leave with the next one (nor a
 * migration it rolled back count as done).
 */
final class VoteResolver extends ContextualProcessor<String, Object, String, Object> {
    private static final Duration PURGE_INTERVAL = Duration.ofMinutes(10);
    private static final Duration REVIEW_INTERVAL = Duration.ofMinutes(1);

    private final VoteProcessorConfig config;
    private final int deltaPartitions;
    private Map<Integer, List<VoteOutcome>> answers;
    private DeltaBatches deltas;
    private PendingDeltas pending;
    private IdempotencyKeys idempotency;
    private VoteDecider decider;
    private VoterItems voterItems;
    private VoterQuotas quotas;
    private boolean migrated; // the legacy held states moved into the voter-item records, once per task

    /** @param deltaPartitions the partitions of {@code tally.count-deltas} */
    VoteResolver(VoteProcessorConfig config, int deltaPartitions) {
        this.config = config;
        this.deltaPartitions = deltaPartitions;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        super.init(context);
        answers = new LinkedHashMap<>();
        deltas = new DeltaBatches(deltaPartitions);
        migrated = false;
        pending = new PendingDeltas(context.getStateStore(VoteTopology.PENDING_DELTAS_STORE));
        idempotency = new IdempotencyKeys(context.getStateStore(VoteTopology.IDEMPOTENCY_STORE), config.idempotencyTtl());
        voterItems = new VoterItems(context.getStateStore(VoteTopology.VOTER_ITEM_STORE),
                context.getStateStore(VoteTopology.VOTER_ITEM_WEIGHTS_STORE), context.getStateStore(VoteTopology.HELD_STATE_STORE));
        KeyValueStore<String, ItemStatus> catalog = context.getStateStore(VoteTopology.ITEM_CATALOG_STORE);
        KeyValueStore<String, ReactionType> registry = context.getStateStore(VoteTopology.REACTION_TYPES_STORE);
        quotas = new VoterQuotas(config.voterLimits(), context.getStateStore(VoteTopology.VOTER_QUOTAS_STORE));
        decider = new VoteDecider(config, catalog::get, registry::get, voterItems, quotas,
                new Quarantine(context.getStateStore(VoteTopology.HELD_STORE), context.getStateStore(VoteTopology.HELD_QUEUE_STORE),
                        context.getStateStore(VoteTopology.FRAUD_FLAGS_STORE)),
                pending, idempotency);
        context.schedule(config.deltaFlushInterval(), PunctuationType.WALL_CLOCK_TIME, this::flush);
        context.schedule(PURGE_INTERVAL, PunctuationType.WALL_CLOCK_TIME, idempotency::purgeExpired);
        context.schedule(REVIEW_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::review);
    }

    @Override
    public void process(Record<String, Object> record) {
        migrateOnce();
        long now = context().currentSystemTimeMs();
        if (record.value() instanceof QuarantineRecord decision) {
            moderate(decision, now, record.timestamp());
        } else if (record.value() instanceof VoteCommandBatch batch) {
            RecordMetadata md = context().recordMetadata().orElseThrow();
            VoteDecider.Source source = new VoteDecider.Source(md.partition(), md.offset());
            // every answer of a batch is at the batch's offset, so a view that does not reflect it holds each
            // voter-item as it was when the batch began (if it reflects the change that left it so): that is the
            // baseline the API adds the voter's own change to
            Map<String, VoteOutcome> firstOfBatch = new HashMap<>();
            for (VoteCommand command : batch.getCommands()) { // in order: a later vote of a voter sees the earlier
                Decision decision = decider.command(command, source, now);
                VoteOutcome first = firstOfBatch.putIfAbsent(
                        VoterItems.key(command.getVoter(), command.getItemType(), command.getItemId()), decision.outcome());
                if (first != null && !(decision instanceof Decision.Held)) {
                    decision.outcome().setBefore(first.getBefore());
                    decision.outcome().setPreviousOffset(first.getPreviousOffset());
                }
                emit(decision, record.timestamp());
            }
            sendAnswers(record.timestamp());
            sendNetworks(batch, record.timestamp());
        }
        sendDeltas(record.timestamp());
    }

    /**
     * In the first transaction this task runs in (not in init, which has no record to log a store change with): the
     * legacy held states moved, then whether the voter quotas cover every voter-item ({@link VoterQuotas}).
     */
    private void migrateOnce() {
        if (!migrated) {
            voterItems.migrateHeldStates();
            quotas.checkCoverage(voterItems.isEmpty());
            migrated = true;
        }
    }

    /** The batch's commands that carried a network, one record per network, in their order. */
    private void sendNetworks(VoteCommandBatch batch, long timestamp) {
        Map<String, List<VoteCommand>> byNetwork = null; // most batches carry none: nothing allocated
        for (VoteCommand command : batch.getCommands()) {
            if (command.getNetwork() != null) {
                if (byNetwork == null) {
                    byNetwork = new LinkedHashMap<>();
                }
                byNetwork.computeIfAbsent(command.getNetwork(), n -> new ArrayList<>()).add(command);
            }
        }
        if (byNetwork != null) {
            byNetwork.forEach((network, commands) -> context().forward(
                    new Record<>(network, (Object) new VoteCommandBatch(commands), timestamp), VoteTopology.NETWORK_SINK));
        }
    }

    private void moderate(QuarantineRecord decision, long now, long timestamp) {
        decider.moderate(decision, now).ifPresent(m -> {
            context().forward(new Record<>(m.recorded().getCommandId(), (Object) m.recorded(), timestamp),
                    VoteTopology.QUARANTINE_SINK);
            m.released().forEach(d -> emit(d, timestamp));
        });
    }

    /** The review job: every held vote past its review delay, decided as a moderator would. */
    private void review(long now) {
        migrateOnce();
        decider.reviewDue(now).forEach(decision -> moderate(decision, now, now));
        sendDeltas(now);
    }

    private void emit(Decision decision, long timestamp) {
        if (decision instanceof Decision.Applied a && a.event() != null) {
            context().forward(new Record<>(Topics.itemKey(a.event().getItemType(), a.event().getItemId()), (Object) a.event(),
                    timestamp), VoteTopology.EVENTS_SINK);
        } else if (decision instanceof Decision.Held h) {
            context().forward(new Record<>(h.record().getCommandId(), (Object) h.record(), timestamp),
                    VoteTopology.QUARANTINE_SINK);
        } // refused, replayed or unchanged: only the answer
        VoteOutcome outcome = decision.outcome();
        if (outcome.getReplyPartition() >= 0) {
            answers.computeIfAbsent(outcome.getReplyPartition(), p -> new ArrayList<>()).add(outcome);
        }
    }

    /** One outcome record per waiting API instance for the batch just resolved, not one per vote. */
    private void sendAnswers(long timestamp) {
        for (List<VoteOutcome> outcomes : answers.values()) {
            context().forward(new Record<>(outcomes.get(0).getCommandId(), (Object) new VoteOutcomeBatch(outcomes), timestamp),
                    VoteTopology.OUTCOMES_SINK);
        }
        answers.clear();
    }

    /** Forwards every pending delta (one per item touched since the last flush) and clears them. */
    private void flush(long timestamp) {
        pending.flush(deltas::add);
        sendDeltas(timestamp);
    }

    /** The deltas of the step just taken, one record per {@code tally.count-deltas} partition. */
    private void sendDeltas(long timestamp) {
        pending.endStep(deltas::add);
        deltas.send((key, batch) -> context().forward(new Record<>(key, (Object) batch, timestamp), VoteTopology.DELTAS_SINK));
    }
}
