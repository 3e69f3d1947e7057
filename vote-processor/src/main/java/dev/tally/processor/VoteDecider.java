package dev.tally.processor;

import dev.tally.common.CommandChecks;
import dev.tally.common.CountChange;
import dev.tally.common.Rejection;
import dev.tally.common.VoterState;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Decides each command in the task that owns its voter, and keeps the state that follows:
 * <ol>
 *   <li>a reused idempotency key answers with the first answer (same request) or a conflict (another
 *       request), applying nothing ({@link IdempotencyKeys});</li>
 *   <li>the catalogue and the reaction registry may refuse it ({@link CommandChecks});</li>
 *   <li>otherwise {@link VoteRules} decide; a change must fit the voter's limits ({@link VoterQuotas}), may
 *       be held during a burst ({@link Quarantine}), and else is applied: the new state
 *       ({@link VoterItems}), the item's pending count delta ({@link PendingDeltas}) and the event.</li>
 * </ol>
 * Two entry points: {@link #command} for a command as it arrives, {@link #moderate} for a moderator's (or
 * the review job's) decision on a held one, which releases held commands through the same rules.
 */
final class VoteDecider {
    /** Where a command came from: its partition and offset in {@code tally.vote-commands} (-1, -1 for a release). */
    record Source(int partition, long offset) {
        static final Source RELEASE = new Source(-1, -1);
    }

    /** A recorded moderation decision and the released commands it let through, in cast order. */
    record Moderation(QuarantineRecord recorded, List<Decision> released) {}

    private final VoteProcessorConfig config;
    private final CommandChecks checks;
    private final Function<String, ItemStatus> catalog;
    private final Function<String, ReactionType> registry;
    private final VoterItems voterItems;
    private final VoterQuotas quotas;
    private final Quarantine quarantine;
    private final PendingDeltas pending;
    private final IdempotencyKeys idempotency;

    VoteDecider(VoteProcessorConfig config, Function<String, ItemStatus> catalog, Function<String, ReactionType> registry,
                VoterItems voterItems, VoterQuotas quotas, Quarantine quarantine, PendingDeltas pending,
                IdempotencyKeys idempotency) {
        this.config = config;
        this.checks = new CommandChecks(config.catalogVersion(), config.requireCatalog());
        this.catalog = catalog;
        this.registry = registry;
        this.voterItems = voterItems;
        this.quotas = quotas;
        this.quarantine = quarantine;
        this.pending = pending;
        this.idempotency = idempotency;
    }

    /** A command as it arrives, at {@code now} (epoch ms, this task's clock). */
    Decision command(VoteCommand command, Source source, long now) {
        Optional<IdempotencyRecord> first = idempotency.first(command, now);
        if (first.isPresent()) {
            return first.get().getRequestHash().equals(command.getRequestHash())
                    ? new Decision.Replayed(replay(first.get().getOutcome(), command))
                    : new Decision.Refused(rejected(command, voterItems.state(key(command)), Rejection.IDEMPOTENCY_CONFLICT,
                    "Idempotency-Key '" + command.getIdempotencyKey() + "' was first used with another request", source));
        }
        Decision decision = resolve(command, source, now, true);
        idempotency.remember(command, decision.outcome(), now);
        return decision;
    }

    /**
     * Records a decision on a held command, then lets the decided commands at the head of its voter-item's
     * queue leave in cast order: a release applies through the normal path (no quota charged again), a
     * discard drops it. What the voter sees is then their public state with the still-queued commands on
     * top. A decision about a command no longer held, or already decided, changes nothing (empty).
     */
    Optional<Moderation> moderate(QuarantineRecord decision, long now) {
        String key = key(decision.getCommand());
        Optional<QuarantineRecord> recorded = quarantine.decide(decision, now);
        if (recorded.isEmpty()) {
            return Optional.empty();
        }
        List<Decision> released = new ArrayList<>();
        for (QuarantineRecord leaving : quarantine.takeDecided(key)) {
            if (leaving.getStatus() == QuarantineStatus.RELEASED) {
                VoteCommand release = VoteCommand.newBuilder(leaving.getCommand()).setReplyPartition(-1).build();
                released.add(resolve(release, Source.RELEASE, now, false));
            }
        }
        VoterItemState seen = null;
        for (VoteCommand queued : quarantine.queued(key)) {
            VoterItemState base = seen != null ? seen : voterItems.state(key);
            VoterState after = VoteRules.resolve(VoterItems.rules(base), queued).after();
            seen = VoterItems.state(after, weightAfter(base, after, queued));
        }
        voterItems.hold(key, Optional.ofNullable(seen));
        return Optional.of(new Moderation(recorded.get(), released));
    }

    /**
     * The review job's decisions: a vote held longer than {@code TALLY_REVIEW_DELAY} is released when its
     * item is no longer under a burst, and discarded when it still is.
     */
    List<QuarantineRecord> reviewDue(long now) {
        List<QuarantineRecord> decisions = new ArrayList<>();
        for (QuarantineRecord h : quarantine.heldSince(now - config.reviewDelay().toMillis())) {
            VoteCommand c = VoteCommand.newBuilder(h.getCommand()).setReceivedAt(Instant.ofEpochMilli(now)).build();
            boolean stillBursting = quarantine.burst(c).isPresent();
            decisions.add(QuarantineRecord.newBuilder(h)
                    .setStatus(stillBursting ? QuarantineStatus.DISCARDED : QuarantineStatus.RELEASED)
                    .setReason(stillBursting ? "review: the item was still under a burst" : "review: the burst ended").build());
        }
        return decisions;
    }

    /**
     * @param fresh a command as it arrives (may be held, is counted for the burst watch and charged to the
     *              voter's limits), not a released one
     */
    private Decision resolve(VoteCommand command, Source source, long now, boolean fresh) {
        String itemKey = Topics.itemKey(command.getItemType(), command.getItemId());
        String key = key(command);
        VoterQuotas.Voter voter = quotas.of(command.getVoter());
        // a voter with no quota record has never had a change applied or held: their voter-item record is not there
        VoterItems.Entry entry = voter.isNew() && quotas.coversEveryVoterItem() ? VoterItems.Entry.NONE : voterItems.read(key);
        // a new command on a voter-item with held votes goes behind them, from the state they leave the voter in
        Optional<VoterItemState> heldState = fresh ? entry.held() : Optional.empty();
        VoterItemState stored = heldState.orElse(entry.state());
        Optional<CommandChecks.Refusal> refusal = checks.check(command, catalog, registry);
        if (refusal.isPresent()) {
            return new Decision.Refused(rejected(command, stored, refusal.get().reason(), refusal.get().detail(), source));
        }
        VoterState before = VoterItems.rules(stored);
        VoteRules.Resolution resolution = VoteRules.resolve(before, command);
        VoterState after = resolution.after();
        double weightAfter = weightAfter(stored, after, command);
        VoterItemState afterState = VoterItems.state(after, weightAfter);
        CountChange change = null;
        Decision decision;
        if (resolution.outcome() == Outcome.UNCHANGED) {
            decision = new Decision.Applied(applied(command, source, resolution.outcome(), stored, afterState), null);
        } else {
            decision = change(command, source, now, fresh, itemKey, key, voter, entry, heldState, stored, afterState,
                    resolution.outcome());
            if (decision instanceof Decision.Applied) {
                change = CountChange.of(before, after, stored.getWeight(), weightAfter);
            }
        }
        // one write of the item's pending delta per vote: a fresh command is counted for the burst watch
        // whatever comes of it, and an applied change adds to the counts
        if (fresh || change != null) {
            pending.add(itemKey, command.getItemType(), command.getItemId(), command.getReceivedAt(),
                    source.partition(), source.offset(), fresh, change);
        }
        decision.outcome().setPreviousOffset(entry.offset()); // the change the answer's public "before" came from
        return decision;
    }

    /** A change of the voter's state: refused by their limits, held in quarantine, or applied. */
    private Decision change(VoteCommand command, Source source, long now, boolean fresh, String itemKey, String key,
                            VoterQuotas.Voter limits, VoterItems.Entry entry, Optional<VoterItemState> heldState,
                            VoterItemState stored, VoterItemState afterState, Outcome outcome) {
        long at = command.getReceivedAt().toEpochMilli();
        Optional<VoterQuotas.Refusal> limited = command.getModeration() ? Optional.empty() : limits.check(at);
        if (limited.isPresent()) {
            VoteOutcome refused = rejected(command, stored, limited.get().reason(), limited.get().detail(), source);
            refused.setRetryAfterSeconds((int) Math.min(Integer.MAX_VALUE, limited.get().retryAfterSeconds()));
            return new Decision.Refused(refused);
        }
        Optional<FraudFlag> burst = fresh && !command.getModeration() ? quarantine.burst(command) : Optional.empty();
        boolean withoutHistory = burst.isPresent() && !limits.votedBefore(burst.get().getRaisedAt().toEpochMilli());
        if (withoutHistory || heldState.isPresent()) {
            limits.record(at);
            QuarantineRecord record = quarantine.hold(command, key,
                    burst.map(f -> "burst on " + itemKey + ": " + f.getReason()).orElse("a vote of this voter here is held"), now);
            voterItems.hold(key, entry, Optional.of(afterState)); // the record as read above: nothing wrote it since
            // the public counts hold the voter's public state, not the held one: the answer's "before" is that
            VoteOutcome answer = outcome(command, source).setStatus(OutcomeStatus.APPLIED).setOutcome(outcome)
                    .setHeld(true).setBefore(entry.state()).setAfter(afterState).build();
            return new Decision.Held(answer, record);
        }
        if (fresh && !command.getModeration()) {
            limits.record(at);
        } else {
            limits.enrol(); // a moderator's change, or a release (whose hold charged the voter): recorded, not charged
        }
        // a vote keeps when and by whom it was cast while only its reaction changes; a new vote is cast by its command
        VoterItems.Cast beforeCast = stored.getVote() == 0 ? VoterItems.Cast.UNKNOWN : entry.cast();
        VoterItems.Cast afterCast = afterState.getVote() == stored.getVote() ? beforeCast
                : new VoterItems.Cast(command.getReceivedAt(), command.getAnonymous());
        voterItems.put(key, entry, afterState, source.offset(), afterCast);
        VoteEvent event = VoteEvent.newBuilder()
                .setCommandId(command.getCommandId()).setVoter(command.getVoter())
                .setItemType(command.getItemType()).setItemId(command.getItemId())
                .setOutcome(outcome).setBefore(stored).setAfter(afterState)
                .setReceivedAt(command.getReceivedAt()).setResolvedAt(Instant.ofEpochMilli(now))
                .setSourcePartition(source.partition()).setSourceOffset(source.offset())
                .setBeforeCastAt(beforeCast.at()).setBeforeAnonymous(beforeCast.anonymous())
                .setAnonymous(command.getAnonymous())
                .build();
        return new Decision.Applied(applied(command, source, outcome, stored, afterState), event);
    }

    /** A vote cast now weighs what its voter's age says today; a vote kept (or none) keeps its weight. */
    private double weightAfter(VoterItemState before, VoterState after, VoteCommand command) {
        return after.vote() == before.getVote() ? before.getWeight()
                : after.vote() == 0 ? 1.0 : config.weighting().of(command.getAccountCreated(), command.getReceivedAt());
    }

    private static String key(VoteCommand c) {
        return VoterItems.key(c.getVoter(), c.getItemType(), c.getItemId());
    }

    private static VoteOutcome.Builder outcome(VoteCommand command, Source source) {
        return VoteOutcome.newBuilder().setCommandId(command.getCommandId())
                .setItemType(command.getItemType()).setItemId(command.getItemId())
                .setReplyPartition(command.getReplyPartition())
                .setSourcePartition(source.partition()).setSourceOffset(source.offset());
    }

    private static VoteOutcome applied(VoteCommand command, Source source, Outcome outcome, VoterItemState before,
                                       VoterItemState after) {
        return outcome(command, source).setStatus(OutcomeStatus.APPLIED).setOutcome(outcome)
                .setBefore(before).setAfter(after).build();
    }

    private static VoteOutcome rejected(VoteCommand command, VoterItemState state, Rejection reason, String detail,
                                        Source source) {
        return outcome(command, source).setStatus(OutcomeStatus.REJECTED).setError(reason.slug).setDetail(detail)
                .setBefore(state).setAfter(state).build();
    }

    /** The first answer, addressed to the retry's command id and waiting API instance. */
    private static VoteOutcome replay(VoteOutcome first, VoteCommand retry) {
        return VoteOutcome.newBuilder(first).setCommandId(retry.getCommandId())
                .setReplyPartition(retry.getReplyPartition()).build();
    }
}
