package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Resuming a live stream with {@code Last-Event-ID}: the history keeps the changes of watched items only, and a
 * resume answers exactly (the latest change per item since the id) only when the history provably holds them all;
 * otherwise null, which makes the stream send a full snapshot.
 */
class LiveUpdatesTest {
    private final AtomicLong nanos = new AtomicLong();
    private final LiveUpdates live = new LiveUpdates(nanos::get);

    private static ItemCountsView counts(String id, long up) {
        return new ItemCountsView("post", id, up, 0, Map.of(), up, 0, Instant.EPOCH, Map.of(), false);
    }

    @Test
    void aClientThatReconnectsGetsTheLatestChangeOfEachItemItMissed() {
        LiveUpdates.Subscriber first = live.subscribe(Set.of("post:1", "post:2"));
        live.publish("post:1", counts("1", 1));
        String lastSeen = first.queue.poll().id();
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
        LiveUpdates.Subscriber a = live.subscribe(Set.of("post:1"));
        live.publish("post:1", counts("1", 1));
        String lastSeen = a.queue.poll().id();
        live.unsubscribe(a);
        live.publish("post:2", counts("2", 1)); // not watched: not kept

        assertThat(live.missedSince(lastSeen, Set.of("post:1", "post:2"))).isNull();
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).isEmpty();
    }

    @Test
    void aReconnectAfterTheResumeWindowGetsASnapshot() {
        LiveUpdates.Subscriber a = live.subscribe(Set.of("post:1"));
        live.publish("post:1", counts("1", 1));
        String lastSeen = a.queue.poll().id();
        live.unsubscribe(a);
        nanos.addAndGet(LiveUpdates.RESUME_WINDOW.toNanos() + 2_000_000_000L);
        live.publish("post:1", counts("1", 2)); // the watch has lapsed: this change is not kept

        assertThat(live.historySize()).isEqualTo(1);
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).isNull();
    }

    @Test
    void aReconnectOlderThanTheHistoryGetsASnapshot() {
        LiveUpdates.Subscriber a = live.subscribe(Set.of("post:1"));
        live.publish("post:1", counts("1", 0));
        String lastSeen = a.queue.poll().id();
        for (int i = 1; i <= LiveUpdates.HISTORY + 1; i++) { // the last one pushes the first change after lastSeen out
            live.publish("post:1", counts("1", i));
            a.queue.poll();
        }
        assertThat(live.historySize()).isEqualTo(LiveUpdates.HISTORY);
        assertThat(live.missedSince(lastSeen.replaceFirst("-\\d+$", "-2"), Set.of("post:1")))
                .as("the changes after the second are all still there").isNotNull();
        assertThat(live.missedSince(lastSeen, Set.of("post:1"))).as("its next change was dropped").isNull();
        assertThat(live.missedSince("another-epoch-1", Set.of("post:1"))).as("an id of another instance").isNull();
    }
}
