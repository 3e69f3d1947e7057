package dev.tally.ingest;

import dev.tally.common.IdentityHasher;
import dev.tally.common.VoterState;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.Unavailable;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP door. {@code POST /v1/votes} validates, identifies and hashes the voter, appends a command
 * and waits (bounded by {@code TALLY_SYNC_TIMEOUT}) for its outcome; reads answer from the views.
 * Every refusal is problem+json.
 */
public final class IngestApi {
    private static final Logger LOG = LoggerFactory.getLogger(IngestApi.class);
    public static final int MAX_BODY_BYTES = 4096;
    public static final String POSITION_HEADER = "Tally-Position";
    static final Set<String> DEFAULT_REACTIONS = Set.of("like", "love", "haha", "wow", "sad", "angry");
    private static final int MAX_BATCH = 100;

    private final IngestConfig config;
    private final IdentityHasher hasher;
    private final CommandGateway gateway;
    private final CountsQuery counts;
    private final VoterStateQuery voterStates;
    private final BooleanSupplier ready;

    private IngestApi(IngestConfig config, IdentityHasher hasher, CommandGateway gateway, CountsQuery counts,
                      VoterStateQuery voterStates, BooleanSupplier ready) {
        this.config = config;
        this.hasher = hasher;
        this.gateway = gateway;
        this.counts = counts;
        this.voterStates = voterStates;
        this.ready = ready;
    }

    /**
     * Builds (does not start) the Javalin app.
     *
     * @param extraRoutes more routes on the same server, e.g. the internal query routes in {@code ./tally up}
     */
    public static Javalin create(IngestConfig config, IdentityHasher hasher, CommandGateway gateway,
                                 CountsQuery counts, VoterStateQuery voterStates, BooleanSupplier ready,
                                 Consumer<JavalinConfig> extraRoutes) {
        IngestApi api = new IngestApi(config, hasher, gateway, counts, voterStates, ready);
        return Javalin.create(cfg -> {
            cfg.http.maxRequestSize = MAX_BODY_BYTES;
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = config.httpHost();
            cfg.jetty.port = config.httpPort();
            cfg.routes.post("/v1/votes", api::postVote);
            cfg.routes.get("/v1/votes/{itemType}/{itemId}", api::getItem);
            cfg.routes.get("/v1/votes/{itemType}", api::getBatch);
            cfg.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ok")));
            cfg.routes.get("/readyz", api::readyz);
            cfg.routes.exception(ApiProblem.class, IngestApi::problem);
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("unhandled error on {} {}", ctx.method(), ctx.path(), e);
                problem(new ApiProblem(500, "internal-error", "Internal error", "the server failed; nothing was applied"), ctx);
            });
            cfg.routes.error(404, ctx -> {
                String written = ctx.res().getContentType();
                if (written == null || !written.startsWith("application/problem+json")) {
                    problem(new ApiProblem(404, "not-found", "Not found", "no route for " + ctx.method() + " "
                            + VoteRequest.printable(ctx.path())), ctx);
                }
            });
            extraRoutes.accept(cfg);
        });
    }

    static void problem(ApiProblem p, Context ctx) {
        p.headers().forEach(ctx::header);
        ctx.status(p.status()).json(p.body()).contentType("application/problem+json");
    }

    private void readyz(Context ctx) {
        boolean ok = ready.getAsBoolean();
        ctx.status(ok ? 200 : 503).json(Map.of("status", ok ? "ready" : "starting"));
    }

    // ---- writes ----

    private void postVote(Context ctx) {
        if (!config.votingEnabled()) {
            throw ApiProblem.unavailable("voting-disabled", "voting is disabled (TALLY_VOTING_ENABLED=false); reads still work");
        }
        String contentType = ctx.header("Content-Type");
        if (contentType == null || !contentType.toLowerCase().matches("application/json\\s*(;.*)?")) {
            throw new ApiProblem(415, "unsupported-media-type", "Unsupported media type",
                    "Content-Type must be application/json");
        }
        long declared = ctx.contentLength();
        if (declared > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        byte[] body = ctx.bodyAsBytes();
        if (body.length > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        VoteRequest request = VoteRequest.parse(body, config.catalogVersion());
        String voter = voterHash(ctx).orElseThrow(() -> new ApiProblem(401, "unauthenticated", "Unauthenticated",
                "no voter identity: send X-Tally-User (trusted gateway)"));
        if (request.catalogVersion() != config.catalogVersion()) {
            throw new ApiProblem(409, "catalog-version", "Catalogue version conflict", "catalog_version "
                    + request.catalogVersion() + " is not the current version " + config.catalogVersion());
        }
        if (request.reaction() != null && !DEFAULT_REACTIONS.contains(request.reaction())) {
            throw new ApiProblem(400, "unknown-reaction", "Unknown reaction",
                    "'" + request.reaction() + "' is not an active reaction code");
        }
        VoteCommand command = VoteCommand.newBuilder()
                .setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                .setItemType(request.itemType()).setItemId(request.itemId())
                .setAction(request.action()).setVoteValue(request.voteValue()).setReaction(request.reaction())
                .setMode(request.mode()).setCatalogVersion(request.catalogVersion())
                .setRequestHash(sha256(body)).setReplyPartition(gateway.replyPartition())
                .setReceivedAt(Instant.now())
                .build();
        long deadline = System.nanoTime() + config.syncTimeout().toNanos();
        CommandGateway.Submission submission = gateway.submit(command);
        try {
            submission.appended().get(remaining(deadline), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            submission.answered().cancel(false);
            LOG.warn("command {} not appended to Kafka: {}", command.getCommandId(), e.toString());
            throw ApiProblem.unavailable("kafka-unavailable", "the vote could not be stored durably; nothing was accepted");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.unavailable("kafka-unavailable", "interrupted; nothing was accepted");
        }
        VoteOutcome outcome;
        try {
            outcome = submission.answered().get(remaining(deadline), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException | java.util.concurrent.CancellationException e) {
            pending(ctx, command);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pending(ctx, command);
            return;
        }
        if (outcome.getStatus() == OutcomeStatus.REJECTED) {
            throw new ApiProblem(400, String.valueOf(outcome.getError()), "Rejected", String.valueOf(outcome.getDetail()));
        }
        VoterState before = state(outcome.getBefore());
        VoterState after = state(outcome.getAfter());
        ItemCountsView view;
        try {
            view = counts.counts(request.itemType(), request.itemId());
        } catch (Unavailable e) {
            LOG.info("counts for {}:{} unavailable after command {}: {}", request.itemType(), request.itemId(),
                    command.getCommandId(), e.getMessage());
            pending(ctx, command);
            return;
        }
        if (!view.reflects(outcome.getSourcePartition(), outcome.getSourceOffset())) {
            view = view.plus(before, after); // not projected yet: add this voter's own change
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", request.itemType());
        out.put("item_id", request.itemId());
        out.put("outcome", outcome.getOutcome().name().toLowerCase());
        out.put("user_vote", after.vote());
        out.put("user_reaction", after.reaction());
        out.put("counts", countsJson(view));
        out.put("position", outcome.getSourcePartition() + ":" + outcome.getSourceOffset());
        ctx.header(POSITION_HEADER, view.position());
        ctx.json(out);
    }

    private static ApiProblem tooLarge() {
        return new ApiProblem(413, "body-too-large", "Body too large", "the body must be at most " + MAX_BODY_BYTES + " bytes");
    }

    private static void pending(Context ctx, VoteCommand command) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("command_id", command.getCommandId());
        out.put("status", "pending");
        ctx.status(202).json(out);
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    // ---- reads ----

    private void getItem(Context ctx) {
        String itemType = pathItemType(ctx.pathParam("itemType"));
        String itemId = ctx.pathParam("itemId");
        if (!VoteRequest.ITEM_ID.matcher(itemId).matches()) {
            throw ApiProblem.invalid("item id must match [A-Za-z0-9._:-]{1,64}");
        }
        Optional<String> voter = voterHash(ctx);
        ItemCountsView view = read(itemType, itemId);
        Map<String, Object> body = itemJson(view, voter);
        String etag = "\"" + sha256(body.toString().getBytes(StandardCharsets.UTF_8)).substring(0, 32) + "\"";
        ctx.header("ETag", etag);
        ctx.header("Cache-Control", "no-cache");
        ctx.header(POSITION_HEADER, view.position());
        if (etag.equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.json(body);
    }

    private void getBatch(Context ctx) {
        String itemType = pathItemType(ctx.pathParam("itemType"));
        String ids = ctx.queryParam("ids");
        if (ids == null || ids.isEmpty()) {
            throw ApiProblem.invalid("query parameter 'ids' is required: ?ids=a,b,c");
        }
        String[] split = ids.split(",", -1);
        if (split.length > MAX_BATCH) {
            throw ApiProblem.invalid("at most " + MAX_BATCH + " ids per request, got " + split.length);
        }
        Optional<String> voter = voterHash(ctx);
        List<Map<String, Object>> items = new ArrayList<>();
        List<String> positions = new ArrayList<>();
        for (String id : split) {
            if (!VoteRequest.ITEM_ID.matcher(id).matches()) {
                throw ApiProblem.invalid("item id '" + VoteRequest.printable(id) + "' must match [A-Za-z0-9._:-]{1,64}");
            }
            ItemCountsView view = read(itemType, id);
            positions.add(view.position());
            items.add(itemJson(view, voter));
        }
        ctx.header(POSITION_HEADER, String.join(";", positions));
        ctx.json(Map.of("items", items));
    }

    private static String pathItemType(String itemType) {
        if (!VoteRequest.ITEM_TYPE.matcher(itemType).matches()) {
            throw ApiProblem.invalid("item type must match [a-z][a-z0-9_-]{0,31}");
        }
        return itemType;
    }

    private ItemCountsView read(String itemType, String itemId) {
        try {
            return counts.counts(itemType, itemId);
        } catch (Unavailable e) {
            throw ApiProblem.unavailable("view-unavailable", "counts are not available right now (" + e.getMessage() + ")");
        }
    }

    private Map<String, Object> itemJson(ItemCountsView view, Optional<String> voter) {
        VoterState mine = VoterState.NONE;
        if (voter.isPresent()) {
            try {
                mine = voterStates.state(voter.get(), view.itemType(), view.itemId());
            } catch (Unavailable e) {
                throw ApiProblem.unavailable("view-unavailable", "your vote state is not available right now");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", view.itemType());
        out.put("item_id", view.itemId());
        out.putAll(countsJson(view));
        out.put("user_vote", mine.vote());
        out.put("user_reaction", mine.reaction());
        return out;
    }

    private static Map<String, Object> countsJson(ItemCountsView view) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("upvotes", view.upvotes());
        out.put("downvotes", view.downvotes());
        out.put("score", view.score());
        out.put("reactions", new TreeMap<>(view.reactions()));
        return out;
    }

    // ---- identity ----

    /** The hashed voter, from the trusted gateway header when it is honoured. */
    private Optional<String> voterHash(Context ctx) {
        if (config.trustUserHeader()) {
            String user = ctx.header("X-Tally-User");
            if (user != null) {
                if (!user.matches("[\\x21-\\x7E]{1,128}")) {
                    throw new ApiProblem(401, "bad-credentials", "Bad credentials",
                            "X-Tally-User must be 1 to 128 visible ASCII characters");
                }
                return Optional.of(hasher.voter("user:" + user));
            }
        }
        return Optional.empty();
    }

    private static VoterState state(VoterItemState s) {
        return new VoterState(s.getVote(), s.getReaction());
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

}
