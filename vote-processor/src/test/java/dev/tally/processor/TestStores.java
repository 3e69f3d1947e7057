package dev.tally.processor;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** Key-value stores for unit tests of one rule: in memory, no changelog, initialised and ready. */
final class TestStores {
    private TestStores() {}

    static <V> KeyValueStore<String, V> inMemory(String name, Serde<V> values) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
                .withLoggingDisabled().build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        return store;
    }
}
