package dev.tally.common;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.apache.kafka.streams.state.internals.RocksDBTimestampedStore;

/**
 * The persistent key-value stores of Tally's topologies: Kafka Streams' own RocksDB stores ({@code Stores.persistent…}),
 * the same files, format, changelog and metrics, less one copy on every write.
 *
 * <p>Streams' change logger asks the store for its position (the input offsets its state reflects) on every write it
 * logs, and {@code RocksDBStore.getPosition()} answers with a copy of that map merged with the uncommitted
 * transaction's. The logger uses it only to stamp the changelog record with a consistency vector, which it does only
 * when {@code StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED} is on; Tally leaves it off. So, while
 * it is off, these stores answer {@code getPosition()} with an empty position. Interactive queries are not affected: a
 * store's {@code query} reads the position itself, not through {@code getPosition()}.
 * docs/decisions/0007-rocksdb-stores-without-position-copy.md.
 *
 * <p>The classes extended are Streams internals (public, with public constructors): {@code RocksDbStoresTest} checks,
 * against the Kafka Streams on the classpath, that they are still Streams' stores in their formats and that the
 * position is still answered when consistency vectors are on.
 */
public final class RocksDbStores {
    private static final String METRICS_SCOPE = "rocksdb"; // Streams' own, so the stores' metrics keep their names

    private RocksDbStores() {
    }

    /** As {@code Stores.persistentKeyValueStore(name)}. */
    public static KeyValueBytesStoreSupplier persistent(String name) {
        return new Supplier(name, false);
    }

    /** As {@code Stores.persistentTimestampedKeyValueStore(name)}. */
    public static KeyValueBytesStoreSupplier persistentTimestamped(String name) {
        return new Supplier(name, true);
    }

    private record Supplier(String name, boolean timestamped) implements KeyValueBytesStoreSupplier {
        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return timestamped ? new Timestamped(name) : new Plain(name);
        }

        @Override
        public String metricsScope() {
            return METRICS_SCOPE;
        }
    }

    /** Whether the change logger of a store in this context stamps its records with the store's position. */
    static boolean positionsLogged(StateStoreContext context) {
        return StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false); // as the change logger reads it
    }

    static final class Plain extends RocksDBStore {
        private boolean positionsLogged = true;

        Plain(String name) {
            super(name, METRICS_SCOPE);
        }

        @Override
        public void init(StateStoreContext context, StateStore root) {
            positionsLogged = positionsLogged(context);
            super.init(context, root);
        }

        @Override
        public Position getPosition() {
            return positionsLogged ? super.getPosition() : Position.emptyPosition();
        }
    }

    static final class Timestamped extends RocksDBTimestampedStore {
        private boolean positionsLogged = true;

        Timestamped(String name) {
            super(name, METRICS_SCOPE);
        }

        @Override
        public void init(StateStoreContext context, StateStore root) {
            positionsLogged = positionsLogged(context);
            super.init(context, root);
        }

        @Override
        public Position getPosition() {
            return positionsLogged ? super.getPosition() : Position.emptyPosition();
        }
    }
}
