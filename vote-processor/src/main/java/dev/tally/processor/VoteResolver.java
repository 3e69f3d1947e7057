package dev.tally.processor;

import dev.tally.common.CommandChecks;
import dev.tally.common.CountChange;
import dev.tally.common.Rejection;
import dev.tally.common.VoterState;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.Outcome;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Resolves each command in the one task that owns its voter, a batch's commands in order within the
 * same transaction, and answers each waiting API instance with one record per batch:
 * <ol>
 *   <li>a reused idempotency key answers with the first answer (same request) or a conflict (another
 *       request), applying nothing;</li>
 *   <li>the catalogue and the reaction registry (global tables) may refuse it;</li>
 *   <li>otherwise {@link VoteRules} decide; a change must fit the voter's limits ({@link VoterQuotas}),
 *       then writes the new state, emits the event and adds to the item's pending count delta.</li>
 * </ol>
 * The waiting API instance always gets an answer. A wall-clock punctuator forwards the pending deltas
 * and deletes them: they live in a changelogged store, so a crash restores them exactly as of the last
 * committed transaction and the input replays from there (no vote lost or counted twice).
 */
final class VoteResolver extends ContextualProcessor<String, Object, String, Object> {
    private static final Duration PURGE_INTERVAL = Duration.ofMinutes(10);
    private static final Duration REVIEW_INTERVAL = Duration.ofMinutes(1);

    /**
     * A released vote has no command offset of its own in this task's input order: its event and delta
     * carry none (-1), so watermarks only ever reflect command offsets, and reconcile counts it as projected.
     */
    private static final RecordMetadata NO_POSITION = new RecordMetadata() {
        @Override
        public String topic() {
            return Topics.QUARANTINE_DECISIONS.name();
        }

        @Override
        public int partition() {
            return -1;
        }

        @Override
        public long offset() {
            return -1;
        }
    };

    private final VoteProcessorConfig config;
    private final CommandChecks checks;
    private KeyValueStore<String, VoterItem> states;
    private KeyValueStore<String, Double> weights;
    private PendingDeltas pending;
    private KeyValueStore<String, IdempotencyRecord> idempotency;
    private KeyValueStore<String, ReactionType> registry;
    private KeyValueStore<String, ItemStatus> catalog;
    private VoterQuotas quotas;
    private final Map<Integer, List<VoteOutcome>> answers = new LinkedHashMap<>();
    private Quarantine quarantine;

    VoteResolver(VoteProcessorConfig config) {
        this.config = config;
        this.checks = new CommandChecks(config.catalogVersion(), config.requireCatalog());
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        super.init(context);
        states = context.getStateStore(VoteTopology.VOTER_ITEM_STORE);
        weights = context.getStateStore(VoteTopology.VOTER_ITEM_WEIGHTS_STORE);
        pending = new PendingDeltas(context.getStateStore(VoteTopology.PENDING_DELTAS_STORE));
        idempotency = context.getStateStore(VoteTopology.IDEMPOTENCY_STORE);
        registry = context.getStateStore(VoteTopology.REACTION_TYPES_STORE);
        catalog = context.getStateStore(VoteTopology.ITEM_CATALOG_STORE);
        quotas = new VoterQuotas(config.voterLimits(), context.getStateStore(VoteTopology.VOTER_QUOTAS_STORE));
        context.schedule(config.deltaFlushInterval(), PunctuationType.WALL_CLOCK_TIME, this::flush);
        quarantine = new Quarantine(context.getStateStore(VoteTopology.HELD_STORE),
                context.getStateStore(VoteTopology.HELD_STATE_STORE), context.getStateStore(VoteTopology.HELD_QUEUE_STORE),
                context.getStateStore(VoteTopology.FRAUD_FLAGS_STORE));
        context.schedule(PURGE_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::purgeExpiredKeys);
        context.schedule(REVIEW_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::review);
    }

    @Override
    public void process(Record<String, Object> record) {
        if (record.value() instanceof QuarantineRecord decision) {
            decide(decision, context().currentSystemTimeMs(), record.timestamp());
        } else if (record.value() instanceof VoteCommandBatch batch) {
            for (VoteCommand command : batch.getCommands()) { // in order: a later vote of a voter sees the earlier
                command(command, record.timestamp());
            }
            sendAnswers(record.timestamp());
        }
    }

    private void command(VoteCommand command, long timestamp) {
        RecordMetadata source = context().recordMetadata().orElseThrow();
        long now = context().currentSystemTimeMs();
        String idempotencyKey = command.getIdempotencyKey() == null ? null
                : command.getVoter() + "|" + command.getIdempotencyKey();
        if (idempotencyKey != null) {
            IdempotencyRecord first = idempotency.get(idempotencyKey);
            if (first != null && first.getExpiresAt().toEpochMilli() > now) {
                VoteOutcome answer = first.getRequestHash().equals(command.getRequestHash())
                        ? replay(first.getOutcome(), command)
                        : rejected(command, current(command), Rejection.IDEMPOTENCY_CONFLICT,
                        "Idempotency-Key '" + command.getIdempotencyKey() + "' was first used with another request", source);
                answer(answer, timestamp);
                return;
            }
        }
        VoteOutcome outcome = resolve(command, source, now, timestamp, true);
        if (idempotencyKey != null) {
            idempotency.put(idempotencyKey, new IdempotencyRecord(command.getRequestHash(), outcome,
                    Instant.ofEpochMilli(now).plus(config.idempotencyTtl())));
        }
        answer(outcome, timestamp);
    }

    /**
     * Records a decision on a held command, then lets the decided commands at the head of its voter-item's
     * queue leave in cast order: a release applies through the normal path (no quota charged again), a
     * discard drops it. What the voter sees is then their public state with the still-queued commands on
     * top. A decision about a command no longer held, or already decided, changes nothing.
     */
    private void decide(QuarantineRecord decision, long now, long timestamp) {
        VoteCommand cmd = decision.getCommand();
        String stateKey = stateKey(cmd.getVoter(), Topics.itemKey(cmd.getItemType(), cmd.getItemId()));
        Optional<QuarantineRecord> recorded = quarantine.decide(decision, now);
        if (recorded.isEmpty()) {
            return;
        }
        context().forward(new Record<>(recorded.get().getCommandId(), (Object) recorded.get(), timestamp),
                VoteTopology.QUARANTINE_SINK);
        for (QuarantineRecord leaving : quarantine.takeDecided(stateKey)) {
            if (leaving.getStatus() == QuarantineStatus.RELEASED) {
                VoteCommand release = VoteCommand.newBuilder(leaving.getCommand()).setReplyPartition(-1).build();
                resolve(release, NO_POSITION, now, timestamp, false);
            }
        }
        VoterItemState seen = null;
        for (VoteCommand queued : quarantine.queued(stateKey)) {
            VoterItemState base = seen != null ? seen : stored(stateKey);
            VoterState after = VoteRules.resolve(fromAvro(base), queued).after();
            seen = toAvro(after, weightAfter(base, after, queued));
        }
        quarantine.restate(stateKey, Optional.ofNullable(seen));
    }

    /**
     * The review job: a vote held longer than {@code TALLY_REVIEW_DELAY} is released when its item is no
     * longer under a burst, and discarded when it still is.
     */
    private void review(long now) {
        for (QuarantineRecord h : quarantine.heldSince(now - config.reviewDelay().toMillis())) {
            VoteCommand c = VoteCommand.newBuilder(h.getCommand()).setReceivedAt(Instant.ofEpochMilli(now)).build();
            boolean stillBursting = quarantine.burst(c).isPresent();
            QuarantineRecord decision = QuarantineRecord.newBuilder(h)
                    .setStatus(stillBursting ? QuarantineStatus.DISCARDED : QuarantineStatus.RELEASED)
                    .setReason(stillBursting ? "review: the item was still under a burst" : "review: the burst ended").build();
            decide(decision, now, now);
        }
    }

    private VoteOutcome resolve(VoteCommand command, RecordMetadata source, long now, long timestamp, boolean mayHold) {
        String itemKey = Topics.itemKey(command.getItemType(), command.getItemId());
        String stateKey = stateKey(command.getVoter(), itemKey);
        Optional<VoterItemState> heldState = mayHold ? quarantine.heldState(stateKey) : Optional.empty();
        VoterItemState stored = heldState.orElseGet(() -> stored(stateKey));
        Optional<CommandChecks.Refusal> refusal = checks.check(command, catalog::get, registry::get);
        if (refusal.isPresent()) {
            return rejected(command, stored, refusal.get().reason(), refusal.get().detail(), source);
        }
        Resolved resolved = apply(command, source, now, timestamp, mayHold, itemKey, stateKey, heldState, stored);
        // one write of the item's pending delta per vote: a command as it arrives (not a release) is counted
        // for the burst watch whatever comes of it, and an applied change adds to the counts
        if (mayHold || resolved.change() != null) {
            pending.add(itemKey, command.getItemType(), command.getItemId(), command.getReceivedAt(),
                    source.partition(), source.offset(), mayHold, resolved.change());
        }
        return resolved.outcome();
    }

    /** An answer, and the change it makes to the item's counts (null when it makes none). */
    private record Resolved(VoteOutcome outcome, CountChange change) {}

    private Resolved apply(VoteCommand command, RecordMetadata source, long now, long timestamp, boolean mayHold,
                           String itemKey, String stateKey, Optional<VoterItemState> heldState, VoterItemState stored) {
        VoterState before = fromAvro(stored);
        VoteRules.Resolution resolution = VoteRules.resolve(before, command);
        VoterState after = resolution.after();
        double weightBefore = stored.getWeight();
        double weightAfter = weightAfter(stored, after, command);
        VoterItemState afterRecord = toAvro(after, weightAfter);
        CountChange change = null;
        if (resolution.outcome() != Outcome.UNCHANGED) {
            long at = command.getReceivedAt().toEpochMilli();
            VoterQuotas.Voter limits = quotas.of(command.getVoter());
            Optional<VoterQuotas.Refusal> limited = command.getModeration() ? Optional.empty() : limits.check(at);
            if (limited.isPresent()) {
                VoteOutcome refused = rejected(command, stored, limited.get().reason(), limited.get().detail(), source);
                refused.setRetryAfterSeconds((int) Math.min(Integer.MAX_VALUE, limited.get().retryAfterSeconds()));
                return new Resolved(refused, null);
            }
            Optional<dev.tally.schema.FraudFlag> burst = mayHold && !command.getModeration()
                    ? quarantine.burst(command) : Optional.empty();
            boolean withoutHistory = burst.isPresent()
                    && !limits.votedBefore(burst.get().getRaisedAt().toEpochMilli());
            if (withoutHistory || heldState.isPresent()) {
                limits.record(at);
                QuarantineRecord record = quarantine.hold(command, stateKey, afterRecord,
                        burst.map(f -> "burst on " + itemKey + ": " + f.getReason()).orElse("a vote of this voter here is held"), now);
                context().forward(new Record<>(record.getCommandId(), (Object) record, timestamp), VoteTopology.QUARANTINE_SINK);
                // the public counts hold the voter's public state, not the held one: the answer's "before" is that
                return new Resolved(outcome(command, source).setStatus(OutcomeStatus.APPLIED).setOutcome(resolution.outcome())
                        .setHeld(true).setBefore(stored(stateKey)).setAfter(afterRecord).build(), null);
            }
            if (mayHold && !command.getModeration()) {
                limits.record(at);
            }
            // a released vote has no command offset of its own: the state keeps the last one it had
            long offset = source.offset() >= 0 ? source.offset() : lastOffset(stateKey);
            states.put(stateKey, new VoterItem(after.vote(), after.reaction(), weightAfter, offset));
            change = CountChange.of(before, after, weightBefore, weightAfter);
            VoteEvent event = VoteEvent.newBuilder()
                    .setCommandId(command.getCommandId()).setVoter(command.getVoter())
                    .setItemType(command.getItemType()).setItemId(command.getItemId())
                    .setOutcome(resolution.outcome()).setBefore(stored).setAfter(afterRecord)
                    .setReceivedAt(command.getReceivedAt()).setResolvedAt(Instant.ofEpochMilli(now))
                    .setSourcePartition(source.partition()).setSourceOffset(source.offset())
                    .build();
            context().forward(new Record<>(itemKey, (Object) event, timestamp), VoteTopology.EVENTS_SINK);
        }
        return new Resolved(outcome(command, source).setStatus(OutcomeStatus.APPLIED).setOutcome(resolution.outcome())
                .setBefore(stored).setAfter(afterRecord).build(), change);
    }

    /** A vote cast now weighs what its voter's age says today; a vote kept (or none) keeps its weight. */
    private double weightAfter(VoterItemState before, VoterState after, VoteCommand command) {
        return after.vote() == before.getVote() ? before.getWeight()
                : after.vote() == 0 ? 1.0 : config.weighting().of(command.getAccountCreated(), command.getReceivedAt());
    }

    /**
     * The voter-item's stored state, its vote's weight included. A vote stored before states carried their
     * weight has it in the legacy {@value VoteTopology#VOTER_ITEM_WEIGHTS_STORE} store (only weights below
     * 1.0 were ever written there), read only for such a vote and moved into the state when it is next written.
     */
    private VoterItemState stored(String stateKey) {
        VoterItem s = states.get(stateKey);
        if (s == null) {
            return toAvro(VoterState.NONE, 1.0);
        }
        double weight = s.getWeight();
        if (s.getVote() != 0 && weight == 1.0) {
            Double legacy = weights.get(stateKey);
            if (legacy != null) {
                weights.delete(stateKey);
                weight = legacy;
            }
        }
        return new VoterItemState(s.getVote(), s.getReaction(), weight);
    }

    private long lastOffset(String stateKey) {
        VoterItem s = states.get(stateKey);
        return s == null ? -1 : s.getOffset();
    }

    private VoterItemState current(VoteCommand command) {
        return stored(stateKey(command.getVoter(), Topics.itemKey(command.getItemType(), command.getItemId())));
    }

    private static VoteOutcome.Builder outcome(VoteCommand command, RecordMetadata source) {
        return VoteOutcome.newBuilder().setCommandId(command.getCommandId())
                .setItemType(command.getItemType()).setItemId(command.getItemId())
                .setReplyPartition(command.getReplyPartition())
                .setSourcePartition(source.partition()).setSourceOffset(source.offset());
    }

    private static VoteOutcome rejected(VoteCommand command, VoterItemState state, Rejection reason,
                                        String detail, RecordMetadata source) {
        return outcome(command, source).setStatus(OutcomeStatus.REJECTED).setError(reason.slug).setDetail(detail)
                .setBefore(state).setAfter(state).build();
    }

    /** The first answer, addressed to the retry's command id and waiting API instance. */
    private static VoteOutcome replay(VoteOutcome first, VoteCommand retry) {
        return VoteOutcome.newBuilder(first).setCommandId(retry.getCommandId())
                .setReplyPartition(retry.getReplyPartition()).build();
    }

    /** Collects an answer for the waiting API instance; a batch's answers leave together ({@link #sendAnswers}). */
    private void answer(VoteOutcome outcome, long timestamp) {
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

    /** Forwards every pending delta (one record per item touched since the last flush) and clears them. */
    private void flush(long timestamp) {
        pending.flush((itemKey, delta) ->
                context().forward(new Record<>(itemKey, (Object) delta, timestamp), VoteTopology.DELTAS_SINK));
    }

    /** Drops idempotency keys past their expiry; lookups already ignore them, this frees the space. */
    private void purgeExpiredKeys(long now) {
        List<String> expired = new ArrayList<>();
        try (KeyValueIterator<String, IdempotencyRecord> it = idempotency.all()) {
            it.forEachRemaining(e -> {
                if (e.value.getExpiresAt().toEpochMilli() <= now) {
                    expired.add(e.key);
                }
            });
        }
        expired.forEach(idempotency::delete);
    }

    static String stateKey(String voter, String itemKey) {
        return voter + "|" + itemKey;
    }

    static VoterState fromAvro(VoterItemState s) {
        return s == null ? VoterState.NONE : new VoterState(s.getVote(), s.getReaction());
    }

    static VoterItemState toAvro(VoterState s, double weight) {
        return new VoterItemState(s.vote(), s.reaction(), weight);
    }
}
