package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionStyle;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

/**
 * A real RocksDB configured the way Kafka Streams opens a store (universal compaction, a bloom filter) and then
 * by {@link BoundedRocksDb}, holding one file whose whole bloom filter is larger than a shard of RocksDB's default
 * cache layout (64 shards of 2 MB at 128 MB) — as the vote-processor's files were after some 5M votes of the soak,
 * when every lookup of a missing key read a filter back whole and the processor fell to half its rate. With the
 * default layout this test read the 2.7 MB filter 1,001 times in 1,001 lookups (2.76 GB); with 4 shards at most once; since
 * the filters are held by their files, never, and no lookup asks the cache for one.
 */
class BoundedRocksDbTest {
    private static final int KEYS = 2_200_000; // a 4.4 MB filter at 16 bits per key (2.7 MB at Streams' 10)

    @TempDir
    Path dir;

    /**
     * A lookup of a key in no file — a voter's first vote — is answered by each file's bloom filter. The filter is held
     * by the open file, not in the shared cache: no lookup asks the cache for it (before, every lookup of this
     * below-level-0 file looked its filter up there, and a filter larger than a cache shard was read back whole each
     * time), and the memory it takes is the table reader's, 2 bytes per key for the filter at 16 bits.
     */
    @Test
    void aFileKeepsItsFilterSoALookupNeverAsksTheCacheForIt() throws Exception {
        RocksDB.loadLibrary();
        try (Statistics statistics = new Statistics(); Options options = bounded("voter-quotas")) {
            options.setStatistics(statistics).setDisableAutoCompactions(true);
            try (RocksDB db = RocksDB.open(options, dir.toString()); FlushOptions flush = new FlushOptions()) {
                for (int i = 0; i < KEYS; i++) {
                    db.put(key(2 * i), new byte[] {1}); // even voters only: an odd one is in no file, within its key range
                }
                db.flush(flush.setWaitForFlush(true));
                db.compactRange(); // one file below level 0: a large store's files are there
                TableProperties file = db.getPropertiesOfAllTables().values().iterator().next();
                assertThat(file.getNumEntries()).isEqualTo(KEYS);
                assertThat(file.getFilterSize()).as("the file's filter").isGreaterThan(2 << 20);
                assertThat(db.getLongProperty("rocksdb.estimate-table-readers-mem"))
                        .as("memory the open file holds outside the cache").isGreaterThanOrEqualTo(file.getFilterSize());

                long asked = filterLookups(statistics);
                for (int i = 0; i < 1_000; i++) { // the filter answers, as for a voter's first vote
                    assertThat(db.get(key(2 * i * 997 + 1))).isNull();
                }
                assertThat(db.get(key(4_242))).isNotNull();
                assertThat(filterLookups(statistics) - asked).as("times 1,001 lookups asked the cache for the filter")
                        .isZero();
            }
        }
    }

    /**
     * A lookup of a key in no file — a voter's first vote, a quota lookup that misses — reads a data block only when
     * a file's bloom filter answers "maybe" for it. With Streams' 10 bits per key 934 of these 100,000 lookups did, each a
     * block read (in a running node most from the file); at {@link BoundedRocksDb#FILTER_BITS_PER_KEY}, 86.
     */
    @Test
    void aFileFilterSendsFewLookupsOfKeysItLacksToTheFile() throws Exception {
        RocksDB.loadLibrary();
        try (Statistics statistics = new Statistics(); Options options = bounded("voter-quotas")) {
            options.setStatistics(statistics).setDisableAutoCompactions(true);
            try (RocksDB db = RocksDB.open(options, dir.toString()); FlushOptions flush = new FlushOptions()) {
                for (int i = 0; i < 200_000; i++) {
                    db.put(key(2 * i), new byte[] {1});
                }
                db.flush(flush.setWaitForFlush(true));
                db.compactRange();
                int lookups = 100_000;
                for (int i = 0; i < lookups; i++) { // odd voters: in no file, within its key range
                    assertThat(db.get(key(4 * i + 1))).isNull();
                }
                long maybe = statistics.getTickerCount(TickerType.BLOOM_FILTER_FULL_POSITIVE);
                assertThat(statistics.getTickerCount(TickerType.BLOOM_FILTER_USEFUL) + maybe).isEqualTo(lookups);
                assertThat(maybe).as("lookups of absent keys the filter sent to the file").isLessThan(lookups / 400);
            }
        }
    }

    private static long filterLookups(Statistics statistics) {
        return statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_HIT)
                + statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_MISS);
    }

    /**
     * RocksDB's write buffer manager charges a memtable by the blocks it has taken. With Streams' 16 MB write buffer
     * (taken in RocksDB's blocks of 1 MB) the 44 stores of the three applications, each holding a few kilobytes, spent
     * the memtables' whole budget (26 MB of 128), and from then on every write flushed the store that made it: 9,109
     * flushes of a few kilobytes in a 5-minute paced bench. With 64 kB blocks each keeps what it holds until it
     * reaches 2 MB. Before the fix the first store here had been flushed on the way (200 of its 400 records left).
     */
    @Test
    void storesHoldingAFewKilobytesEachKeepTheirMemtables() throws Exception {
        RocksDB.loadLibrary();
        List<Options> options = new ArrayList<>();
        List<RocksDB> stores = new ArrayList<>();
        try {
            for (int s = 0; s < 44; s++) {
                Options o = bounded("store-" + s);
                options.add(o);
                stores.add(RocksDB.open(o, dir.resolve("store-" + s).toString()));
            }
            for (int round = 0; round < 4; round++) { // 400 records of ~90 bytes per store: 36 kB each, 1.6 MB in all
                for (RocksDB store : stores) {
                    for (int i = 0; i < 100; i++) {
                        store.put(key(round * 100 + i), new byte[76]);
                    }
                }
            }
            for (RocksDB store : stores) {
                assertThat(store.getLongProperty("rocksdb.num-entries-active-mem-table"))
                        .as("records still in the store's memtable").isEqualTo(400);
            }
        } finally {
            stores.forEach(RocksDB::close);
            options.forEach(Options::close);
        }
    }

    /**
     * Most of a vote's lookups are of keys in no memtable (a voter's first vote on an item, a voter's first vote): a
     * bloom filter of the memtable's whole keys answers them without walking its skip list (the vote-processor's
     * thread 43-44 -> 36-37 µs per vote). Before, no lookup here was answered by a memtable filter.
     */
    @Test
    void aMemtableFilterAnswersLookupsOfKeysItLacks() throws Exception {
        RocksDB.loadLibrary();
        try (Options options = bounded("voter-item-state")) {
            try (RocksDB db = RocksDB.open(options, dir.toString())) {
                for (int i = 0; i < 1_000; i++) {
                    db.put(key(2 * i), new byte[] {1});
                }
                db.setPerfLevel(PerfLevel.ENABLE_COUNT);
                PerfContext perf = db.getPerfContext();
                perf.reset();
                for (int i = 0; i < 1_000; i++) {
                    assertThat(db.get(key(2 * i + 1))).isNull();
                }
                assertThat(perf.getBloomMemtableMissCount()).as("lookups of absent keys the memtable's filter answered")
                        .isGreaterThan(950);
                assertThat(db.get(key(42))).isNotNull();
            }
        }
    }

    /**
     * The shared cache bounds what it holds: a store read whole, its data blocks half again as large as the cache, leaves
     * the cache at most full, and a block read again is found there. The count-projector reads each item it folds from
     * such a block, as the HTTP reads do.
     */
    @Test
    void theSharedCacheHoldsTheBlocksReadUpToItsCapacity() throws Exception {
        RocksDB.loadLibrary();
        try (Statistics statistics = new Statistics(); Options options = bounded("item-counts")) {
            options.setStatistics(statistics).setDisableAutoCompactions(true);
            int keys = (int) (1.5 * BoundedRocksDb.capacityBytes() / 100); // some 100 bytes of block per key
            int stride = 20; // some 40 keys to a 4 kB block: every block is read
            try (RocksDB db = RocksDB.open(options, dir.toString()); FlushOptions flush = new FlushOptions()) {
                for (int i = 0; i < keys; i++) {
                    db.put(key(i), new byte[84]);
                }
                db.flush(flush.setWaitForFlush(true));
                for (int i = 0; i < keys; i += stride) { // the file read whole
                    assertThat(db.get(key(i))).isNotNull();
                }
                assertThat(BoundedRocksDb.usageBytes()).as("bytes the shared cache holds")
                        .isGreaterThan(BoundedRocksDb.capacityBytes() / 2)
                        .isLessThanOrEqualTo(BoundedRocksDb.capacityBytes());
                long hits = statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT);
                int last = (keys - 1) / stride * stride;
                assertThat(db.get(key(last))).isNotNull(); // the block read last: still in the cache
                assertThat(statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT) - hits).as("blocks found in the cache").isEqualTo(1);
            }
        }
    }

    /**
     * A compaction runs at nice 19 (on two cores a compaction burst took the stream threads' cycles and a paced run's
     * votes waited for it). RocksDB's pool threads lower their priority when they next run a job, so the test makes
     * background compactions happen and then reads the priority of the threads named {@code rocksdb:low}.
     */
    @Test
    void compactionsRunAtTheLowestCpuPriority() throws Exception {
        Path tasks = Path.of("/proc/self/task");
        assumeTrue(Files.isDirectory(tasks), "thread priorities are read from Linux's /proc");
        RocksDB.loadLibrary();
        try (Options options = bounded("voter-quotas")) {
            options.setIncreaseParallelism(2).setLevel0FileNumCompactionTrigger(2);
            try (RocksDB db = RocksDB.open(options, dir.toString()); FlushOptions flush = new FlushOptions()) {
                for (int file = 0; file < 6; file++) { // six level-0 files: compactions in the low pool
                    for (int i = 0; i < 1_000; i++) {
                        db.put(key(file * 1_000 + i), new byte[] {1});
                    }
                    db.flush(flush.setWaitForFlush(true));
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (niceOfThreads(tasks, "rocksdb:low").stream().noneMatch(n -> n == 19) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(niceOfThreads(tasks, "rocksdb:low")).as("nice of RocksDB's compaction threads").contains(19);
                assertThat(niceOfThreads(tasks, "rocksdb:high")).as("nice of RocksDB's flush threads").doesNotContain(19);
            }
        }
    }

    /** The nice value (field 19 of {@code /proc/<pid>/task/<tid>/stat}) of each of this process's threads called so. */
    private static List<Integer> niceOfThreads(Path tasks, String name) throws IOException {
        List<Integer> nice = new ArrayList<>();
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                try {
                    if (Files.readString(thread.resolve("comm")).strip().equals(name)) {
                        String stat = Files.readString(thread.resolve("stat"));
                        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // from field 3, the state
                        nice.add(Integer.parseInt(fields[19 - 3]));
                    }
                } catch (NoSuchFileException ended) {
                    // the thread ended while being listed
                }
            }
        }
        return nice;
    }

    /** A store's options as Kafka Streams' {@code RocksDBStore} sets them before it calls the config setter, then set by it. */
    private static Options bounded(String storeName) {
        BlockBasedTableConfig table = new BlockBasedTableConfig();
        table.setBlockSize(4096L);
        table.setFilterPolicy(new BloomFilter());
        Options options = new Options().setCreateIfMissing(true).setCompactionStyle(CompactionStyle.UNIVERSAL)
                .setWriteBufferSize(16 << 20).setTableFormatConfig(table);
        new BoundedRocksDb().setConfig(storeName, options, Map.of());
        return options;
    }

    private static byte[] key(int voter) {
        return String.format("voter-%08d", voter).getBytes(StandardCharsets.UTF_8);
    }
}
