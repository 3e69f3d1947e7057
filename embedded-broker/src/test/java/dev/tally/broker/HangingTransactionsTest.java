package dev.tally.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.broker.HangingTransactions.Open;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.requests.TransactionResult;
import org.junit.jupiter.api.Test;

/** The rule that tells a hanging transaction from one that will still end by itself. */
class HangingTransactionsTest {
    private static final TopicPartition COUNTS = new TopicPartition("tally.item-counts", 2);
    private static final TopicPartition OFFSETS = new TopicPartition("__consumer_offsets", 5);

    private static Open open(TopicPartition tp, long producerId, int epoch) {
        return new Open(tp, new ProducerState(producerId, epoch, 3, 0L, OptionalInt.of(14), OptionalLong.of(578L)));
    }

    private static TransactionDescription coordinator(TransactionState state, long producerId, int epoch,
                                                      Set<TopicPartition> partitions) {
        return new TransactionDescription(1, state, producerId, epoch, 10_000, OptionalLong.empty(), partitions);
    }

    @Test
    void aTransactionItsCoordinatorCommittedWithoutMarkersIsCommittedOnEveryPartitionStillOpen() {
        // the wedge seen after SIGKILL: COMPLETE_COMMIT written, the markers dropped while partitions were leaderless
        var verdict = HangingTransactions.judge(List.of(open(COUNTS, 6, 179), open(OFFSETS, 6, 179)),
                Map.of(6L, coordinator(TransactionState.COMPLETE_COMMIT, 6, 180, Set.of())));
        assertThat(verdict.complete()).containsExactly(
                Map.entry(open(COUNTS, 6, 179), TransactionResult.COMMIT), Map.entry(open(OFFSETS, 6, 179), TransactionResult.COMMIT));
        assertThat(verdict.inFlight()).isEmpty();
        assertThat(verdict.unknown()).isEmpty();
    }

    @Test
    void aTransactionItsCoordinatorAbortedGetsTheAbortMarker() {
        for (TransactionState state : List.of(TransactionState.COMPLETE_ABORT, TransactionState.EMPTY)) {
            var verdict = HangingTransactions.judge(List.of(open(COUNTS, 6, 179)),
                    Map.of(6L, coordinator(state, 6, 180, Set.of())));
            assertThat(verdict.complete()).as(state.toString()).containsExactly(
                    Map.entry(open(COUNTS, 6, 179), TransactionResult.ABORT));
        }
    }

    @Test
    void markersInFlightAreWaitedFor() {
        for (TransactionState state : List.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
                TransactionState.PREPARE_EPOCH_FENCE)) {
            var verdict = HangingTransactions.judge(List.of(open(COUNTS, 6, 179)),
                    Map.of(6L, coordinator(state, 6, 179, Set.of(COUNTS))));
            assertThat(verdict.complete()).as(state.toString()).isEmpty();
            assertThat(verdict.inFlight()).as(state.toString()).hasSize(1);
        }
    }

    @Test
    void aTransactionTheCoordinatorStillRunsOnThatPartitionIsLeftAlone() {
        var verdict = HangingTransactions.judge(List.of(open(COUNTS, 6, 179)),
                Map.of(6L, coordinator(TransactionState.ONGOING, 6, 179, Set.of(COUNTS))));
        assertThat(verdict.complete()).isEmpty();
        assertThat(verdict.inFlight()).isEmpty();
        assertThat(verdict.unknown()).isEmpty();
    }

    @Test
    void whatCannotBeToldIsReportedNotTouched() {
        // an older transaction of a producer that has moved on, and a producer no coordinator knows
        var older = HangingTransactions.judge(List.of(open(COUNTS, 6, 179)),
                Map.of(6L, coordinator(TransactionState.ONGOING, 6, 181, Set.of(COUNTS))));
        var stranger = HangingTransactions.judge(List.of(open(COUNTS, 42, 0)), Map.of());
        assertThat(older.complete()).isEmpty();
        assertThat(older.unknown()).hasSize(1);
        assertThat(stranger.complete()).isEmpty();
        assertThat(stranger.unknown()).hasSize(1);
    }
}
