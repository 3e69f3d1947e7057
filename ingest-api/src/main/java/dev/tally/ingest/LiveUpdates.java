package dev.tally.ingest;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicFollower;
import dev.tally.common.query.ItemCountsView;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Follows {@code tally.item-counts} (read committed, from the end) and hands each change to the
 * subscribers of that item. Every change gets an id {@code <epoch>-<seq>}; so that a client reconnecting with
 * {@code Last-Event-ID} gets what it missed, the last {@value #HISTORY} changes of <em>watched</em> items are
 * kept: items a stream follows now or followed within the last {@link #RESUME_WINDOW}. A change of an item
 * nobody watches is neither decoded nor kept — at thousands of changes a second, a history of every item would
 * live for seconds, long enough for the collector to move it into the old generation. When the history cannot
 * prove it holds every change a client missed, the client gets a full snapshot instead. A subscriber's queue is
 * bounded: a client too slow to keep up is dropped, never buffered without bound.
 */
public final class LiveUpdates implements AutoCloseable {
    static final int HISTORY = 10_000;
    static final int QUEUE = 256;
    /** How long an item stays watched after its last stream closed: a reconnect within it resumes exactly. */
    static final Duration RESUME_WINDOW = Duration.ofSeconds(60);

    /** One change of one item's counts. */
    record Change(String id, long seq, String itemKey, ItemCountsView counts) {}

    /** One SSE client's subscription. */
    static final class Subscriber {
        final Set<String> items;
        final BlockingQueue<Change> queue = new ArrayBlockingQueue<>(QUEUE);
        volatile boolean overflowed;
        /** The server is stopping: the stream should end now. */
        volatile boolean ended;

        Subscriber(Set<String> items) {
            this.items = items;
        }

        void offer(Change change) {
            if (!queue.offer(change)) {
                overflowed = true;
            }
        }

        /** Wakes a handler waiting on the queue (a full queue wakes it anyway) and tells it to stop. */
        void end() {
            ended = true;
            queue.offer(END);
        }
    }

    /**
     * One watched item: its streams, and {@code since}, the sequence number when its watch began — every change
     * of it after {@code since} is in the history (or was dropped from its far end, which {@link #droppedThrough}
     * tells). Guarded by the LiveUpdates' lock.
     */
    private static final class Watch {
        final Set<Subscriber> subscribers = new CopyOnWriteArraySet<>();
        final long since;
        long idleSinceNanos;

        Watch(long since) {
            this.since = since;
        }
    }

    /** Put on a queue by {@link Subscriber#end}: no change, only a wake-up. */
    static final Change END = new Change("", -1, "", null);

    private final String epoch = UUID.randomUUID().toString().substring(0, 8);
    private final LongSupplier nanoClock;
    private final Map<String, Watch> watches = new ConcurrentHashMap<>(); // written under the lock
    private final Set<Subscriber> open = ConcurrentHashMap.newKeySet();
    private final Deque<Change> history = new ArrayDeque<>();
    private TopicFollower<String, byte[]> reader; // null when fed by publish only
    private long seq;
    private long droppedThrough; // the highest sequence number dropped from the history
    private long lastExpiryNanos;
    private volatile boolean ending;

    /** Live updates fed by {@link #publish}; see {@link #follow} for the Kafka-fed ones. */
    public LiveUpdates() {
        this(System::nanoTime);
    }

    LiveUpdates(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.lastExpiryNanos = nanoClock.getAsLong();
    }

    /** Live updates of every change published to {@code tally.item-counts} from now on. */
    public static LiveUpdates follow(KafkaSettings kafka) {
        LiveUpdates live = new LiveUpdates();
        live.start(kafka);
        return live;
    }

    private void start(KafkaSettings kafka) {
        var props = kafka.clientProps("tally-live-updates");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString().toLowerCase());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        // values stay bytes until an item is known to be watched: a consumer's value deserializer would decode every
        // change of every item, most of this thread's work when nobody watches
        var counts = Topics.ITEM_COUNTS.valueSerde().deserializer();
        var consumer = new KafkaConsumer<>(props, Topics.ITEM_COUNTS.keySerde().deserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(kafka.topic(Topics.ITEM_COUNTS).name(), Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30))); // nothing after this is missed
        reader = TopicFollower.start(consumer, "tally-live-updates", Duration.ofMillis(200), batch -> {
            for (ConsumerRecord<String, byte[]> r : batch) {
                if (r.value() != null && watches.containsKey(r.key())) {
                    publish(r.key(), ItemCountsView.of(counts.deserialize(r.topic(), r.value()), false));
                }
            }
        });
    }

    synchronized Subscriber subscribe(Set<String> itemKeys) {
        expireIdleWatches();
        Subscriber s = new Subscriber(itemKeys);
        open.add(s);
        itemKeys.forEach(k -> watches.computeIfAbsent(k, x -> new Watch(seq)).subscribers.add(s));
        if (ending) {
            s.end();
        }
        return s;
    }

    /**
     * Ends every live stream and waits up to {@code wait} for their handlers to return (whether they all
     * did is the answer). Call it before
     * the HTTP server stops: a stream still open when Jetty tears its response down sends Javalin's
     * error handling round in circles on the recycled response (a flood of log lines at shutdown).
     */
    public boolean endStreams(Duration wait) throws InterruptedException {
        ending = true;
        open.forEach(Subscriber::end);
        long deadline = System.nanoTime() + wait.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return open.isEmpty();
    }

    synchronized void unsubscribe(Subscriber s) {
        open.remove(s);
        long now = nanoClock.getAsLong();
        for (String k : s.items) {
            Watch w = watches.get(k);
            if (w != null && w.subscribers.remove(s) && w.subscribers.isEmpty()) {
                w.idleSinceNanos = now;
            }
        }
    }

    /**
     * The latest change per item of {@code itemKeys} after {@code lastEventId}, if this instance's history holds
     * every change of those items since that id; null when the client must be sent a full snapshot instead.
     */
    synchronized Map<String, Change> missedSince(String lastEventId, Set<String> itemKeys) {
        if (lastEventId == null || !lastEventId.startsWith(epoch + "-")) {
            return null;
        }
        long after;
        try {
            after = Long.parseLong(lastEventId.substring(epoch.length() + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        if (after < droppedThrough || after > seq) {
            return null; // older than what we kept, or not an id of ours
        }
        for (String k : itemKeys) {
            Watch w = watches.get(k);
            if (w == null || w.since > after) {
                return null; // not watched all along since that id: its changes were not kept
            }
        }
        Map<String, Change> latest = new LinkedHashMap<>();
        for (Change c : history) {
            if (c.seq() > after && itemKeys.contains(c.itemKey())) {
                latest.put(c.itemKey(), c);
            }
        }
        return latest;
    }

    /** An id for a snapshot event sent now: later changes get higher ids. */
    synchronized String currentId() {
        return epoch + "-" + seq;
    }

    /** How many changes the history holds. */
    synchronized int historySize() {
        return history.size();
    }

    /** Hands one change of an item's counts to its subscribers and, if the item is watched, the history. */
    public void publish(String itemKey, ItemCountsView counts) {
        Change change;
        Watch watch;
        synchronized (this) {
            expireIdleWatches();
            watch = watches.get(itemKey);
            if (watch == null) {
                return; // nobody follows it, nor did within the resume window
            }
            seq++;
            change = new Change(epoch + "-" + seq, seq, itemKey, counts);
            history.addLast(change);
            if (history.size() > HISTORY) {
                droppedThrough = history.removeFirst().seq();
            }
        }
        watch.subscribers.forEach(s -> s.offer(change));
    }

    /** Forgets the items no stream has followed for the resume window (at most once a second). */
    private void expireIdleWatches() {
        long now = nanoClock.getAsLong();
        if (now - lastExpiryNanos < 1_000_000_000L) {
            return;
        }
        lastExpiryNanos = now;
        watches.values().removeIf(w -> w.subscribers.isEmpty() && now - w.idleSinceNanos > RESUME_WINDOW.toNanos());
    }

    @Override
    public void close() {
        if (reader != null) {
            reader.close();
        }
    }
}
