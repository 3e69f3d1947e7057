package dev.tally.ingest;

import dev.tally.common.KeyedView;
import dev.tally.common.QuarantineDecisions;
import dev.tally.common.Readiness;
import dev.tally.common.TallyMetrics;
import dev.tally.common.ReactionWriter;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.ingest.challenge.ChallengeVerifier;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.ReactionType;
import dev.tally.ingest.ops.HttpMetrics;
import dev.tally.ingest.ops.OpsRoutes;
import io.javalin.Javalin;
import io.micrometer.core.instrument.Gauge;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import java.util.function.Supplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP door: routes to the handlers, and maps every failure to problem+json in one place. Reads
 * {@code tally.vote-outcomes}, {@code tally.item-counts} (live updates), {@code tally.reaction-types} and
 * {@code tally.item-catalog}; writes
 * {@code tally.vote-commands} and {@code tally.reaction-types}.
 */
public final class IngestApi {
    private static final Logger LOG = LoggerFactory.getLogger(IngestApi.class);
    /** The listen backlog (Linux caps it at {@code net.core.somaxconn}, 4,096 by default). */
    private static final int ACCEPT_QUEUE = 1024;
    private static final int HTTP_THREADS = 200;

    /** What the API needs; the launcher wires it. */
    public record Deps(IngestConfig config, Identities identities, CommandSink gateway,
                       CountsQuery counts, VoterStateQuery voterStates, KeyedView<ReactionType> reactions,
                       KeyedView<ItemStatus> catalog, ReactionWriter registry, LiveUpdates live,
                       Supplier<List<Readiness>> readiness, Supplier<List<String>> warnings, TallyMetrics metrics, KeyedView<FraudFlag> flags,
                       ChallengeVerifier challenges, KeyedView<QuarantineRecord> quarantine,
                       QuarantineDecisions.Sender decisions) {}

    private IngestApi() {}

    /**
     * Builds (does not start) the Javalin app.
     *
     * @param extraRoutes more routes on the same server, e.g. the internal query routes in {@code ./tally up}
     */
    public static Javalin create(Deps deps, Consumer<JavalinConfig> extraRoutes) {
        IngestConfig config = deps.config();
        Identities identities = deps.identities();
        // neither a live stream nor a POST waiting for its outcome holds a thread; answers are written on this pool
        QueuedThreadPool threads = new QueuedThreadPool(HTTP_THREADS, 8, 60_000);
        threads.setName("tally-http");
        VoteHandler votes = new VoteHandler(config, identities, deps.gateway(), deps.counts(), deps.reactions(), deps.catalog(),
                deps.metrics(), new FraudGate(deps.flags(), deps.challenges()), threads);
        QuarantineHandler review = new QuarantineHandler(deps.quarantine(), deps.decisions(), identities);
        TallyMetrics metrics = deps.metrics();
        ReadHandler reads = new ReadHandler(identities, deps.counts(), deps.voterStates(), config.syncTimeout());
        ReactionHandler reactions = new ReactionHandler(deps.reactions(), deps.registry(), identities);
        StreamHandler streams = new StreamHandler(deps.live(), deps.counts(), config.maxStreams());
        Gauge.builder(StreamHandler.OPEN_STREAMS, streams, StreamHandler::open).description("Live event streams open")
                .register(deps.metrics().registry());
        Instant started = Instant.now();
        Supplier<List<Readiness>> readiness = () -> {
            List<Readiness> parts = new ArrayList<>(deps.readiness().get());
            parts.add(Readiness.view("reactions-view", deps.reactions(), started));
            parts.add(Readiness.view("item-catalog-view", deps.catalog(), started));
            parts.add(Readiness.view("fraud-flags-view", deps.flags(), started));
            return parts;
        };
        return Javalin.create(cfg -> {
            HttpMetrics.install(cfg, metrics);
            cfg.http.maxRequestSize = RequestLimits.MAX_BODY_BYTES;
            // the chunk Javalin copies each answer through, allocated per response: answers are a few hundred
            // bytes, and Jetty's own (pooled) 32 kB output buffer still batches the writes
            cfg.http.responseBufferSize = 4096;
            cfg.http.prefer405over404 = true;
            cfg.router.ignoreTrailingSlashes = false; // exact paths: /v1/votes/ is not /v1/votes
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.threadPool = threads;
            cfg.jetty.addConnector((server, http) -> {
                ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
                connector.setHost(config.httpHost());
                connector.setPort(config.httpPort());
                // connections the kernel holds before the acceptor takes them: Java's default is 50, and a SYN
                // dropped past it is only retried after 1, 3, 7 s… — a burst of new clients (a page load, a
                // bench, many votes waiting at once) waits seconds for a connect the server could take at once
                connector.setAcceptQueueSize(ACCEPT_QUEUE);
                return connector;
            });
            // Jetty reuses a header line it parsed before on the connection when the new one equals it ignoring
            // case: a cookie (a MAC) altered only in the case of a letter was taken for the one sent before it
            cfg.jetty.modifyHttpConfiguration(http -> {
                http.setHeaderCacheCaseSensitive(true);
                http.setRequestHeaderSize(ProtocolErrors.MAX_HEADER_BYTES);
            });
            cfg.jetty.modifyServer(server -> server.setErrorHandler(new ProtocolErrors()));
            cfg.routes.before(ctx -> RequestLimits.checkOrigin(ctx, config.allowedOrigins()));
            cfg.routes.post("/v1/votes", votes::post);
            cfg.routes.get("/v1/votes/{itemType}/{itemId}", reads::item);
            cfg.routes.get("/v1/votes/{itemType}", reads::batch);
            cfg.routes.get("/v1/reactions", reactions::list);
            cfg.routes.get("/v1/stream", streams::stream);
            cfg.routes.put("/v1/admin/reactions/{code}", reactions::put);
            cfg.routes.delete("/v1/admin/reactions/{code}", reactions::retire);
            cfg.routes.get("/v1/admin/quarantine", review::list);
            cfg.routes.post("/v1/admin/quarantine/{id}/release", review::release);
            cfg.routes.post("/v1/admin/quarantine/{id}/discard", review::discard);
            OpsRoutes.mount(cfg.routes, metrics);
            cfg.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ok")));
            cfg.routes.get("/readyz", ctx -> {
                List<Readiness> parts = readiness.get();
                ctx.status(Readiness.all(parts) ? 200 : 503).json(Readiness.body(parts, deps.warnings().get()));
            });
            cfg.routes.exception(ApiProblem.class, (p, ctx) -> refuse(metrics, p, ctx));
            cfg.routes.exception(HttpResponseException.class, (e, ctx) -> refuse(metrics, javalinRefusal(e, ctx), ctx));
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                try {
                    LOG.error("unhandled error on {} {}", ctx.method(), ctx.path(), e);
                    refuse(metrics, new ApiProblem(500, "internal-error", "Internal error", "the server failed; nothing was applied"), ctx);
                } catch (RuntimeException gone) { // the response was torn down already: nobody to answer
                    LOG.debug("error after the response was gone: {}", e.toString());
                }
            });
            cfg.routes.error(404, ctx -> unlessProblem(metrics, ctx, notFound(ctx)));
            cfg.routes.error(405, ctx -> unlessProblem(metrics, ctx, methodNotAllowed(ctx)));
            DemoPage.mount(cfg);
            extraRoutes.accept(cfg);
        });
    }

    /** Javalin's own refusals (no route, wrong method, body over the limit) as problems. */
    private static ApiProblem javalinRefusal(HttpResponseException e, Context ctx) {
        return switch (e.getStatus()) {
            case 404 -> notFound(ctx);
            case 405 -> methodNotAllowed(ctx);
            case 413 -> new ApiProblem(413, "body-too-large", "Body too large",
                    "the body must be at most " + RequestLimits.MAX_BODY_BYTES + " bytes");
            default -> new ApiProblem(e.getStatus(), "http-" + e.getStatus(), "Request refused", String.valueOf(e.getMessage()));
        };
    }

    private static ApiProblem notFound(Context ctx) {
        return new ApiProblem(404, "not-found", "Not found", "no route for " + ctx.method() + " " + VoteRequest.printable(ctx.path()));
    }

    private static ApiProblem methodNotAllowed(Context ctx) {
        return new ApiProblem(405, "method-not-allowed", "Method not allowed",
                ctx.method() + " is not allowed on " + VoteRequest.printable(ctx.path()));
    }

    /** Javalin's own 404/405 become problems, unless a handler already answered with one. */
    private static void unlessProblem(TallyMetrics metrics, Context ctx, ApiProblem p) {
        String written = ctx.res().getContentType();
        if (written == null || !written.startsWith("application/problem+json")) {
            refuse(metrics, p, ctx);
        }
    }

    /** Every refusal passes here: counted by type, answered as problem+json. */
    private static void refuse(TallyMetrics metrics, ApiProblem p, Context ctx) {
        metrics.recordRefusal(p.type());
        problem(p, ctx);
    }

    static void problem(ApiProblem p, Context ctx) {
        p.headers().forEach(ctx::header);
        ctx.status(p.status()).json(p.body()).contentType("application/problem+json");
    }
}
