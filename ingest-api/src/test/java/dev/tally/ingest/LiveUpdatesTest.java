package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The coalesced broadcast — per interval one event per changed item, its latest counts, the same bytes for every
 * stream of it — and resuming a live stream with {@code Last-Event-ID}: the history keeps the changes of watched
 * items only, and a resume answers exactly (the latest change per item since the id) only when the history provably
 * holds them all; otherwise null, which makes the stream send a full snapshot.
 */
class LiveUpdatesTest {
    private final AtomicLong nanos = new AtomicLong();
    private final LiveUpdates live = new LiveUpdates(nanos::get, false);

    /** A stream that records what the broadcast hands it. */
    private static final class Recorder implements LiveUpdates.Subscriber {
        final Set<String> items;
        final List<byte[]> events = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        int ticks;
        boolean ended;

        Recorder(String... items) {
            this.items = Set.of(items);
        }

        @Override
        public Set<String> items() {
            return items;
        }

        @Override
        public void send(String itemKey, byte[] event) {
            keys.add(itemKey);
            events.add(event);
        }

        @Override
        public void tick(long nowNanos) {
            ticks++;
        }

        @Override
        public void end() {
            ended = true;
        }

        String lastId() {
            String text = new String(events.get(events.size() - 1), StandardCharsets.UTF_8);
            return text.substring(4, text.indexOf('\n'));
        }

        String lastText() {
            return new String(events.get(events.size() - 1), StandardCharsets.UTF_8);
        }
    }

    private Recorder subscribe(String... items) {
        Recorder r = new Recorder(items);
        live.subscribe(r);
        return r;
    }

    @Test
    void aBurstOfChangesIsOneEventPerItemWithItsLatestCountsSharedByEveryStream() {
        List<Recorder> watchers = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            watchers.add(subscribe("post:hot"));
        }
        Recorder both = subscribe("post:hot", "post:calm");
        for (int up = 1; up <= 100; up++) {
            live.publish("post:hot", counts("hot", up));
        }
        live.broadcast();

        for (Recorder w : watchers) {
            assertThat(w.events).hasSize(1);
            assertThat(w.events.get(0)).as("encoded once, shared").isSameAs(watchers.get(0).events.get(0));
        }
        assertThat(both.keys).containsExactly("post:hot");
        assertThat(both.lastText()).startsWith("id: ").contains("\nevent: counts\ndata: {\"item_type\":\"post\",\"item_id\":\"hot\",\"upvotes\":100,")
                .endsWith("}\n\n");
        assertThat(live.missedSince(both.lastId(), Set.of("post:hot"))).as("the event's id is the latest change's").isEmpty();

        assertThat(both.ticks).as("a tick a second, not every broadcast").isZero();
        nanos.addAndGet(LiveUpdates.TICK.toNanos());
        live.broadcast();
        assertThat(both.events).as("nothing changed since: nothing sent").hasSize(1);
        assertThat(both.ticks).as("each stream may send a heartbeat if due").isEqualTo(1);

        live.publish("post:calm", counts("calm", 1));
        live.broadcast();
        assertThat(both.keys).containsExactly("post:hot", "post:calm");
        assertThat(watchers.get(0).events).hasSize(1);
    }

    @Test
    void aStreamGoneBeforeTheBroadcastGetsNothingAndTheServerStoppingEndsEveryStream() throws InterruptedException {
        Recorder gone = subscribe("post:1");
        Recorder stays = subscribe("post:1");
        live.publish("post:1", counts("1", 1));
        live.unsubscribe(gone);
        live.broadcast();
        assertThat(gone.events).isEmpty();
        assertThat(stays.events).hasSize(1);

        live.endStreams(java.time.Duration.ZERO);
        assertThat(stays.ended).isTrue();
        assertThat(subscribe("post:2").ended).as("a stream opened while stopping ends at once").isTrue();
    }

    private static ItemCountsView counts(String id, long up) {
        return new ItemCountsView("post", id, up, 0, Map.of(), up, 0, Instant.EPOCH, Map.of(), false);
    }

    @Test
    void aClientThatReconnectsGetsTheLatestChangeOfEachItemItMissed() {
        Recorder first = subscribe("post:1", "post:2");
        live.publish("post:1", counts("1", 1));
        live.broadcast();
        String lastSeen = first.lastId();
        live.unsubscribe(first); // the connection drops
        live.publish("post:1", counts("1", 2));
        live.publish("post:1", counts("1", 3));
        live.publish("post:2", counts("2", 7));

        Map<String, LiveUpdates.Change> missed = live.missedSince(lastSeen, Set.of("post:1", "post:2"));

        assertThat(missed).isNotNull();
        assertThat(missed.get("post:1").counts().upvotes()).isEqualTo(3);
        assertThat(missed.get("post:2").counts().upvotes()).isEqualTo(7);
        assertThat(live.missedSince(live.currentId(), Set.of("post:1"))).as("nothing since the latest id").isEmpty();
    }

    @Test
    void changesOfItemsNobodyWatchesAreNotKept() {
        for (int i = 0; i < 1_000; i++) {
            live.publish("post:" + i, counts(Integer.toString(i), 1));
        }
        assertThat(live.historySize()).isZero();
        String id = live.currentId();
        live.publish("post:5", counts("5", 2));
        assertThat(live.missedSince(id, Set.of("post:5"))).as("its changes were not kept: a snapshot").isNull();
    }

    @Test
    void anItemWatchedOnlySinceAfterTheClientsLastEventGetsASnapshot() {
        Recorder a = subscribe("post:1");
        live.publish("post:1", counts("1", 1));
        live.broadcast();
        String lastSeen = a.lastId();
        live.unsubscribe(a);
        live.publish("post:2", counts("2", 1)); // not watched: not kept

        assertThat(live.missedSince(lastSeen, Set.of("post:1", "post:2"))).isNull();
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).isEmpty();
    }

    @Test
    void aReconnectAfterTheResumeWindowGetsASnapshot() {
        Recorder a = subscribe("post:1");
        live.publish("post:1", counts("1", 1));
        live.broadcast();
        String lastSeen = a.lastId();
        live.unsubscribe(a);
        nanos.addAndGet(LiveUpdates.RESUME_WINDOW.toNanos() + 2_000_000_000L);
        live.publish("post:1", counts("1", 2)); // the watch has lapsed: this change is not kept

        assertThat(live.historySize()).isEqualTo(1);
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).isNull();
    }

    @Test
    void aReconnectOlderThanTheHistoryGetsASnapshot() {
        Recorder a = subscribe("post:1");
        live.publish("post:1", counts("1", 0));
        live.broadcast();
        String lastSeen = a.lastId();
        for (int i = 1; i <= LiveUpdates.HISTORY + 1; i++) { // the last one pushes the first change after lastSeen out
            live.publish("post:1", counts("1", i));
        }
        assertThat(live.historySize()).isEqualTo(LiveUpdates.HISTORY);
        assertThat(live.missedSince(lastSeen.replaceFirst("-\\d+$", "-2"), Set.of("post:1")))
                .as("the changes after the second are all still there").isNotNull();
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).as("its next change was dropped").isNull();
        assertThat(live.missedSince("another-epoch-1", Set.of("post:1"))).as("an id of another instance").isNull();
    }
}
