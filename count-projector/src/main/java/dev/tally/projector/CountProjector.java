package dev.tally.projector;

import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.StoreRouter;
import dev.tally.common.query.Unavailable;
import dev.tally.schema.ItemProjection;
import dev.tally.schemas.Topics;
import io.javalin.config.RoutesConfig;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
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
        return new CountProjector(new StreamsService("count-projector", CountTopology.build(config.namespace(), config.bursts()), props).start(runtime.kafka()), self);
    }

    public StreamsService service() {
        return service;
    }

    @Override
    public ItemCountsView counts(String itemType, String itemId) throws Unavailable {
        String key = Topics.itemKey(itemType, itemId);
        return router.route(CountTopology.ITEM_COUNTS_STORE, key, (store, partition, stale) -> read(store, itemType, itemId, stale),
                (url, stale) -> remote.get(url, path(itemType, itemId) + "?local=true&stale=" + stale, ItemCountsView.class));
    }

    private static ItemCountsView read(ReadOnlyKeyValueStore<String, ?> store, String itemType, String itemId, boolean stale) {
        ItemProjection item = (ItemProjection) store.get(Topics.itemKey(itemType, itemId));
        return item == null ? ItemCountsView.empty(itemType, itemId) : ItemCountsView.of(item.getCounts(), stale);
    }

    private static String path(String itemType, String itemId) {
        return "/internal/counts/" + itemType + "/" + itemId;
    }

    /**
     * The query route. Other instances forward here with {@code ?local=true} (answered from this
     * instance's store, never forwarded again; {@code stale=true} lets a standby answer); without it the
     * query is routed to whoever owns the key.
     */
    public void mountInternalRoutes(RoutesConfig routes) {
        routes.get(path("{itemType}", "{itemId}"), ctx -> {
            String type = ctx.pathParam("itemType");
            String id = ctx.pathParam("itemId");
            try {
                if ("true".equals(ctx.queryParam("local"))) {
                    boolean stale = "true".equals(ctx.queryParam("stale"));
                    ctx.json(router.local(CountTopology.ITEM_COUNTS_STORE, Topics.itemKey(type, id), stale,
                            (store, partition, st) -> read(store, type, id, st)));
                } else {
                    ctx.json(counts(type, id));
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
