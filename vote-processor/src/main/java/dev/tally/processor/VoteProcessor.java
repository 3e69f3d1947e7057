package dev.tally.processor;

import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.VoterState;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.StoreRouter;
import dev.tally.common.query.Unavailable;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.Topics;
import io.javalin.config.RoutesConfig;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The running vote-processor: its Streams application and the query of voters' own states, answered
 * from the local store or forwarded to the instance that owns the voter.
 */
public final class VoteProcessor implements VoterStateQuery, AutoCloseable {
    static final String INTERNAL_STATE_PATH = "/internal/voter-state/{voter}/{itemType}/{itemId}";

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
                VoteTopology.build(config), props);
        return new VoteProcessor(service.start(), self);
    }

    public StreamsService service() {
        return service;
    }

    @Override
    public VoterState state(String voterHash, String itemType, String itemId) throws Unavailable {
        Optional<HostInfo> owner = router.remoteOwner(VoteTopology.VOTER_ITEM_STORE, voterHash,
                Serdes.String().serializer());
        if (owner.isPresent()) {
            return remote.get("http://" + owner.get().host() + ":" + owner.get().port(),
                    "/internal/voter-state/" + voterHash + "/" + itemType + "/" + itemId + "?local=true", VoterState.class);
        }
        return localState(voterHash, itemType, itemId);
    }

    private VoterState localState(String voterHash, String itemType, String itemId) throws Unavailable {
        VoterItemState s = router.get(VoteTopology.VOTER_ITEM_STORE,
                VoteResolver.stateKey(voterHash, Topics.itemKey(itemType, itemId)));
        return VoteResolver.fromAvro(s);
    }

    /**
     * The query route: other instances forward here with {@code ?local=true} (answered from this
     * instance's store, never forwarded again); without it the query is routed to the owner.
     */
    public void mountInternalRoutes(RoutesConfig routes) {
        routes.get(INTERNAL_STATE_PATH, ctx -> {
            try {
                String voter = ctx.pathParam("voter");
                String type = ctx.pathParam("itemType");
                String id = ctx.pathParam("itemId");
                ctx.json("true".equals(ctx.queryParam("local")) ? localState(voter, type, id) : state(voter, type, id));
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
