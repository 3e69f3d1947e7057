package dev.tally.launcher;

import dev.tally.broker.FreePort;
import dev.tally.common.CompactedTopicView;
import dev.tally.common.DeadLetterWatch;
import dev.tally.common.Env;
import dev.tally.common.KafkaAccessCheck;
import dev.tally.common.NativeHeapTrim;
import dev.tally.common.Profile;
import dev.tally.common.QuarantineDecisions;
import dev.tally.common.ReactionRegistry;
import dev.tally.common.Readiness;
import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.TallyMetrics;
import dev.tally.common.TopicAdmin;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.common.query.VoterStateView;
import dev.tally.fraud.FraudDetector;
import dev.tally.fraud.FraudDetectorConfig;
import dev.tally.ingest.CommandGateway;
import dev.tally.ingest.Identities;
import dev.tally.ingest.IngestApi;
import dev.tally.ingest.IngestConfig;
import dev.tally.ingest.LiveUpdates;
import dev.tally.ingest.WebhookHandler;
import dev.tally.ingest.challenge.ChallengeConfig;
import dev.tally.ingest.ops.HttpMetrics;
import dev.tally.ingest.ops.OpsRoutes;
import dev.tally.processor.VoteProcessor;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.projector.CountProjector;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.projector.ranking.RankingConfig;
import dev.tally.projector.ranking.RankingJob;
import dev.tally.projector.ranking.RankingRoutes;
import dev.tally.projector.rankings.RankedLists;
import dev.tally.projector.rankings.RankingsConfig;
import dev.tally.projector.rankings.RankingsRoute;
import dev.tally.projector.reconcile.ReconcileConfig;
import dev.tally.projector.reconcile.ReconcileJob;
import dev.tally.schemas.Topics;
import dev.tally.webhooks.DeliveryLog;
import dev.tally.webhooks.Subscriptions;
import dev.tally.webhooks.WebhookSecrets;
import dev.tally.webhooks.WebhookSender;
import dev.tally.webhooks.WebhooksConfig;
import io.javalin.Javalin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of Tally running some of its services against a Kafka cluster: all four for
 * {@code ./tally up}, or one for {@code ./tally <service>}. Streams services started alone serve their
 * interactive-query routes on {@code TALLY_QUERY_PORT} (their {@code application.server}); the ingest API
 * started alone reads through {@code TALLY_PROJECTOR_URL} and {@code TALLY_PROCESSOR_URL}.
 */
public final class TallyNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TallyNode.class);

    /** The four services, by the names the CLI and the contract use. */
    public enum Service {
        INGEST_API("ingest-api"), VOTE_PROCESSOR("vote-processor"), FRAUD_DETECTOR("fraud-detector"),
        COUNT_PROJECTOR("count-projector");

        public final String cliName;

        Service(String cliName) {
            this.cliName = cliName;
        }
    }

    private final Runtime runtime;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<StreamsService> streams = new ArrayList<>();
    private final TallyMetrics metrics = new TallyMetrics();
    private VoteProcessor processor;
    private CountProjector projector;
    private RankedLists rankedLists;
    private Javalin http;
    private String adminToken;
    private boolean adminTokenGiven;
    private DeadLetterWatch deadLetters;
    private Subscriptions webhooks;
    private DeliveryLog webhookLog;

    private TallyNode(Runtime runtime) {
        this.runtime = runtime;
    }

    public static TallyNode start(Env env, Set<Service> services) {
        Runtime runtime = Runtime.from(env);
        TallyNode node = new TallyNode(runtime);
        try {
            node.startServices(env, services);
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Reads and checks every configuration value the given services would use, without starting anything;
     * throws {@link Env.ConfigException} naming the first bad variable.
     */
    public static void validate(Env env, Set<Service> services) {
        Runtime runtime = Runtime.from(env);
        NativeHeapTrim.interval(env);
        queryAddress(env, services);
        if (services.contains(Service.VOTE_PROCESSOR)) {
            VoteProcessorConfig.from(env);
        }
        if (services.contains(Service.COUNT_PROJECTOR)) {
            CountProjectorConfig.from(env);
        }
        if (services.contains(Service.FRAUD_DETECTOR)) {
            FraudDetectorConfig.from(env);
        }
        if (services.contains(Service.COUNT_PROJECTOR) || services.contains(Service.INGEST_API)) {
            RankingConfig.from(env);
        }
        if (services.contains(Service.COUNT_PROJECTOR)) {
            ReconcileConfig.from(env);
            RankingsConfig.from(env);
        }
        if (services.contains(Service.INGEST_API)) {
            IngestConfig config = IngestConfig.from(env, Profile.from(env));
            CommandGateway.checkReplyPartition(config.replyPartition(), runtime.kafka());
            Identities.from(env, Profile.from(env), runtime.secrets(), config, "validation-only-token");
            ChallengeConfig.from(env, Profile.from(env));
            if (services.size() == 1) {
                remoteCounts(config);
                remoteStates(config);
            }
        }
    }

    /**
     * Where this process serves interactive queries for its vote-processor or count-projector (their
     * {@code application.server}, so other instances can route to it): beside the ingest API on its HTTP
     * port when it runs here too, otherwise on {@code TALLY_QUERY_PORT} [8091]; advertised as
     * {@code TALLY_QUERY_HOST} [127.0.0.1].
     */
    static HostInfo queryAddress(Env env, Set<Service> services) {
        boolean queryable = services.contains(Service.VOTE_PROCESSOR) || services.contains(Service.COUNT_PROJECTOR);
        if (!queryable) {
            return null;
        }
        int port = services.contains(Service.INGEST_API)
                ? env.integer("TALLY_HTTP_PORT", 8080, 0, 65535)
                : env.integer("TALLY_QUERY_PORT", 8091, 1, 65535);
        return new HostInfo(env.string("TALLY_QUERY_HOST", "127.0.0.1"), port);
    }

    private void startServices(Env env, Set<Service> services) {
        closeables.add(NativeHeapTrim.start(NativeHeapTrim.interval(env)));
        // a permission Kafka withholds stops the start here, named, before any service retries against it
        KafkaAccessCheck.check(runtime.kafka());
        TopicAdmin.ensureTopics(runtime.kafka());
        KafkaAccessCheck.checkTopics(runtime.kafka());
        deadLetters = new DeadLetterWatch(runtime.kafka(), metrics);
        closeables.add(deadLetters);
        if (services.contains(Service.INGEST_API) && env.integer("TALLY_HTTP_PORT", 8080, 0, 65535) == 0) {
            env = env.with("TALLY_HTTP_PORT", Integer.toString(FreePort.pick())); // known before Streams advertise it
        }
        HostInfo self = queryAddress(env, services);
        if (services.contains(Service.VOTE_PROCESSOR)) {
            processor = VoteProcessor.start(runtime, VoteProcessorConfig.from(env), self);
            track(processor.service(), processor);
        }
        if (services.contains(Service.COUNT_PROJECTOR)) {
            projector = CountProjector.start(runtime, CountProjectorConfig.from(env), self);
            track(projector.service(), projector);
            closeables.add(new RankingJob(runtime.kafka(), RankingConfig.from(env)));
            RankingsConfig lists = RankingsConfig.from(env);
            if (lists.enabled()) {
                // the node's own policy is part of its readiness; lists of other policies, started later, are not
                rankedLists = RankedLists.start(runtime, lists, self,
                        started -> metrics.bindStreams(started.service().name(), started.service().streams()));
                rankedLists.get(lists.policy()).ifPresent(own -> streams.add(own.service()));
                closeables.add(rankedLists);
            }
            closeables.add(0, ReconcileJob.from(env, runtime.kafka()).start());
            WebhooksConfig hooks = WebhooksConfig.from(env, runtime.profile());
            if (hooks.enabled()) {
                closeables.add(0, new WebhookSender(runtime.kafka(), hooks, webhooks(), webhookLog(),
                        new WebhookSecrets(runtime.secrets()), metrics));
            }
        }
        if (services.contains(Service.FRAUD_DETECTOR)) {
            StreamsService fraud = FraudDetector.start(runtime, FraudDetectorConfig.from(env));
            track(fraud, fraud);
        }
        if (services.contains(Service.INGEST_API)) {
            startIngest(env);
        } else if (self != null) {
            startQueryServer(self);
        }
    }

    /** The webhook subscriptions, read once by every part of the node that needs them. */
    private Subscriptions webhooks() {
        if (webhooks == null) {
            webhooks = new Subscriptions(runtime.kafka());
            closeables.add(webhooks);
        }
        return webhooks;
    }

    private DeliveryLog webhookLog() {
        if (webhookLog == null) {
            webhookLog = new DeliveryLog(runtime.kafka());
            closeables.add(webhookLog);
        }
        return webhookLog;
    }

    private void track(StreamsService service, AutoCloseable closeable) {
        streams.add(service);
        metrics.bindStreams(service.name(), service.streams());
        closeables.add(closeable);
    }

    private void startIngest(Env env) {
        IngestConfig config = IngestConfig.from(env, runtime.profile());
        adminTokenGiven = config.adminToken().isPresent();
        adminToken = config.adminToken().orElseGet(() ->
                HexFormat.of().formatHex(runtime.secrets().derive("admin-token")).substring(0, 32));
        CountsQuery counts = projector != null ? projector : remoteCounts(config);
        VoterStateQuery states = processor != null ? processor : remoteStates(config);
        CommandGateway gateway = new CommandGateway(runtime.kafka(), config.replyPartition(), config.syncTimeout());
        closeables.add(gateway);
        var reactions = new CompactedTopicView<>(runtime.kafka(), Topics.REACTION_TYPES);
        closeables.add(reactions);
        var catalog = new CompactedTopicView<>(runtime.kafka(), Topics.ITEM_CATALOG);
        closeables.add(catalog);
        var registry = new ReactionRegistry(runtime.kafka());
        closeables.add(registry);
        var live = LiveUpdates.follow(runtime.kafka());
        closeables.add(live);
        var rankings = new CompactedTopicView<>(runtime.kafka(), Topics.RANKINGS);
        closeables.add(rankings);
        RankingConfig rankingConfig = RankingConfig.from(env);
        var identities = Identities.from(env, runtime.profile(), runtime.secrets(), config, adminToken);
        var flags = new CompactedTopicView<>(runtime.kafka(), Topics.FRAUD_FLAGS);
        closeables.add(flags);
        var quarantine = new CompactedTopicView<>(runtime.kafka(), Topics.QUARANTINE);
        closeables.add(quarantine);
        var decisions = new QuarantineDecisions(runtime.kafka());
        closeables.add(decisions);
        var webhookPositions = new CompactedTopicView<>(runtime.kafka(), Topics.WEBHOOK_POSITIONS);
        closeables.add(webhookPositions);
        var webhookRoutes = new WebhookHandler(webhooks(), webhookLog(), webhookPositions, new WebhookSecrets(runtime.secrets()),
                WebhooksConfig.from(env, runtime.profile()), identities);
        var deps = new IngestApi.Deps(config, identities, gateway, counts, states,
                reactions, catalog, registry, live, this::readiness, this::warnings, metrics, flags, ChallengeConfig.from(env, runtime.profile()),
                quarantine, decisions.sender());
        http = IngestApi.create(deps, cfg -> {
            if (processor != null) {
                processor.mountInternalRoutes(cfg.routes);
            }
            if (projector != null) {
                projector.mountInternalRoutes(cfg.routes);
                if (rankedLists != null) {
                    rankedLists.mountInternalRoutes(cfg.routes);
                }
                RankingsRoute.mount(cfg.routes, rankedLists);
            }
            RankingRoutes.mount(cfg.routes, rankings, rankingConfig.maxAge());
            webhookRoutes.mount(cfg.routes);
        }).start();
        closeables.add(0, http::stop);
        closeables.add(0, () -> live.endStreams(Duration.ofSeconds(2))); // first: streams end before Jetty stops
    }

    private static CountsQuery remoteCounts(IngestConfig config) {
        String url = config.projectorUrl().orElseThrow(() -> new Env.ConfigException(
                "TALLY_PROJECTOR_URL is required when the ingest API runs without a count-projector"));
        RemoteQuery remote = new RemoteQuery();
        return (type, id) -> remote.get(url, "/internal/counts/" + type + "/" + id, ItemCountsView.class);
    }

    private static VoterStateQuery remoteStates(IngestConfig config) {
        String url = config.processorUrl().orElseThrow(() -> new Env.ConfigException(
                "TALLY_PROCESSOR_URL is required when the ingest API runs without a vote-processor"));
        RemoteQuery remote = new RemoteQuery();
        return (voter, type, id) -> remote.get(url, "/internal/voter-state/" + voter + "/" + type + "/" + id,
                VoterStateView.class);
    }

    private void startQueryServer(HostInfo self) {
        http = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = runtime.profile().isDev() ? "127.0.0.1" : "0.0.0.0";
            cfg.jetty.port = self.port();
            HttpMetrics.install(cfg, metrics);
            OpsRoutes.mountMetrics(cfg.routes, metrics);
            cfg.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ok")));
            cfg.routes.get("/readyz", ctx -> {
                List<Readiness> parts = readiness();
                ctx.status(Readiness.all(parts) ? 200 : 503).json(Readiness.body(parts, warnings()));
            });
            if (processor != null) {
                processor.mountInternalRoutes(cfg.routes);
            }
            if (projector != null) {
                projector.mountInternalRoutes(cfg.routes);
                if (rankedLists != null) {
                    rankedLists.mountInternalRoutes(cfg.routes);
                }
            }
        }).start();
        closeables.add(0, http::stop);
    }

    /** Every local Streams application is RUNNING. */
    public boolean ready() {
        return streams.stream().allMatch(StreamsService::isRunning);
    }

    /**
     * Waits until {@link #ready()}, at most {@code timeout}; returns whether it got there.
     *
     * @throws Env.ConfigException when a Streams application stopped for good because Kafka refused it, naming why
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready() && System.nanoTime() < deadline) {
            for (StreamsService s : streams) {
                if (s.failure() != null) {
                    throw new Env.ConfigException(s.failure());
                }
            }
            Thread.sleep(50);
        }
        return ready();
    }

    /** What {@code /readyz} warns of while ready: dead letters not replayed. */
    public List<String> warnings() {
        return deadLetters == null ? List.of() : deadLetters.warnings();
    }

    /** Each local Streams application's state, for {@code /readyz}. */
    public List<Readiness> readiness() {
        return streams.stream().map(StreamsService::readiness).toList();
    }

    /** The Streams applications running in this process. */
    public List<StreamsService> streamsServices() {
        return List.copyOf(streams);
    }

    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    public String adminToken() {
        return adminToken;
    }

    /** The admin token as {@code ./tally up} may print it: one it derived (dev); one it was given, never. */
    public String adminTokenToShow() {
        return adminTokenGiven ? "(as configured)" : adminToken;
    }

    public Runtime runtime() {
        return runtime;
    }

    @Override
    public void close() {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", c, e);
            }
        }
        closeables.clear();
        metrics.close();
    }
}
