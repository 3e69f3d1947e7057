package dev.tally.processor;

import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.TopicAdmin;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.StoreRouter;
import dev.tally.common.query.Unavailable;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.common.query.VoterStateView;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import io.javalin.config.RoutesConfig;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The running vote-processor: its Streams application and the query of voters' own states, answered
 * from the local store or forwarded to the instance that owns the voter.
 */
public final class VoteProcessor implements VoterStateQuery, AutoCloseable {
    private final StreamsService service;
    private final StoreRouter router;
    private final RemoteQuery remote = new RemoteQuery();

    private VoteProcessor(StreamsService service, HostInfo self) {
        this.service = service;
        this.router = new StoreRouter(service.streams(), self);
    }

    /** @param self this instance's query address ({@code application.server}), or null when it runs alone */
    public static VoteProcessor start(Runtime runtime, VoteProcessorConfig config, HostInfo self) {
        var props = runtime.kafka().streamsProps(config.applicationId(), runtime.stateDir(config.applicationId()),
                config.commitInterval(), self == null ? null : self.host() + ":" + self.port());
        var service = new StreamsService("vote-processor",
                VoteTopology.build(config, TopicAdmin.partitions(runtime.kafka(), runtime.kafka().topic(Topics.COUNT_DELTAS).name())), props);
        return new VoteProcessor(service.start(runtime.kafka()), self);
    }

    public StreamsService service() {
        return service;
    }

    @Override
    public VoterStateView state(String voterHash, String itemType, String itemId) throws Unavailable {
        return router.route(VoteTopology.VOTER_ITEM_STORE, voterHash,
                (store, partition, stale) -> read(store, voterHash, itemType, itemId, partition, stale),
                (url, stale) -> remote.get(url, path(voterHash, itemType, itemId) + "?local=true&stale=" + stale,
                        VoterStateView.class));
    }

    private VoterStateView read(ReadOnlyKeyValueStore<String, ?> states, String voterHash, String itemType, String itemId,
                                int partition, boolean stale) throws Unavailable {
        String key = VoterItems.key(voterHash, itemType, itemId);
        VoterItem s = (VoterItem) states.get(key);
        // a quarantined vote: its voter sees it, the public counts do not (held in the record, or in the legacy store
        // on a task that has not run since the held state moved into the record)
        VoterItemState held = s != null && s.getHeld() != null ? s.getHeld()
                : this.<VoterItemState>store(VoteTopology.HELD_STATE_STORE).get(key);
        if (held != null) {
            return new VoterStateView(held.getVote(), held.getReaction(), partition, -1, stale);
        }
        if (s == null) {
            return VoterStateView.none(partition);
        }
        return new VoterStateView(s.getVote(), s.getReaction(), partition, s.getOffset(), stale);
    }

    /** A sibling store of the voter-item state on this instance (same tasks, so same availability). */
    private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
        return service.streams().store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore())
                .enableStaleStores());
    }

    private static String path(String voterHash, String itemType, String itemId) {
        return "/internal/voter-state/" + voterHash + "/" + itemType + "/" + itemId;
    }

    /**
     * The query route. Other instances forward here with {@code ?local=true} (answered from this
     * instance's store, never forwarded again; {@code stale=true} lets a standby answer); without it the
     * query is routed to whoever owns the voter.
     */
    public void mountInternalRoutes(RoutesConfig routes) {
        routes.get(path("{voter}", "{itemType}", "{itemId}"), ctx -> {
            String voter = ctx.pathParam("voter");
            String type = ctx.pathParam("itemType");
            String id = ctx.pathParam("itemId");
            try {
                if ("true".equals(ctx.queryParam("local"))) {
                    boolean stale = "true".equals(ctx.queryParam("stale"));
                    ctx.json(router.local(VoteTopology.VOTER_ITEM_STORE, voter, stale,
                            (store, partition, st) -> read(store, voter, type, id, partition, st)));
                } else {
                    ctx.json(state(voter, type, id));
                }
            } catch (Unavailable e) {
                ctx.status(503).header("Retry-After", "1").result(e.getMessage());
            }
        });
    }

    @Override
    public void close() {
        service.close();
    }
}
