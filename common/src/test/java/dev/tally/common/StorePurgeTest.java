package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class StorePurgeTest {
    @Test
    void deletesExactlyTheOldEntriesAcrossManyPassesKeptAndDeletedKeysAtEveryChunkEdge() {
        KeyValueStore<String, Integer> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("purge-test"),
                Serdes.String(), Serdes.Integer()).withLoggingDisabled().build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        for (int i = 0; i < 1000; i++) {
            store.put(String.format("k%04d", i), i);
        }

        int deleted = StorePurge.deleteWhere(store, v -> v % 3 != 0, 7); // chunks of 7: every edge case many times

        assertThat(deleted).isEqualTo(666);
        List<Integer> left = new ArrayList<>();
        try (KeyValueIterator<String, Integer> it = store.all()) {
            it.forEachRemaining((KeyValue<String, Integer> kv) -> left.add(kv.value));
        }
        assertThat(left).hasSize(334).allMatch(v -> v % 3 == 0);
        assertThat(StorePurge.deleteWhere(store, v -> true)).isEqualTo(334);
        assertThat(store.approximateNumEntries()).isZero();
    }
}
