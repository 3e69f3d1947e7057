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
 * that is a ceiling of several GiB that only grows with the data, beside a 384 MB heap. Every level keeps its bloom
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
     * the share is spent. Measured before memtables flushed at 2 MB, with 1M votes in the log (drill --preload): at 0.3
     * a restart restored some 270,000 records (median restart 15.5 s over ten), at 0.2 33,000-147,000 (median 87,000;
     * restarts median 13.1 s over fifty), at 0.1 a few hundred (12.2 s) but the backlog drained 1.7 times slower; the
     * bench does not tell 0.2 from 0.3 (12,645 and 13,504 against 11,504 and 13,279 uniform votes/s).
     * README "With a million votes in the log".
     */
    private static final double MEMTABLE_SHARE = 0.2;
    /**
     * A store's memtable flushes by itself when it holds this much, and takes its memory in blocks of
     * {@link #ARENA_BLOCK_BYTES}. With RocksDB's defaults as Streams leaves them (16 MB, taken in blocks of 1 MB) each of
     * the three applications' 44 stores held a whole megabyte of the memtables' 26 MB as soon as it held a few kilobytes,
     * so the budget was always spent and the write buffer manager flushed whichever store wrote next, however little it
     * held: 9,109 flushes in a 5-minute paced run, most of a few kilobytes (every commit writes each store's offsets),
     * each a table file written, synced and later compacted. With 2 MB taken in 64 kB blocks the same run made 1,501,
     * and RocksDB's own threads took 30-37 instead of 38-48 µs of CPU per vote; a lookup paid for the larger memtables
     * (the vote-processor's thread +2 µs, which {@link #MEMTABLE_BLOOM_RATIO} more than wins back), and a restart after
     * SIGKILL restores more (at most 2 MB per store: 34,000-77,000 records in the vote-processor against 16,000-25,000,
     * restarts unchanged). docs/performance.md "What each change bought".
     */
    private static final long WRITE_BUFFER_BYTES = 2L << 20;
    private static final long ARENA_BLOCK_BYTES = 64L << 10;
    /**
     * Each memtable's share given to a bloom filter of its whole keys (42 kB of 2 MB, some 14 bits per key). Paced
     * 8,000 votes/s, two runs each, alternated: the vote-processor's thread 42.7-44.3 -> 36.2-36.9 µs per vote, all
     * threads 187-195 -> 174-176, vote→visible p99 561 and 1,144 -> 384 and 391 ms. Tried before the memtables were
     * 2 MB (filters sized from 16 MB each), it overran the memtables' budget and RocksDB flushed without pause.
     */
    private static final double MEMTABLE_BLOOM_RATIO = 0.02;
    /**
     * The cache in 4 shards, not RocksDB's default of 64 (2 MB each at 128 MB). A file's bloom filter is one block
     * that grows with the file's keys; past some 5M votes in a soak the vote-processor's files carried over a
     * megabyte of filter each, a 2 MB shard could not keep them, and every lookup of a key in no file — a voter's
     * first vote — read a filter back whole: the processor fell from 12,000 to 6,000 votes/s, 54 % of its thread in
     * reading filter blocks. With 32 MB shards a 10M-vote soak kept 12,000-15,000 votes/s to the end (filter reads
     * 7 % of the thread at 8.6M votes). Measured and not adopted: filters and indexes cut into 4 kB partitions,
     * which fixed the soak too but cost the one-minute bench 10-45 % more CPU per vote. README "A vote's cost as
     * the state grows". Since the filters left the cache that reason is gone; the shards
     * stay as measured, holding data blocks and the memtables' charges.
     */
    private static final int SHARD_BITS = 2;
    /**
     * The cache is RocksDB's HyperClockCache, which finds a block without a lock, not its LRUCache, whose lookups take a
     * shard's mutex and walk a chained hash table; 0 lets the cache size its table as it fills. The count-projector reads
     * every item it folds from a data block in the cache: its thread spent 5.3-6.8 % of its samples looking blocks up in
     * the LRUCache and 2.5-4.9 % in this one (async-profiler on {@code ./tally bench --quick --workload uniform}, five
     * pairs; some 0.4 µs per vote). docs/performance.md "What each change bought".
     */
    private static final long AUTO_ENTRY_CHARGE = 0;
    /**
     * Bits of each table file's bloom filter per key, where Streams sets RocksDB's 10. A lookup of a key in no file (a
     * voter's first vote) asks the filter of every sorted run that might hold it, and each "maybe" reads a data block,
     * most often from the file: at 10 bits 0.9 % of the filters answer so, at 16 bits 0.09 % ({@code BoundedRocksDbTest}).
     * Three pairs of {@code ./tally bench --quick --workload uniform} with async-profiler, alternated: the quota lookup's
     * block reads took 3.1-4.1 % of the vote-processor's thread at 10 bits, 0.6-1.1 % at 16 (some 0.4 µs per vote). The
     * price is 0.75 bytes more per key held by the table readers (4.6 MB for 2.2 million keys in one file,
     * 2.1 bytes per key in all): some 2 MB more for the bench's 2.5 million keys.
     * docs/performance.md "What each change bought".
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
            // on two cores a compaction burst took the cycles of the stream threads, and a paced run's votes waited for
            // it (docs/performance.md, "What stalled the paced runs"). Flushes, which writes wait on, keep their
            // priority; with a core to spare nothing changes, as nice only orders threads that compete for one.
            Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW);
        }
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
        // Index and filter blocks stay with each open table file, not in the shared cache. In the cache (until
        // 2026-12-05, night) a lookup looked each file's filter up there, and the file's index on a hit, outside level
        // 0 where they were pinned: a hash, a shard's lock and a reference count per file per lookup; and a filter that
        // data blocks had pushed out was read back whole. Held by the file they are read once, when it opens. Five
        // pairs of `./tally bench --quick --workload uniform`, alternated: the vote-processor's thread 14.7-16.7 against
        // 16.6-21.3 µs per vote (medians 15.5 and 18.2), the count-projector's 12.3-13.6 against 13.4-16.3 (12.7 and
        // 14.5). The price is memory the cache does not bound, growing with the keys: 6.5 MB for 4,000,000 voter keys
        // in one RocksDB with these settings (1.6 bytes per key). docs/performance.md "What each change bought".
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
        // (a voter's first vote on an item, a voter's first vote of the day, an item's first delta); measured on
        // the uniform bench, the vote-processor spent 28% of its time reading data blocks for keys that were not there.
        options.setOptimizeFiltersForHits(false);
        // RocksDB opens a store's table files on 16 threads of their own, started and joined for each column family
        // at every open: a restart opens every store twice (Streams reports their offsets, then its tasks open
        // them), and a wall-clock profile of one found half of that time in creating and ending those threads.
        // Tally's stores hold a few files each; one thread opens them (vote-processor ready 4.1 -> 3.2 s, median of 5)
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
