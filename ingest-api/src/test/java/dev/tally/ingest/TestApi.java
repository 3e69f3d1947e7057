package dev.tally.ingest;

import dev.tally.common.Env;
import dev.tally.common.KeyedView;
import dev.tally.common.Profile;
import dev.tally.common.ReactionRegistry;
import dev.tally.common.ReactionWriter;
import dev.tally.common.Secrets;
import dev.tally.common.TallyMetrics;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.VoterStateView;
import dev.tally.schema.ItemState;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import io.javalin.Javalin;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The real HTTP API (Javalin, real handlers and parsing) over in-memory stand-ins for Kafka: commands are
 * recorded and answered at once, so tests can count exactly what was accepted.
 */
final class TestApi implements AutoCloseable {
    static final String ADMIN_TOKEN = "test-admin-token-0123456789";
    static final String ORIGIN = "http://app.example";

    final List<VoteCommand> submitted = new CopyOnWriteArrayList<>();
    private final boolean holdAnswers;
    private final List<Runnable> held = new CopyOnWriteArrayList<>();
    final MapView<dev.tally.schema.FraudFlag> flags = new MapView<>();
    final LiveUpdates live = new LiveUpdates();
    final TallyMetrics metrics = new TallyMetrics();
    /** The network hash of 192.0.2.1 today, under the test secret: challenged in every TestApi. */
    static final String CHALLENGED_NETWORK = new dev.tally.common.IdentityHasher(Secrets.of("test-secret-0123456789abcdef0123456789"))
            .network(dev.tally.common.NetworkPrefix.parseLiteral("192.0.2.1").orElseThrow(), java.time.LocalDate.now(java.time.ZoneOffset.UTC));
    final Javalin app;

    TestApi() {
        this(Map.of());
    }

    TestApi(Map<String, String> env) {
        this(env, false);
    }

    /** @param holdAnswers answers wait for {@link #releaseAnswers} instead of coming at once */
    TestApi(Map<String, String> env, boolean holdAnswers) {
        this.holdAnswers = holdAnswers;
        Env e = Env.of(Map.of("TALLY_HTTP_PORT", "0", "TALLY_ALLOWED_ORIGINS", ORIGIN)).with(env);
        IngestConfig config = IngestConfig.from(e, Profile.from(e));
        var reactions = new MapView<ReactionType>();
        ReactionRegistry.DEFAULT_CODES.forEach(c -> reactions.applyLocal(c, new ReactionType(c, c, null, true, Instant.EPOCH)));
        reactions.applyLocal("sad", new ReactionType("sad", "Sad", null, false, Instant.EPOCH));
        var catalog = new MapView<ItemStatus>();
        flags.applyLocal("net:" + CHALLENGED_NETWORK, new dev.tally.schema.FraudFlag("net:x", dev.tally.schema.FlagKind.CHALLENGE,
                "test", Instant.EPOCH, Instant.parse("2999-01-01T00:00:00Z")));
        catalog.applyLocal("post:locked", new ItemStatus("post", "locked", ItemState.LOCKED, Instant.EPOCH));
        catalog.applyLocal("post:deleted", new ItemStatus("post", "deleted", ItemState.DELETED, Instant.EPOCH));
        ReactionWriter writer = new ReactionWriter() {
            @Override
            public ReactionType put(String code, String label, String iconUrl) {
                return new ReactionType(code, label, iconUrl, true, Instant.EPOCH);
            }

            @Override
            public ReactionType retire(ReactionType current) {
                return ReactionType.newBuilder(current).setActive(false).build();
            }
        };
        var identities = Identities.from(e, Profile.from(e), Secrets.of("test-secret-0123456789abcdef0123456789"), config,
                ADMIN_TOKEN);
        var deps = new IngestApi.Deps(config, identities, new RecordingSink(), ItemCountsView::empty, (voter, type, id) -> VoterStateView.none(0),
                reactions, catalog, writer, live, java.util.List::of, java.util.List::of, metrics, flags,
                new dev.tally.ingest.challenge.DevChallengeVerifier(new Profile("dev")), new MapView<>(), (held, decision, reason) -> {});
        app = IngestApi.create(deps, cfg -> {}).start();
    }

    int port() {
        return app.port();
    }

    /** Answers every command held so far (see {@link #TestApi(Map, boolean)}). */
    void releaseAnswers() {
        held.forEach(Runnable::run);
        held.clear();
    }

    /** As the node does: live streams end first, then the server stops. */
    @Override
    public void close() {
        try {
            live.endStreams(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        app.stop();
        live.close();
    }

    /** Records each command and answers it as an accepted vote: at once, or when released. */
    private final class RecordingSink implements CommandSink {
        @Override
        public Submission submit(VoteCommand command) {
            submitted.add(command);
            VoterItemState after = new VoterItemState(command.getVoteValue(), command.getReaction(), 1.0);
            VoteOutcome outcome = VoteOutcome.newBuilder().setCommandId(command.getCommandId())
                    .setItemType(command.getItemType()).setItemId(command.getItemId())
                    .setStatus(OutcomeStatus.APPLIED).setOutcome(Outcome.ACCEPTED)
                    .setBefore(new VoterItemState(0, null, 1.0)).setAfter(after)
                    .setReplyPartition(0).setSourcePartition(0).setSourceOffset(submitted.size()).build();
            CompletableFuture<VoteOutcome> answered = new CompletableFuture<>();
            if (holdAnswers) {
                held.add(() -> answered.complete(outcome));
            } else {
                answered.complete(outcome);
            }
            return new Submission(CompletableFuture.completedFuture(null), answered);
        }

        @Override
        public int replyPartition() {
            return 0;
        }
    }

    /** A keyed view over a map. */
    static final class MapView<V> implements KeyedView<V> {
        private final Map<String, V> values = new ConcurrentHashMap<>();

        @Override
        public Optional<V> get(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public Map<String, V> snapshot() {
            return Map.copyOf(values);
        }

        @Override
        public boolean caughtUp() {
            return true;
        }

        @Override
        public void applyLocal(String key, V value) {
            values.put(key, value);
        }
    }
}
