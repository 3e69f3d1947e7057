package dev.tally.common.query;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The one place that finds who can answer for a key of a store ({@code queryMetadataForKey}) and asks
 * them: the active owner first (this instance's store, or another instance's over HTTP), then its
 * standby replicas, whose answers are marked stale. Nobody left to ask is {@link Unavailable} — a 503
 * with Retry-After for the HTTP caller, never an exception page.
 */
public final class StoreRouter {
    private final KafkaStreams streams;
    private final HostInfo self;
    private final Map<Handle, ReadOnlyKeyValueStore<String, ?>> handles = new ConcurrentHashMap<>();

    /** Reads the key from a local store; {@code stale} when it is a standby copy. */
    @FunctionalInterface
    public interface Local<T> {
        T read(ReadOnlyKeyValueStore<String, ?> store, int partition, boolean stale) throws Unavailable;
    }

    /** Asks another instance, which answers from its own store only ({@code stale}: a standby may answer). */
    @FunctionalInterface
    public interface Remote<T> {
        T fetch(String baseUrl, boolean stale) throws Unavailable;
    }

    /** @param self this instance's {@code application.server}, or null when it runs alone */
    public StoreRouter(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
    }

    /** Routes a read of {@code partitionKey}'s data (the key the input topic is partitioned by). */
    public <T> T route(String storeName, String partitionKey, Local<T> local, Remote<T> remote) throws Unavailable {
        KeyQueryMetadata md = metadata(storeName, partitionKey);
        Unavailable last = null;
        try {
            if (self == null || md.activeHost().equals(self)) {
                return local.read(store(storeName, md.partition(), false), md.partition(), false);
            }
            return remote.fetch(url(md.activeHost()), false);
        } catch (Unavailable e) {
            last = e;
        } catch (InvalidStateStoreException e) {
            last = new Unavailable("store " + storeName + " is not queryable here now: " + e.getMessage(), e);
        }
        for (HostInfo standby : md.standbyHosts()) {
            try {
                return standby.equals(self)
                        ? local.read(store(storeName, md.partition(), true), md.partition(), true)
                        : remote.fetch(url(standby), true);
            } catch (Unavailable e) {
                last = e;
            } catch (InvalidStateStoreException e) {
                last = new Unavailable("standby of " + storeName + " is not queryable: " + e.getMessage(), e);
            }
        }
        throw last;
    }

    /** Answers a forwarded read from this instance's own store (active, or a standby when {@code stale}). */
    public <T> T local(String storeName, String partitionKey, boolean stale, Local<T> local) throws Unavailable {
        int partition = metadata(storeName, partitionKey).partition();
        try {
            return local.read(store(storeName, partition, stale), partition, stale);
        } catch (InvalidStateStoreException e) {
            throw new Unavailable("store " + storeName + " is not queryable here now: " + e.getMessage(), e);
        }
    }

    private KeyQueryMetadata metadata(String storeName, String partitionKey) throws Unavailable {
        KeyQueryMetadata md = streams.queryMetadataForKey(storeName, partitionKey, Serdes.String().serializer());
        if (md == null || md.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw new Unavailable("store " + storeName + " has no owner for the key yet (rebalancing)");
        }
        return md;
    }

    /**
     * The store of the key's own partition only: a store over every local partition would ask each of them
     * in turn (a missing key costs one lookup per partition). The handle stays valid across rebalances (it
     * finds the partition's store on each read, or throws {@link InvalidStateStoreException}), so it is
     * made once per store, partition and staleness.
     */
    private ReadOnlyKeyValueStore<String, ?> store(String storeName, int partition, boolean stale) {
        return handles.computeIfAbsent(new Handle(storeName, partition, stale), h -> {
            var params = StoreQueryParameters.fromNameAndType(storeName, QueryableStoreTypes.<String, Object>keyValueStore())
                    .withPartition(partition);
            return streams.store(stale ? params.enableStaleStores() : params);
        });
    }

    private record Handle(String storeName, int partition, boolean stale) {}

    private static String url(HostInfo host) {
        return "http://" + host.host() + ":" + host.port();
    }
}
