package dev.tally.projector.rankings;

import dev.tally.common.RocksDbStores;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedItem;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Namespace;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The live rankings of one policy: folds {@code tally.vote-events} (keyed by item, so a partition holds all of an
 * item's events) into each item's {@link RankedItem} (store {@value #ITEMS_STORE}, changelogged), and moves the item
 * in every ranked list of the partition's {@link IndexDb} as its keys change. Votes leave the trailing windows by
 * the wall clock: every {@link #REFRESH} the items whose windowed keys changed since are placed again.
 *
 * <p>The index and the items agree when both hold the same mark (a count of the index's writes and the event offset
 * they reflect): the index is written at once, the items when the task commits, so after a crash or on a new
 * instance the marks differ and the index is rebuilt from the items, each at the time it was last placed.
 */
public final class RankingTopology {
    public static final String ITEMS_STORE = "ranked-items";
    static final String MARK_STORE = "ranked-mark";
    static final Duration REFRESH = Duration.ofSeconds(5);
    /** Items placed again per refresh at most, so one refresh never holds the task for long. */
    static final int REFRESH_BATCH = 20_000;
    private static final String MARK = "mark";
    private static final byte[] MARK_KEY = RankingIndex.single(RankingIndex.POSITION);
    private static final byte[] Z_KEY = RankingIndex.single(RankingIndex.Z);
    private static final RankedList[] LISTS = RankedList.values();

    private RankingTopology() {}

    public static Topology build(Namespace ns, RankingPolicy policy, double z, Map<Integer, IndexDb> indexes) {
        var events = ns.topic(Topics.VOTE_EVENTS);
        Topology topology = new Topology();
        topology.addSource("vote-events-source", events.keySerde().deserializer(), events.valueSerde().deserializer(),
                events.name());
        topology.addProcessor("rank-items", () -> new RankItems(policy, z, indexes), "vote-events-source");
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(ITEMS_STORE), Serdes.String(),
                new RankedItemSerde()).withCachingEnabled(), "rank-items");
        topology.addStateStore(Stores.keyValueStoreBuilder(RocksDbStores.persistent(MARK_STORE), Serdes.String(),
                Serdes.ByteArray()).withCachingEnabled(), "rank-items");
        return topology;
    }

    /** Folds one item's events and moves it in the lists; places items again as their votes leave windows. */
    static final class RankItems implements Processor<String, VoteEvent, Void, Void> {
        private final RankingPolicy policy;
        private final double z;
        private final Map<Integer, IndexDb> indexes;
        private WriteBatch batch;
        private ProcessorContext<Void, Void> context;
        private KeyValueStore<String, RankedItem> items;
        private KeyValueStore<String, byte[]> marks;
        private IndexDb index;
        private int partition;
        private long writes;
        private long offset = -1;

        RankItems(RankingPolicy policy, double z, Map<Integer, IndexDb> indexes) {
            this.policy = policy;
            this.z = z;
            this.indexes = indexes;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
            items = context.getStateStore(ITEMS_STORE);
            marks = context.getStateStore(MARK_STORE);
            partition = context.taskId().partition();
            byte[] mark = marks.get(MARK);
            if (mark != null) {
                writes = RankingIndex.markWrites(mark);
                offset = RankingIndex.markOffset(mark);
            }
            var dir = context.stateDir().toPath().resolve("ranking-index");
            index = IndexDb.open(dir, context.appConfigs(), false);
            batch = new WriteBatch();
            byte[] zBits = RankingIndex.z(z);
            if (!Arrays.equals(mark, index.get(MARK_KEY)) || !Arrays.equals(zBits, index.get(Z_KEY))) {
                index.close();
                index = IndexDb.open(dir, context.appConfigs(), true);
                rebuild(zBits);
            }
            indexes.put(partition, index);
            context.schedule(REFRESH, PunctuationType.WALL_CLOCK_TIME, t -> refresh(Instant.ofEpochMilli(t)));
        }

        @Override
        public void process(Record<String, VoteEvent> record) {
            VoteEvent event = record.value();
            if (event == null) {
                return;
            }
            ItemKey item = new ItemKey(event.getItemType(), event.getItemId());
            String key = item.toString();
            RankedItem ranked = items.get(key);
            if (ranked == null) {
                ranked = new RankedItem();
            }
            double[] was = ranked.placed(z);
            Instant due = ranked.nextChange();
            ranked.apply(event, policy);
            offset = context.recordMetadata().map(m -> m.offset() + 1).orElse(offset);
            move(item, ranked, was, due, now());
            items.put(key, ranked);
            commitMark();
        }

        /** Places again the items whose windowed keys have changed by {@code now}. */
        private void refresh(Instant now) {
            List<byte[]> due = index.keys(new byte[] {RankingIndex.DUE}, RankingIndex.dueUntil(now), REFRESH_BATCH);
            if (due.isEmpty()) {
                return;
            }
            for (byte[] dueKey : due) {
                String key = RankingIndex.dueItem(dueKey);
                RankedItem ranked = items.get(key);
                if (ranked == null) {
                    delete(dueKey);
                    continue;
                }
                move(ItemKey.parse(key), ranked, ranked.placed(z), ranked.nextChange(), now);
                items.put(key, ranked);
            }
            commitMark();
        }

        /** Adds the moves of one item to the batch: out of the lists at {@code was}, into them at its keys now. */
        private void move(ItemKey item, RankedItem ranked, double[] was, Instant due, Instant now) {
            double[] keys = ranked.place(now, z);
            byte[] value = RankingIndex.value(ranked.upvotes(), ranked.downvotes(), ranked.weightedScore());
            for (RankedList list : LISTS) {
                double old = was == null ? Double.NaN : was[list.ordinal()];
                double key = keys[list.ordinal()];
                if (!Double.isNaN(old) && (Double.isNaN(key) || !new OrderKey(old, item.id()).equals(new OrderKey(key, item.id())))) {
                    delete(RankingIndex.listKey(list, item.type(), new OrderKey(old, item.id())));
                }
                if (!Double.isNaN(key)) {
                    put(RankingIndex.listKey(list, item.type(), new OrderKey(key, item.id())), value);
                }
            }
            Instant next = ranked.nextChange();
            if (due != null && !due.equals(next)) {
                delete(RankingIndex.dueKey(due, item.toString()));
            }
            if (next != null) {
                put(RankingIndex.dueKey(next, item.toString()), new byte[0]);
            }
        }

        /** Writes the batch with a new mark, and the same mark beside the items. */
        private void commitMark() {
            writes++;
            byte[] mark = RankingIndex.mark(writes, offset);
            put(MARK_KEY, mark);
            try {
                index.write(batch);
            } finally {
                clear();
            }
            marks.put(MARK, mark);
        }

        /** Lists every item at the time it was last placed, so the index is what it was when the items were stored. */
        private void rebuild(byte[] zBits) {
            int n = 0;
            try (KeyValueIterator<String, RankedItem> all = items.all()) {
                while (all.hasNext()) {
                    KeyValue<String, RankedItem> kv = all.next();
                    RankedItem ranked = kv.value;
                    if (ranked.placedAt() != null) {
                        move(ItemKey.parse(kv.key), ranked, null, null, ranked.placedAt());
                    }
                    if (++n % 1_000 == 0) {
                        index.write(batch);
                        clear();
                    }
                }
            }
            byte[] mark = marks.get(MARK);
            if (mark != null) {
                put(MARK_KEY, mark);
            }
            put(Z_KEY, zBits);
            index.write(batch);
            clear();
        }

        private void clear() {
            batch.clear();
        }

        private void put(byte[] key, byte[] value) {
            try {
                batch.put(key, value);
            } catch (RocksDBException e) {
                throw new IllegalStateException("ranking index batch: " + e.getMessage(), e);
            }
        }

        private void delete(byte[] key) {
            try {
                batch.delete(key);
            } catch (RocksDBException e) {
                throw new IllegalStateException("ranking index batch: " + e.getMessage(), e);
            }
        }

        private Instant now() {
            return Instant.ofEpochMilli(context.currentSystemTimeMs());
        }

        @Override
        public void close() {
            indexes.remove(partition, index);
            index.close();
            batch.close();
        }
    }
}
