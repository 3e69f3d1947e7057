package dev.tally.projector;

import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.StoreRouter;
import dev.tally.common.query.Unavailable;
import dev.tally.schema.ItemCounts;
import dev.tally.schemas.Topics;
import io.javalin.config.RoutesConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.HostInfo;

/** The running count-projector: its Streams application and the item-counts query, local or forwarded. */
public final class CountProjector implements CountsQuery, AutoCloseable {
    private final StreamsService service;
    private final StoreRouter router;
    private final RemoteQuery remote = new RemoteQuery();

    private CountProjector(StreamsService service, HostInfo self) {
        this.service = service;
        this.router = new StoreRouter(service.streams(), self);
    }

    /** @param self this instance's query address ({@code application.server}), or null when it runs alone */
    public static CountProjector start(Runtime runtime, CountProjectorConfig config, HostInfo self) {
        var props = runtime.kafka().streamsProps(config.applicationId(), runtime.stateDir(config.applicationId()),
                config.commitInterval(), self == null ? null : self.host() + ":" + self.port());
        return new CountProjector(new StreamsService("count-projector", CountTopology.build(), props).start(), self);
    }

    public StreamsService service() {
        return service;
    }

    @Override
    public ItemCountsView counts(String itemType, String itemId) throws Unavailable {
        String key = Topics.itemKey(itemType, itemId);
        Optional<HostInfo> owner = router.remoteOwner(CountTopology.ITEM_COUNTS_STORE, key, Serdes.String().serializer());
        if (owner.isPresent()) {
            return remote.get("http://" + owner.get().host() + ":" + owner.get().port(),
                    "/internal/counts/" + itemType + "/" + itemId + "?local=true", ItemCountsView.class);
        }
        return local(itemType, itemId);
    }

    private ItemCountsView local(String itemType, String itemId) throws Unavailable {
        ItemCounts c = router.get(CountTopology.ITEM_COUNTS_STORE, Topics.itemKey(itemType, itemId));
        return c == null ? ItemCountsView.empty(itemType, itemId) : view(c);
    }

    static ItemCountsView view(ItemCounts c) {
        Map<Integer, Long> watermarks = new HashMap<>();
        c.getWatermarks().forEach((p, o) -> watermarks.put(Integer.parseInt(p), o));
        return new ItemCountsView(c.getItemType(), c.getItemId(), c.getUpvotes(), c.getDownvotes(),
                c.getReactions(), c.getWeightedUp(), c.getWeightedDown(), c.getFirstVoteAt(), watermarks);
    }

    /**
     * The query route: other instances forward here with {@code ?local=true} (answered from this
     * instance's store, never forwarded again); without it the query is routed to the owner.
     */
    public void mountInternalRoutes(RoutesConfig routes) {
        routes.get("/internal/counts/{itemType}/{itemId}", ctx -> {
            try {
                String type = ctx.pathParam("itemType");
                String id = ctx.pathParam("itemId");
                ctx.json("true".equals(ctx.queryParam("local")) ? local(type, id) : counts(type, id));
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
