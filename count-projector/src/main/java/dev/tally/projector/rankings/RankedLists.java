package dev.tally.projector.rankings;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.Runtime;
import dev.tally.common.query.Unavailable;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.schema.RankingLists;
import dev.tally.schema.RankingListsStatus;
import dev.tally.schemas.Topics;
import io.javalin.config.RoutesConfig;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ranked lists a node keeps: those of its own policy ({@code TALLY_RANKING_POLICY}), and those of every policy
 * {@code tally.ranking-lists} names, started as they appear there ({@code ./tally rankings rebuild}). A request that
 * names no policy is answered with the lists that serve by default there once they are live, else with the node's own.
 */
public final class RankedLists implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RankedLists.class);
    private static final long FOLLOW_SECONDS = 2;

    private final Runtime runtime;
    private final RankingsConfig config;
    private final HostInfo self;
    private final Consumer<RankingService> started;
    private final CompactedTopicView<RankingLists> listed;
    private final Map<RankingPolicy, RankingService> running = new EnumMap<>(RankingPolicy.class);
    private final ScheduledExecutorService follow = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tally-ranking-lists");
        t.setDaemon(true);
        return t;
    });

    private RankedLists(Runtime runtime, RankingsConfig config, HostInfo self, Consumer<RankingService> started) {
        this.runtime = runtime;
        this.config = config;
        this.self = self;
        this.started = started;
        this.listed = new CompactedTopicView<>(runtime.kafka(), Topics.RANKING_LISTS);
    }

    /**
     * Starts the node's own policy's lists at once, and follows {@code tally.ranking-lists} for more.
     *
     * @param started told of every policy's lists as they start (their Streams application, for metrics and closing)
     */
    public static RankedLists start(Runtime runtime, RankingsConfig config, HostInfo self, Consumer<RankingService> started) {
        RankedLists lists = new RankedLists(runtime, config, self, started);
        lists.startLists(config.policy());
        lists.follow.scheduleWithFixedDelay(lists::followListed, 0, FOLLOW_SECONDS, TimeUnit.SECONDS);
        return lists;
    }

    private void followListed() {
        try {
            for (RankingLists entry : listed.snapshot().values()) {
                policyOf(entry).ifPresent(this::startLists);
            }
        } catch (RuntimeException e) {
            LOG.warn("cannot start the ranked lists tally.ranking-lists names: {}", e.toString());
        }
    }

    /** The policy an entry names, if this version keeps lists of it (same name and version). */
    private static Optional<RankingPolicy> policyOf(RankingLists entry) {
        return Arrays.stream(RankingPolicy.values())
                .filter(p -> p.wireName().equals(entry.getPolicy()) && p.version() == entry.getVersion()).findFirst();
    }

    private synchronized void startLists(RankingPolicy policy) {
        if (!running.containsKey(policy)) {
            RankingService service = RankingService.start(runtime, config.withPolicy(policy), self);
            running.put(policy, service);
            started.accept(service);
            LOG.info("keeping the ranked lists of policy {} (application {})", policy.wireName(), config.applicationId(policy));
        }
    }

    /** The lists of {@code policy}, if this node keeps them. */
    public synchronized Optional<RankingService> get(RankingPolicy policy) {
        return Optional.ofNullable(running.get(policy));
    }

    public synchronized Set<RankingPolicy> policies() {
        return Set.copyOf(running.keySet());
    }

    /** What a request that names no policy reads: the live lists that serve by default, else the node's own. */
    public RankingPolicy defaultPolicy() {
        for (RankingLists entry : listed.snapshot().values()) {
            if (entry.getServesDefault() && entry.getStatus() == RankingListsStatus.LIVE) {
                Optional<RankingPolicy> policy = policyOf(entry).filter(p -> get(p).isPresent());
                if (policy.isPresent()) {
                    return policy.get();
                }
            }
        }
        return config.policy();
    }

    /** Where other instances ask for their part of a page of any policy's list. */
    public void mountInternalRoutes(RoutesConfig routes) {
        Base64.Decoder b64 = Base64.getUrlDecoder();
        routes.get("/internal/rankings/{policy}/{itemType}", ctx -> {
            try {
                RankingService service = get(RankingPolicy.parse(ctx.pathParam("policy")))
                        .orElseThrow(() -> new Unavailable("no lists of policy " + ctx.pathParam("policy") + " here"));
                String after = ctx.queryParam("after");
                List<Integer> parts = Arrays.stream(ctx.queryParam("partitions").split(",")).map(Integer::valueOf).toList();
                ctx.json(service.local(ctx.pathParam("itemType"), RankedList.valueOf(ctx.queryParam("list")),
                        after == null ? null : OrderKey.of(b64.decode(after)),
                        Integer.parseInt(ctx.queryParam("limit")), "true".equals(ctx.queryParam("above_zero")), parts));
            } catch (Unavailable e) {
                ctx.status(503).header("Retry-After", "1").result(e.getMessage());
            }
        });
    }

    @Override
    public synchronized void close() {
        follow.shutdownNow();
        running.values().forEach(RankingService::close);
        running.clear();
        listed.close();
    }
}
