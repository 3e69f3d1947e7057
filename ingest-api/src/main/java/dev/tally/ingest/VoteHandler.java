package dev.tally.ingest;

import dev.tally.schemas.ItemKey;
import dev.tally.common.CommandChecks;
import dev.tally.common.KeyedView;
import dev.tally.common.Rejection;
import dev.tally.common.TallyMetrics;
import dev.tally.common.VoterState;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.Unavailable;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/votes}: refuse cheaply and specifically, then append the command and wait (bounded by
 * {@code TALLY_SYNC_TIMEOUT}) for the vote-processor's answer. 200 with counts that include this vote,
 * 202 when the answer is late or the client sent {@code Prefer: respond-async} (the vote is durable and
 * will be applied), 503 when Kafka did not take it. The wait holds no thread: up to
 * {@code TALLY_MAX_IN_FLIGHT} votes wait at once, each a pair of futures.
 */
final class VoteHandler {
    private static final Logger LOG = LoggerFactory.getLogger(VoteHandler.class);
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,64}");
    /** How often an answer waiting for the counts view to catch up reads it again. */
    private static final long CATCH_UP_POLL_MS = 10;

    private final IngestConfig config;
    private final Identities identities;
    private final CommandSink gateway;
    private final CountsQuery counts;
    private final KeyedView<ReactionType> reactions;
    private final KeyedView<ItemStatus> catalog;
    private final CommandChecks checks;
    private final Semaphore inFlight;
    private final TallyMetrics metrics;
    private final FraudGate fraudGate;
    private final Executor answers;

    VoteHandler(IngestConfig config, Identities identities, CommandSink gateway, CountsQuery counts,
                KeyedView<ReactionType> reactions, KeyedView<ItemStatus> catalog, TallyMetrics metrics,
                FraudGate fraudGate, Executor answers) {
        this.answers = answers;
        this.metrics = metrics;
        this.fraudGate = fraudGate;
        this.config = config;
        this.identities = identities;
        this.gateway = gateway;
        this.counts = counts;
        this.reactions = reactions;
        this.catalog = catalog;
        this.checks = new CommandChecks(config.catalogVersion(), config.requireCatalog());
        this.inFlight = new Semaphore(config.maxInFlight());
    }

    void post(Context ctx) {
        if (!config.votingEnabled()) {
            throw ApiProblem.unavailable("voting-disabled", "voting is disabled (TALLY_VOTING_ENABLED=false); reads still work");
        }
        RequestLimits.requireJson(ctx);
        VoteRequest request = VoteRequest.parse(RequestLimits.body(ctx), config.catalogVersion());
        String idempotencyKey = idempotencyKey(ctx);
        Identities.Voter voter = identities.requireVoter(ctx);
        Identities.Client client = identities.client(ctx);
        String network = client.network();
        fraudGate.check(ctx, network, client.address(), new ItemKey(request.itemType(), request.itemId()));
        VoteCommand command = VoteCommand.newBuilder()
                .setCommandId(UUID.randomUUID().toString()).setVoter(voter.hash()).setNetwork(network)
                .setAccountCreated(voter.accountCreated().orElse(null)).setAnonymous(voter.anonymous())
                .setItemType(request.itemType()).setItemId(request.itemId())
                .setAction(request.action()).setVoteValue(request.voteValue()).setReaction(request.reaction())
                .setMode(request.mode()).setCatalogVersion(request.catalogVersion())
                .setIdempotencyKey(idempotencyKey).setRequestHash(request.canonicalHash())
                .setReplyPartition(gateway.replyPartition()).setReceivedAt(Instant.now())
                .build();
        checks.check(command, key -> catalog.get(key).orElse(null), code -> reactions.get(code).orElse(null))
                .ifPresent(refusal -> {
                    throw problem(refusal.reason(), refusal.detail());
                });

        boolean respondAsync = respondAsync(ctx);
        if (!inFlight.tryAcquire()) {
            throw ApiProblem.unavailable("too-many-in-flight", config.maxInFlight()
                    + " votes are already in flight on this instance; nothing was accepted");
        }
        // submitted from the supplier, which Javalin calls once the request is asynchronous: an answer that
        // comes at once is then never written by another thread while this one still owns the response
        ctx.future(() -> {
            CompletableFuture<Void> answered;
            try {
                answered = submitAndAnswer(ctx, command, respondAsync);
            } catch (RuntimeException e) {
                inFlight.release();
                throw e;
            }
            answered.whenComplete((ok, e) -> inFlight.release());
            return answered;
        });
    }

    /**
     * Appends the command and answers once Kafka has it ({@code Prefer: respond-async}) or once the
     * processor's answer arrives, without holding a request thread meanwhile: the futures are completed by
     * the producer's and the outcome listener's threads, and the answer is written on {@link #answers}.
     */
    private CompletableFuture<Void> submitAndAnswer(Context ctx, VoteCommand command, boolean respondAsync) {
        long deadline = System.nanoTime() + config.syncTimeout().toNanos();
        CommandSink.Submission submission = gateway.submit(command);
        CompletableFuture<Void> appended = submission.appended().orTimeout(remaining(deadline), TimeUnit.NANOSECONDS)
                .handleAsync((metadata, e) -> {
                    if (e != null) {
                        submission.answered().cancel(false);
                        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        if (cause instanceof UnreadableCommandException unreadable) { // logged by the gateway
                            throw ApiProblem.unavailable("processor-cannot-read", unreadable.getMessage()
                                    + "; nothing was accepted");
                        }
                        LOG.warn("command {} not appended to Kafka: {}", command.getCommandId(), e.toString());
                        throw ApiProblem.unavailable("kafka-unavailable", "the vote could not be stored durably; nothing was accepted");
                    }
                    return null;
                }, answers);
        if (respondAsync) {
            return appended.thenRun(() -> {
                ctx.header("Preference-Applied", "respond-async");
                pending(ctx, command);
            });
        }
        return appended.thenCompose(ignored -> submission.answered().orTimeout(remaining(deadline), TimeUnit.NANOSECONDS)
                .handleAsync((outcome, e) -> {
                    if (e != null) { // late (or the gateway closed): the vote is durable and will be applied
                        pending(ctx, command);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return answerOrRefuse(ctx, command, outcome, deadline);
                }, answers).thenCompose(answer -> answer));
    }

    private CompletableFuture<Void> answerOrRefuse(Context ctx, VoteCommand command, VoteOutcome outcome, long deadline) {
        if (outcome.getStatus() == OutcomeStatus.REJECTED) {
            Rejection reason = Rejection.bySlug(String.valueOf(outcome.getError())).orElseThrow(() ->
                    new IllegalStateException("unknown rejection '" + outcome.getError() + "' for " + command.getCommandId()));
            ApiProblem refused = problem(reason, String.valueOf(outcome.getDetail()));
            metrics.recordOutcome("rejected");
            if (outcome.getRetryAfterSeconds() > 0) {
                refused.withHeader("Retry-After", Integer.toString(outcome.getRetryAfterSeconds()));
            }
            throw refused;
        }
        return answer(ctx, command, outcome, deadline);
    }

    /**
     * Answers with the counts including this vote ({@link #withOwnVote}); while the view lacks an earlier change
     * of this voter-item, reads it again every {@value #CATCH_UP_POLL_MS} ms without holding a thread, and answers
     * 202 (applied, not yet visible) if it has not caught up by the vote's deadline.
     */
    private CompletableFuture<Void> answer(Context ctx, VoteCommand command, VoteOutcome outcome, long deadline) {
        ItemCountsView read;
        try {
            read = counts.counts(outcome.getItemType(), outcome.getItemId());
        } catch (Unavailable e) {
            LOG.info("counts for {}:{} unavailable after command {}: {}", outcome.getItemType(), outcome.getItemId(),
                    command.getCommandId(), e.getMessage());
            pending(ctx, command);
            return CompletableFuture.completedFuture(null);
        }
        Optional<ItemCountsView> withOwnVote = withOwnVote(read, outcome);
        if (withOwnVote.isEmpty()) {
            if (remaining(deadline) < TimeUnit.MILLISECONDS.toNanos(CATCH_UP_POLL_MS)) {
                pending(ctx, command);
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(CATCH_UP_POLL_MS, TimeUnit.MILLISECONDS, answers))
                    .thenCompose(ignored -> answer(ctx, command, outcome, deadline));
        }
        ItemCountsView view = withOwnVote.get();
        VoterState after = state(outcome.getAfter());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", outcome.getItemType());
        out.put("item_id", outcome.getItemId());
        out.put("outcome", outcome.getOutcome().name().toLowerCase());
        out.put("user_vote", after.vote());
        out.put("user_reaction", after.reaction());
        out.put("counts", ReadHandler.countsJson(view));
        out.put("position", outcome.getSourcePartition() + ":" + outcome.getSourceOffset());
        ctx.header(ReadHandler.POSITION_HEADER, view.position());
        metrics.recordOutcome(outcome.getOutcome().name().toLowerCase(Locale.ROOT));
        ctx.json(out);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The counts a vote is answered with: {@code view} as read, plus this voter's own change where the view does
     * not hold it yet, at what each vote weighs. The processor answers with the voter-item's public state
     * {@code before} (as of the change at {@code previous_offset}) and {@code after}:
     * <pre>
     * view reflects previous_offset | held | view reflects source_offset | answer
     * no                            |  -   |  -                          | none yet: the view lacks an earlier change of this voter-item
     * yes                           | yes  |  -                          | view + (before -> after): held votes are never in the public view
     * yes                           | no   | no                          | view + (before -> after)
     * yes                           | no   | yes                         | view
     * </pre>
     */
    static Optional<ItemCountsView> withOwnVote(ItemCountsView view, VoteOutcome outcome) {
        int partition = outcome.getSourcePartition();
        if (!view.reflects(partition, outcome.getPreviousOffset())) {
            return Optional.empty();
        }
        if (!outcome.getHeld() && view.reflects(partition, outcome.getSourceOffset())) {
            return Optional.of(view);
        }
        return Optional.of(view.plus(state(outcome.getBefore()), outcome.getBefore().getWeight(),
                state(outcome.getAfter()), outcome.getAfter().getWeight()));
    }

    /** {@code Idempotency-Key}: at most 64 visible ASCII characters. */
    private static String idempotencyKey(Context ctx) {
        String key = ctx.header("Idempotency-Key");
        if (key != null && !IDEMPOTENCY_KEY.matcher(key).matches()) {
            throw new ApiProblem(400, "invalid-idempotency-key", "Invalid Idempotency-Key",
                    "Idempotency-Key must be 1 to 64 visible ASCII characters");
        }
        return key;
    }

    private static ApiProblem problem(Rejection reason, String detail) {
        return new ApiProblem(reason.status, reason.slug, reason.title, detail);
    }

    private void pending(Context ctx, VoteCommand command) {
        metrics.recordOutcome("pending");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("command_id", command.getCommandId());
        out.put("status", "pending");
        ctx.status(202).json(out);
    }

    /**
     * RFC 7240 {@code Prefer: respond-async} (among other preferences, in any case, with or without
     * parameters): answer 202 as soon as the vote is durable instead of waiting for its outcome.
     */
    static boolean respondAsync(Context ctx) {
        for (String header : Collections.list(ctx.req().getHeaders("Prefer"))) {
            for (String preference : header.split(",")) {
                String token = preference.split(";", 2)[0].strip();
                if (token.equalsIgnoreCase("respond-async")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    private static VoterState state(VoterItemState s) {
        return new VoterState(s.getVote(), s.getReaction());
    }
}
