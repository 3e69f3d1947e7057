package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionStyle;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

/**
 * A real RocksDB configured the way Kafka Streams opens a store (universal compaction, a bloom filter) and then
 * by {@link BoundedRocksDb}, holding one file whose whole bloom filter is larger than a shard of RocksDB's default
 * cache layout (64 shards of 2 MB at 128 MB) — as the vote-processor's files were after some 5M votes of the soak,
 * when every lookup of a missing key read a filter back whole and the processor fell to half its rate. With the
 * default layout this test read the 2.7 MB filter 1,001 times in 1,001 lookups (2.76 GB); with 4 shards, never.
 */
class BoundedRocksDbTest {
    private static final int KEYS = 2_200_000; // a 2.7 MB filter at 10 bits per key

    @TempDir
    Path dir;

    @Test
    void aFilterLargerThanADefaultCacheShardIsReadOnceNotOnEveryLookup() throws Exception {
        RocksDB.loadLibrary();
        try (Statistics statistics = new Statistics(); Options options = streamsDefaults()) {
            new BoundedRocksDb().setConfig("voter-quotas", options, Map.of());
            options.setStatistics(statistics).setDisableAutoCompactions(true);
            try (RocksDB db = RocksDB.open(options, dir.toString()); FlushOptions flush = new FlushOptions()) {
                for (int i = 0; i < KEYS; i++) {
                    db.put(key(2 * i), new byte[] {1}); // even voters only: an odd one is in no file, within its key range
                }
                db.flush(flush.setWaitForFlush(true));
                db.compactRange(); // one file below level 0, whose filters stay pinned: a large store's files are there
                TableProperties file = db.getPropertiesOfAllTables().values().iterator().next();
                assertThat(file.getNumEntries()).isEqualTo(KEYS);
                assertThat(file.getFilterSize()).as("the file's filter").isGreaterThan(2 << 20);

                long loads = statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_ADD);
                for (int i = 0; i < 1_000; i++) { // the filter answers, as for a voter's first vote
                    assertThat(db.get(key(2 * i * 997 + 1))).isNull();
                }
                assertThat(db.get(key(4_242))).isNotNull();
                assertThat(statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_ADD) - loads)
                        .as("times the filter was read into the cache during 1,001 lookups").isLessThanOrEqualTo(1);
            }
        }
    }

    /** What Kafka Streams' {@code RocksDBStore} sets before it calls the config setter. */
    private static Options streamsDefaults() {
        BlockBasedTableConfig table = new BlockBasedTableConfig();
        table.setBlockSize(4096L);
        table.setFilterPolicy(new BloomFilter());
        return new Options().setCreateIfMissing(true).setCompactionStyle(CompactionStyle.UNIVERSAL)
                .setWriteBufferSize(16 << 20).setTableFormatConfig(table);
    }

    private static byte[] key(int voter) {
        return String.format("voter-%08d", voter).getBytes(StandardCharsets.UTF_8);
    }
}
