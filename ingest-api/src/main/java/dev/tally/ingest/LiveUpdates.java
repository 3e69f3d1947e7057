package dev.tally.ingest;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicFollower;
import dev.tally.common.query.ItemCountsView;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows {@code tally.item-counts} (read committed, from the end) and broadcasts each watched item's latest counts
 * to the streams that follow it, coalesced: every {@link #INTERVAL} at most one event per item, encoded once and
 * shared by all of that item's streams — a hundred votes on an item ten thousand clients watch are a few events
 * per client, not a million writes.
 *
 * <p>Every change gets an id {@code <epoch>-<seq>}; so that a client reconnecting with {@code Last-Event-ID} gets
 * what it missed, the last {@value #HISTORY} changes of <em>watched</em> items are kept: items a stream follows now
 * or followed within the last {@link #RESUME_WINDOW}. A change of an item nobody watches is neither decoded nor
 * kept — at thousands of changes a second, a history of every item would live for seconds, long enough for the
 * collector to move it into the old generation. When the history cannot prove it holds every change a client
 * missed, the client gets a full snapshot instead.
 */
public final class LiveUpdates implements AutoCloseable {
    static final int HISTORY = 10_000;
    /** How often an item's latest counts are broadcast, at most: the delay a change may wait for the next one. */
    static final Duration INTERVAL = Duration.ofMillis(250);
    /** How often every stream is asked whether a heartbeat is due. */
    static final Duration TICK = Duration.ofSeconds(1);
    /** How long an item stays watched after its last stream closed: a reconnect within it resumes exactly. */
    static final Duration RESUME_WINDOW = Duration.ofSeconds(60);

    /** One change of one item's counts. */
    record Change(String id, long seq, String itemKey, ItemCountsView counts) {}

    /** One open stream, as the broadcast sees it. Its methods are called on the broadcast thread and must not block. */
    interface Subscriber {
        Set<String> items();

        /** The latest counts of one of its items, as a ready-made event shared with every stream of that item. */
        void send(String itemKey, byte[] event);

        /** Called every {@link #TICK}: the stream may send a heartbeat. */
        void tick(long nowNanos);

        /** The server is stopping: the stream should end now. */
        void end();
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
        Change latest; // its newest change not broadcast yet, or null

        Watch(long since) {
            this.since = since;
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(LiveUpdates.class);

    private final String epoch = UUID.randomUUID().toString().substring(0, 8);
    private final LongSupplier nanoClock;
    private final Map<String, Watch> watches = new ConcurrentHashMap<>(); // written under the lock
    private final Set<Subscriber> open = ConcurrentHashMap.newKeySet();
    private final Deque<Change> history = new ArrayDeque<>();
    private List<Watch> changed = new ArrayList<>(); // watches with a change to broadcast; under the lock
    private final ScheduledExecutorService broadcaster; // null when a test drives broadcast() itself
    private TopicFollower<String, byte[]> reader; // null when fed by publish only
    private long seq;
    private long droppedThrough; // the highest sequence number dropped from the history
    private long lastExpiryNanos;
    private long lastTickNanos; // broadcast thread only
    private volatile boolean ending;

    /** Live updates fed by {@link #publish}, broadcast every {@link #INTERVAL}; see {@link #follow} for the Kafka-fed ones. */
    public LiveUpdates() {
        this(System::nanoTime, true);
    }

    /** @param broadcasting whether a thread of its own broadcasts; if not, the caller calls {@link #broadcast} */
    LiveUpdates(LongSupplier nanoClock, boolean broadcasting) {
        this.nanoClock = nanoClock;
        this.lastExpiryNanos = nanoClock.getAsLong();
        this.lastTickNanos = lastExpiryNanos;
        if (broadcasting) {
            broadcaster = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "tally-live-broadcast");
                t.setDaemon(true);
                return t;
            });
            broadcaster.scheduleWithFixedDelay(this::broadcastSafely, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            broadcaster = null;
        }
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

    /** Registers a stream for its items' changes; a stream that registers while the server stops is ended at once. */
    synchronized void subscribe(Subscriber s) {
        expireIdleWatches();
        open.add(s);
        s.items().forEach(k -> watches.computeIfAbsent(k, x -> new Watch(seq)).subscribers.add(s));
        if (ending) {
            s.end();
        }
    }

    /**
     * Ends every live stream and waits up to {@code wait} until none is open (whether none is, is the answer).
     * Call it before the HTTP server stops, so that each client sees its response end cleanly rather than a
     * connection torn down.
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
        for (String k : s.items()) {
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

    /** Records one change of an item's counts, if the item is watched: kept in the history, broadcast at the next interval. */
    public void publish(String itemKey, ItemCountsView counts) {
        synchronized (this) {
            expireIdleWatches();
            Watch watch = watches.get(itemKey);
            if (watch == null) {
                return; // nobody follows it, nor did within the resume window
            }
            seq++;
            Change change = new Change(epoch + "-" + seq, seq, itemKey, counts);
            history.addLast(change);
            if (history.size() > HISTORY) {
                droppedThrough = history.removeFirst().seq();
            }
            if (!watch.subscribers.isEmpty()) { // kept for a resume only, while nobody follows it
                if (watch.latest == null) {
                    changed.add(watch);
                }
                watch.latest = change;
            }
        }
    }

    /**
     * Sends each item that changed since the last broadcast to its streams: its latest change, encoded once; then,
     * once per {@link #TICK}, lets every stream send a heartbeat if one is due.
     */
    void broadcast() {
        List<Watch> due;
        List<Change> latest = new ArrayList<>();
        synchronized (this) {
            due = changed;
            changed = new ArrayList<>();
            for (Watch w : due) {
                latest.add(w.latest);
                w.latest = null;
            }
        }
        for (int i = 0; i < due.size(); i++) { // encoded and written outside the lock: publish never waits for sockets
            Change change = latest.get(i);
            byte[] event = EventStream.countsEvent(change.id(), change.counts());
            due.get(i).subscribers.forEach(s -> s.send(change.itemKey(), event));
        }
        long now = nanoClock.getAsLong();
        if (now - lastTickNanos >= TICK.toNanos()) {
            lastTickNanos = now;
            open.forEach(s -> s.tick(now));
        }
    }

    private void broadcastSafely() {
        try {
            broadcast();
        } catch (RuntimeException e) { // a failed round must not end the broadcasts for good
            LOG.warn("live updates: a broadcast failed: {}", e.toString());
        }
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
        if (broadcaster != null) {
            broadcaster.shutdownNow();
        }
    }
}
