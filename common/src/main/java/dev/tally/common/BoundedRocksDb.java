package dev.tally.common;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.Env;
import org.rocksdb.HyperClockCache;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.WriteBufferManager;

/**
 * Every RocksDB store of every Streams application in this process shares one block cache, and their
 * memtables are charged to it ({@code TALLY_ROCKSDB_MEMORY_MB}, 128 by default) — Kafka Streams' bounded
 * memory recipe. Streams' own default gives each store partition its own 50 MB cache and up to three
 * 16 MB memtables: with the vote-processor's 11 stores on each of 4 partitions, plus the other two applications,
 * that is a ceiling of several GiB that only grows with the data, beside a heap of a few hundred MB. Every level keeps its bloom
 * filter, so a lookup of a key that is not there rarely reads a data block. Each table file's index and filter stay
 * with the open file, outside the cache: some 2 bytes per key that the cache does not bound ({@link #setConfig},
 * {@link #FILTER_BITS_PER_KEY}).
 */
public final class BoundedRocksDb implements RocksDBConfigSetter {
    /** The {@link org.apache.kafka.streams.StreamsConfig} key that carries {@code TALLY_ROCKSDB_MEMORY_MB}, in bytes. */
    public static final String MEMORY_BYTES = "tally.rocksdb.memory.bytes";
    /** The {@link org.apache.kafka.streams.StreamsConfig} key that carries {@code TALLY_ROCKSDB_LOG}. */
    public static final String LOG_LEVEL = "tally.rocksdb.log";
    /**
     * The memtables' share of the budget, which also bounds what a restart after a crash restores: a store resumes
     * from the changelog offset of its last flush, and a memtable flushes when it holds {@link #WRITE_BUFFER_BYTES} or
     * the share is spent. A smaller share restores less but drains a backlog more slowly:
     * docs/decisions/0006-bounded-rocksdb.md.
     */
    private static final double MEMTABLE_SHARE = 0.2;
    /**
     * A store's memtable flushes by itself when it holds this much, and takes its memory in blocks of
     * {@link #ARENA_BLOCK_BYTES}. With RocksDB's defaults as Streams leaves them (16 MB, taken in blocks of 1 MB) every
     * store holds a whole megabyte of the memtables' budget as soon as it holds a few kilobytes, so the budget is always
     * spent and the write buffer manager flushes whichever store writes next, however little it holds, each flush a
     * table file written, synced and later compacted. The price is a restart after SIGKILL restoring more (at most 2 MB
     * per store). docs/decisions/0006-bounded-rocksdb.md.
     */
    private static final long WRITE_BUFFER_BYTES = 2L << 20;
    private static final long ARENA_BLOCK_BYTES = 64L << 10;
    /**
     * Each memtable's share given to a bloom filter of its whole keys (42 kB of 2 MB, some 14 bits per key), so a
     * lookup of a key the memtable lacks does not walk its skip list. It fits the budget only with small memtables
     * ({@link #WRITE_BUFFER_BYTES}). docs/decisions/0006-bounded-rocksdb.md.
     */
    private static final double MEMTABLE_BLOOM_RATIO = 0.02;
    /**
     * The cache in 4 shards, not RocksDB's default of 64 (2 MB each at 128 MB), each holding data blocks and the
     * memtables' charges. docs/decisions/0006-bounded-rocksdb.md.
     */
    private static final int SHARD_BITS = 2;
    /**
     * The cache is RocksDB's HyperClockCache, which finds a block without a lock, not its LRUCache, whose lookups take a
     * shard's mutex and walk a chained hash table; 0 lets the cache size its table as it fills. The count-projector reads
     * every item it folds from a data block in the cache. docs/decisions/0006-bounded-rocksdb.md.
     */
    private static final long AUTO_ENTRY_CHARGE = 0;
    /**
     * Bits of each table file's bloom filter per key, where Streams sets RocksDB's 10. A lookup of a key in no file (a
     * voter's first vote) asks the filter of every sorted run that might hold it, and each "maybe" reads a data block,
     * most often from the file: at 10 bits 0.9 % of the filters answer so, at 16 bits 0.09 % ({@code BoundedRocksDbTest}).
     * The price is 0.75 bytes more per key held by the table readers. docs/decisions/0006-bounded-rocksdb.md.
     */
    static final double FILTER_BITS_PER_KEY = 16;
    private static Cache cache;
    private static long capacity;
    private static WriteBufferManager writeBuffers;
    private static BloomFilter filter;

    private static synchronized void init(long bytes) {
        if (cache == null) { // one per process, for every store of every application, never closed
            capacity = bytes;
            cache = new HyperClockCache(bytes, AUTO_ENTRY_CHARGE, SHARD_BITS, false);
            writeBuffers = new WriteBufferManager((long) (bytes * MEMTABLE_SHARE), cache);
            filter = new BloomFilter(FILTER_BITS_PER_KEY); // shared by every store, like the cache: never closed
            // Compactions run at the lowest CPU priority (nice 19 for the threads of RocksDB's low pool, process-wide):
            // a compaction burst must not take the stream threads' cycles. Flushes, which writes wait on, keep their
            // priority; with a core to spare nothing changes. docs/decisions/0006-bounded-rocksdb.md
            Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW);
        }
    }

    /**
     * Gives a database Tally opens itself, beside Streams' stores, the shared block cache and filter, but not the shared
     * write-buffer budget: its memtables are sized by its own options.
     */
    public static void shareBlockCache(BlockBasedTableConfig table, Map<String, Object> configs) {
        Object bytes = configs.get(MEMORY_BYTES);
        init(bytes == null ? 128L << 20 : Long.parseLong(bytes.toString()));
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(false);
        table.setFilterPolicy(filter);
    }

    /** Bytes the shared cache holds now (blocks, index and filter blocks, memtables); NaN before any store opened. */
    public static synchronized double usageBytes() {
        return cache == null ? Double.NaN : cache.getUsage();
    }

    /** The shared cache's size, {@code TALLY_ROCKSDB_MEMORY_MB}; NaN before any store opened. */
    public static synchronized double capacityBytes() {
        return cache == null ? Double.NaN : capacity;
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object bytes = configs.get(MEMORY_BYTES);
        init(bytes == null ? 128L << 20 : Long.parseLong(bytes.toString()));
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache);
        // Index and filter blocks stay with each open table file, not in the shared cache: read once when the file
        // opens, not looked up in the cache (a hash, a shard's lock and a reference count) per file per lookup, nor
        // read back whole when data blocks push them out. The price is memory the cache does not bound, growing with
        // the keys. docs/decisions/0006-bounded-rocksdb.md
        table.setCacheIndexAndFilterBlocks(false);
        table.setFilterPolicy(filter); // Streams closes the one it set itself
        options.setWriteBufferManager(writeBuffers);
        options.setWriteBufferSize(WRITE_BUFFER_BYTES);
        options.setArenaBlockSize(ARENA_BLOCK_BYTES);
        // a lookup of a key the memtable lacks (most of a vote's lookups) asks the filter instead of walking the skip list
        options.setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_RATIO);
        options.setMemtableWholeKeyFiltering(true);
        options.setTableFormatConfig(table);
        // Streams turns this on: no bloom filter in the last level, which holds most keys, so a key that is in no
        // level is looked for in the last level's index and data blocks. Most of Tally's lookups are such misses
        // (a voter's first vote on an item, a voter's first vote of the day, an item's first delta), so every level
        // keeps its filter.
        options.setOptimizeFiltersForHits(false);
        // RocksDB opens a store's table files on 16 threads of their own, started and joined for each column family
        // at every open, and a restart opens every store twice; Tally's stores hold a few files each, so one thread
        // opens them. docs/decisions/0006-bounded-rocksdb.md
        options.setMaxFileOpeningThreads(1);
        // TALLY_ROCKSDB_LOG=info: each store's LOG (in its directory) records every flush and compaction, with its reason
        // and size, and the store's statistics every minute; Streams' default writes only errors there
        if ("info".equals(configs.get(LOG_LEVEL))) {
            options.setInfoLogLevel(InfoLogLevel.INFO_LEVEL);
            options.setStatsDumpPeriodSec(60);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache and the write buffer manager are shared by every store: they live as long as the process
    }
}
