package dev.tally.common.query;

import java.util.Optional;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The one place that finds which instance owns a key of a store ({@code queryMetadataForKey}): the
 * local store when this instance owns it, otherwise the owner's {@code application.server}.
 */
public final class StoreRouter {
    private final KafkaStreams streams;
    private final HostInfo self;

    /** @param self this instance's {@code application.server}, or null when it runs alone */
    public StoreRouter(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
    }

    /** The owner's address when another instance owns {@code partitionKey}; empty when this one does. */
    public <K> Optional<HostInfo> remoteOwner(String store, K partitionKey, Serializer<K> serializer)
            throws Unavailable {
        if (self == null) {
            return Optional.empty();
        }
        KeyQueryMetadata md = streams.queryMetadataForKey(store, partitionKey, serializer);
        if (md == null || md.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw new Unavailable("store " + store + " has no owner for the key yet (rebalancing)");
        }
        return md.activeHost().equals(self) ? Optional.empty() : Optional.of(md.activeHost());
    }

    public <V> ReadOnlyKeyValueStore<String, V> localStore(String store) throws Unavailable {
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.<String, V>keyValueStore()));
        } catch (InvalidStateStoreException e) {
            throw new Unavailable("store " + store + " is not queryable now: " + e.getMessage(), e);
        }
    }

    /** Reads one key from the local store, mapping a store that moved away mid-read to {@link Unavailable}. */
    public <V> V get(String store, String key) throws Unavailable {
        try {
            return this.<V>localStore(store).get(key);
        } catch (InvalidStateStoreException e) {
            throw new Unavailable("store " + store + " moved while reading " + key, e);
        }
    }
}
