package dev.tally.projector.rankings;

import dev.tally.common.BoundedRocksDb;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One partition's ranking index: a RocksDB database in the task's state directory, beside Streams' stores but not one
 * of them. It is derived state — every entry follows from the item store — so it has no changelog and no transaction:
 * each event's moves are one atomic write batch with the offset they reflect, and an index whose offset is not the
 * item store's is rebuilt from the items when its task starts (docs/decisions/0018-live-rankings.md). It shares the
 * block cache of Streams' stores; its memtables (two of 8 MB at most) are its own.
 *
 * <p>Pages are read by other threads while the task writes; closing waits for the reads in progress.
 */
final class IndexDb implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private static final long WRITE_BUFFER_BYTES = 8L << 20;

    private final Path dir;
    private final Options options;
    private final WriteOptions writes = new WriteOptions().setDisableWAL(true);
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private RocksDB db;

    private IndexDb(Path dir, Options options, RocksDB db) {
        this.dir = dir;
        this.options = options;
        this.db = db;
    }

    /** Opens the index in {@code dir}, or creates it; {@code fresh} destroys what was there first. */
    static IndexDb open(Path dir, Map<String, Object> appConfigs, boolean fresh) {
        BlockBasedTableConfig table = new BlockBasedTableConfig();
        BoundedRocksDb.shareBlockCache(table, appConfigs);
        // every vote moves its item in ten lists, ten deletes and ten puts at random places: memtables of their own,
        // larger than the stores' 2 MB in the shared budget, and uncompressed files keep flushes and compactions from
        // stalling the writes (decisions/0018)
        Options options = new Options().setCreateIfMissing(true).setTableFormatConfig(table)
                .setWriteBufferSize(WRITE_BUFFER_BYTES).setMaxWriteBufferNumber(2)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setLevel0SlowdownWritesTrigger(40).setLevel0StopWritesTrigger(64)
                .setMaxFileOpeningThreads(1);
        try {
            if (fresh && Files.exists(dir)) {
                RocksDB.destroyDB(dir.toString(), options);
            }
            Files.createDirectories(dir);
            return new IndexDb(dir, options, RocksDB.open(options, dir.toString()));
        } catch (RocksDBException e) {
            options.close();
            throw new IllegalStateException("cannot open the ranking index in " + dir + ": " + e.getMessage(), e);
        } catch (IOException e) {
            options.close();
            throw new UncheckedIOException(e);
        }
    }

    byte[] get(byte[] key) {
        lock.readLock().lock();
        try {
            return db == null ? null : db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("ranking index read failed: " + e.getMessage(), e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Applies a batch atomically (with no write-ahead log: the offset in the batch says what survived a crash). */
    void write(WriteBatch batch) {
        try {
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("ranking index write failed: " + e.getMessage(), e);
        }
    }

    /** A key and its value. */
    record Row(byte[] key, byte[] value) {}

    /**
     * Up to {@code limit} rows of keys starting with {@code prefix}, in order, after {@code after} (a whole key, or null
     * for the first), while {@code more} accepts them.
     */
    List<Row> scan(byte[] prefix, byte[] after, int limit, Predicate<byte[]> more) {
        List<Row> rows = new ArrayList<>(Math.min(limit, 1024));
        lock.readLock().lock();
        try (RocksIterator it = db == null ? null : db.newIterator()) {
            if (it == null) {
                throw new IllegalStateException("the ranking index is closed");
            }
            it.seek(after == null ? prefix : after);
            if (after != null && it.isValid() && Arrays.equals(it.key(), after)) {
                it.next();
            }
            while (it.isValid() && rows.size() < limit) {
                byte[] key = it.key();
                if (!startsWith(key, prefix) || !more.test(key)) {
                    break;
                }
                rows.add(new Row(key, it.value()));
                it.next();
            }
            return rows;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Keys from {@code from} (inclusive) to {@code to} (exclusive), at most {@code limit}. */
    List<byte[]> keys(byte[] from, byte[] to, int limit) {
        List<byte[]> keys = new ArrayList<>();
        lock.readLock().lock();
        try (RocksIterator it = db.newIterator()) {
            for (it.seek(from); it.isValid() && keys.size() < limit && Arrays.compareUnsigned(it.key(), to) < 0; it.next()) {
                keys.add(it.key());
            }
            return keys;
        } finally {
            lock.readLock().unlock();
        }
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (db != null) {
                try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                    db.flush(flush); // nothing is in a write-ahead log: what a clean close keeps must be in files
                } catch (RocksDBException e) {
                    // the offset in the files says what they hold; the next start rebuilds if it is behind
                }
                db.close();
                db = null;
                writes.close();
                options.close();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }
}
