package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real RocksDB stores opened the way a task opens them, with and without consistency vectors. */
class RocksDbStoresTest {
    private static final Bytes KEY = Bytes.wrap("voter-1".getBytes(StandardCharsets.UTF_8));
    private static final byte[] VALUE = {1, 2, 3};

    @TempDir
    Path dir;

    @Test
    void withoutConsistencyVectorsAStoreAnswersAnEmptyPositionAndKeepsItsData() {
        KeyValueStore<Bytes, byte[]> store = open(RocksDbStores.persistent("voter-quotas"), false);
        try {
            store.put(KEY, VALUE);
            assertThat(store.getPosition().isEmpty()).as("nothing for the change logger to copy").isTrue();
            assertThat(store.get(KEY)).isEqualTo(VALUE);
        } finally {
            store.close();
        }
    }

    @Test
    void withConsistencyVectorsAStoreAnswersItsPositionAsStreamsDoes() {
        KeyValueStore<Bytes, byte[]> store = open(RocksDbStores.persistent("voter-quotas"), true);
        try {
            store.put(KEY, VALUE);
            assertThat(store.getPosition().getPartitionPositions("tally.vote-commands")).isEqualTo(Map.of(0, 7L));
        } finally {
            store.close();
        }
    }

    @Test
    void theStoresAreStreamsOwnInTheirFormats() {
        KeyValueStore<Bytes, byte[]> plain = RocksDbStores.persistent("a").get();
        KeyValueStore<Bytes, byte[]> timestamped = RocksDbStores.persistentTimestamped("b").get();
        assertThat(plain).isInstanceOf(RocksDBStore.class).isNotInstanceOf(TimestampedBytesStore.class);
        assertThat(timestamped).isInstanceOf(RocksDBStore.class).isInstanceOf(TimestampedBytesStore.class);
        assertThat(RocksDbStores.persistent("a").metricsScope()).isEqualTo("rocksdb");
    }

    private KeyValueStore<Bytes, byte[]> open(KeyValueBytesStoreSupplier supplier, boolean consistencyVectors) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "rocksdb-stores-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, consistencyVectors);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0), dir.toFile());
        context.setRecordMetadata("tally.vote-commands", 0, 7);
        KeyValueStore<Bytes, byte[]> store = supplier.get();
        store.init(context.getStateStoreContext(), store);
        return store;
    }
}
