package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.CountChange;
import dev.tally.schema.CountDelta;
import dev.tally.schemas.AvroSerde;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The count deltas a step sends and keeps: an item's first change of an interval leaves with its step; later ones
 * add up in the item's pending delta, written to the store once per step and sent at the flush; each delta's times
 * span its commands and its position is the highest command offset of its partition.
 */
class PendingDeltasTest {
    private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");
    private static final CountChange UP = new CountChange(1, 0, 1.0, 0.0, null, null);
    private static final CountChange LIKE = new CountChange(0, 0, 0.0, 0.0, null, "like");

    private final KeyValueStore<String, CountDelta> store = TestStores.inMemory("pending-deltas-test", AvroSerde.of(CountDelta.class));
    private final Map<String, CountDelta> sent = new LinkedHashMap<>();

    @Test
    void anItemsFirstChangeOfAnIntervalLeavesWithItsStepAndNeverTouchesTheStore() {
        PendingDeltas deltas = new PendingDeltas(store);
        deltas.add("post:a", "post", "a", T, 0, 7, true, UP);
        deltas.add("post:a", "post", "a", T.plusSeconds(2), 0, 9, true, UP); // same step: the same leaving delta
        deltas.endStep(sent::put);
        assertThat(sent).containsOnlyKeys("post:a");
        CountDelta a = sent.get("post:a");
        assertThat(a.getUpvotes()).isEqualTo(2);
        assertThat(a.getCommands()).isEqualTo(2);
        assertThat(a.getThroughOffset()).isEqualTo(9);
        assertThat(a.getFirstReceivedAt()).isEqualTo(T);
        assertThat(a.getLastReceivedAt()).isEqualTo(T.plusSeconds(2));
        assertThat(store.approximateNumEntries()).isZero();
    }

    @Test
    void laterChangesInTheIntervalAddUpInThePendingDeltaWrittenOncePerStepAndSentAtTheFlush() {
        PendingDeltas deltas = new PendingDeltas(store);
        deltas.add("post:a", "post", "a", T, 0, 1, true, UP);
        deltas.endStep(sent::put);
        sent.clear();
        deltas.add("post:a", "post", "a", T.plusSeconds(5), 1, 40, true, UP);
        deltas.add("post:a", "post", "a", T.plusSeconds(3), 1, 30, true, LIKE);
        deltas.endStep(sent::put);
        assertThat(sent).as("pending: nothing leaves with the step").isEmpty();
        CountDelta stored = store.get("post:a");
        assertThat(stored).as("written at the end of the step").isNotNull();
        assertThat(stored.getUpvotes()).isEqualTo(1);
        assertThat(stored.getReactions()).containsEntry("like", 1L);
        assertThat(stored.getFirstReceivedAt()).as("the earliest command").isEqualTo(T.plusSeconds(3));
        assertThat(stored.getLastReceivedAt()).as("the latest command").isEqualTo(T.plusSeconds(5));
        assertThat(stored.getSourcePartition()).isEqualTo(1);
        assertThat(stored.getThroughOffset()).as("the highest offset, whatever the order").isEqualTo(40);

        deltas.flush(sent::put);
        assertThat(sent).containsOnlyKeys("post:a");
        assertThat(sent.get("post:a").getCommands()).isEqualTo(2);
        assertThat(store.get("post:a")).as("sent: gone from the store").isNull();

        sent.clear();
        deltas.add("post:a", "post", "a", T.plusSeconds(9), 0, 50, true, UP);
        deltas.endStep(sent::put);
        assertThat(sent).as("a new interval: the first change leaves with its step again").containsOnlyKeys("post:a");
    }

    @Test
    void aReleasedVoteCountsButMovesNoPositionAndIsNoNewCommand() {
        PendingDeltas deltas = new PendingDeltas(store);
        deltas.add("post:b", "post", "b", T, 0, 12, true, UP);
        deltas.add("post:b", "post", "b", T.plusSeconds(1), -1, 0, false, UP);
        deltas.endStep(sent::put);
        CountDelta b = sent.get("post:b");
        assertThat(b.getUpvotes()).isEqualTo(2);
        assertThat(b.getCommands()).as("only the command as it arrived").isEqualTo(1);
        assertThat(b.getSourcePartition()).isEqualTo(0);
        assertThat(b.getThroughOffset()).isEqualTo(12);
    }

    @Test
    void pendingDeltasInTheStoreAtStartAreSentAtTheFirstFlushAndTakeTheNextChanges() {
        PendingDeltas before = new PendingDeltas(store);
        before.add("post:c", "post", "c", T, 0, 1, true, UP);
        before.endStep(sent::put);
        before.add("post:c", "post", "c", T.plusSeconds(1), 0, 2, true, UP);
        before.endStep(sent::put);
        sent.clear();

        PendingDeltas after = new PendingDeltas(store); // a restart: loaded from the store
        after.add("post:c", "post", "c", T.plusSeconds(2), 0, 3, true, UP);
        after.endStep(sent::put);
        assertThat(sent).as("still pending after the restart").isEmpty();
        assertThat(store.get("post:c").getUpvotes()).isEqualTo(2);
        List<String> order = new ArrayList<>();
        after.add("post:d", "post", "d", T.plusSeconds(3), 0, 4, true, UP); // leaves with its step
        after.flush((k, v) -> order.add(k + "=" + v.getUpvotes()));
        assertThat(order).containsExactly("post:d=1", "post:c=2");
    }

    @Test
    void aStepWithNoChangeWritesNothing() {
        PendingDeltas deltas = new PendingDeltas(store);
        deltas.add("post:e", "post", "e", T, 0, 1, true, null);
        deltas.endStep(sent::put);
        assertThat(sent.get("post:e").getCommands()).isEqualTo(1);
        assertThat(sent.get("post:e").getUpvotes()).isZero();
        assertThat(sent.get("post:e").getReactions()).isEmpty();
    }

    @Test
    void aDeltaBegunByAReleaseTakesThePositionOfTheFirstCommandAfterIt() {
        PendingDeltas deltas = new PendingDeltas(store);
        deltas.add("post:f", "post", "f", T, -1, -1, false, UP); // a release: no position of its own
        deltas.add("post:f", "post", "f", T.plusSeconds(1), 3, 77, true, UP);
        deltas.endStep(sent::put);
        assertThat(sent.get("post:f").getSourcePartition()).isEqualTo(3);
        assertThat(sent.get("post:f").getThroughOffset()).isEqualTo(77);
    }

    @Test
    void aStepWritesOnlyThePendingDeltasItChanged() {
        List<String> writes = new ArrayList<>();
        @SuppressWarnings("unchecked")
        KeyValueStore<String, CountDelta> counting = (KeyValueStore<String, CountDelta>) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put")) {
                        writes.add((String) args[0]);
                    }
                    return method.invoke(store, args);
                });
        PendingDeltas deltas = new PendingDeltas(counting);
        deltas.add("post:g", "post", "g", T, 0, 1, true, UP);
        deltas.add("post:h", "post", "h", T, 0, 2, true, UP);
        deltas.endStep(sent::put); // both leave with the step
        deltas.add("post:g", "post", "g", T.plusSeconds(1), 0, 3, true, UP);
        deltas.endStep(sent::put);
        deltas.add("post:h", "post", "h", T.plusSeconds(2), 0, 4, true, UP);
        deltas.endStep(sent::put);
        deltas.endStep(sent::put);
        assertThat(writes).containsExactly("post:g", "post:h");
    }
}
