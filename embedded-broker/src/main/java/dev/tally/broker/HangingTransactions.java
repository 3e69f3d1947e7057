package dev.tally.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and completes <em>hanging</em> transactions on the embedded single-node broker: a transaction
 * still open in a partition although its coordinator has completed it, so no marker will ever close it.
 * The partition's last stable offset then never moves past it, and every {@code read_committed} reader of
 * that partition — the Streams tasks, the count views, a consumer group's committed offsets — waits
 * forever. A SIGKILL of {@code ./tally up} can leave one.
 *
 * <p>How the single node makes one: killed while a transaction was in {@code PREPARE_COMMIT}, it restarts
 * leading every partition from its stale metadata, and the transaction coordinator resends the markers at
 * once — to its own listener, which accepts nothing until the broker has re-registered. Re-registering
 * waits for the killed incarnation's session to expire; the controller then fences the broker, every
 * partition is leaderless for an instant, and the coordinator drops the markers for leaderless partitions
 * ("likely deleted already") and writes the transaction {@code COMPLETE_COMMIT}.
 *
 * <p>The repair follows {@code kafka-transactions.sh find-hanging} (KIP-664): every partition's open
 * transactions ({@code DescribeProducers}) against the coordinators' view ({@code ListTransactions},
 * {@code DescribeTransactions}). A transaction whose markers are in flight ({@code PREPARE_*}) is waited
 * for, and so is one whose producer no coordinator lists yet: right after a restart the coordinator may not
 * have loaded that producer's {@code __transaction_state} partition yet, which alone would make the
 * transaction look unknown; one its coordinator still runs on that partition is left alone; one its
 * coordinator completed gets the marker the coordinator decided —
 * {@code COMMIT} for {@code COMPLETE_COMMIT}, so a transaction that had reached some partitions (a consumer
 * group's offsets, say) is completed the same way everywhere ({@code kafka-transactions.sh abort} could
 * only abort it, losing what the others committed). Anything else is reported, not touched. It must run
 * before any client of the broker starts: a live producer's transaction moves between the reads.
 */
final class HangingTransactions {
    private static final Logger LOG = LoggerFactory.getLogger(HangingTransactions.class);

    private HangingTransactions() {}

    /** One transaction open in one partition, as the partition leader reports it. */
    record Open(TopicPartition partition, ProducerState producer) {}

    /** What to do: complete these with the given marker; wait for these; report these (cannot tell). */
    record Verdict(Map<Open, TransactionResult> complete, List<Open> inFlight, List<Open> unknown) {}

    /**
     * The pure rule. {@code coordinators}: each producer id's transaction as its coordinator describes it
     * (absent: no coordinator knows the producer).
     */
    static Verdict judge(List<Open> open, Map<Long, TransactionDescription> coordinators) {
        Map<Open, TransactionResult> complete = new LinkedHashMap<>();
        List<Open> inFlight = new ArrayList<>();
        List<Open> unknown = new ArrayList<>();
        for (Open o : open) {
            TransactionDescription txn = coordinators.get(o.producer().producerId());
            if (txn == null) {
                unknown.add(o);
                continue;
            }
            switch (txn.state()) {
                case PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE -> inFlight.add(o);
                case COMPLETE_COMMIT -> complete.put(o, TransactionResult.COMMIT);
                case COMPLETE_ABORT, EMPTY -> complete.put(o, TransactionResult.ABORT);
                case ONGOING -> {
                    boolean live = txn.producerEpoch() == o.producer().producerEpoch()
                            && txn.topicPartitions().contains(o.partition());
                    if (!live) {
                        unknown.add(o); // an older transaction of a producer that moved on: its outcome is not known here
                    }
                }
                default -> unknown.add(o);
            }
        }
        return new Verdict(complete, inFlight, unknown);
    }

    /** What a repair did: the partitions it closed, and the open transactions it could not judge. */
    record Repaired(int closed, List<Open> unknown) {
        static final Repaired NOTHING = new Repaired(0, List.of());
    }

    /**
     * Completes every hanging transaction on the single broker at {@code host:port}, waiting up to
     * {@code patience} for transactions whose markers are in flight. Returns how many partitions it closed,
     * and the open transactions it cannot judge: usually one a producer killed mid-transaction left, which
     * that producer aborts when it starts again, so they are only reported if {@link #stillOpen} later.
     */
    static Repaired repair(Admin admin, String host, int port, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        try {
            List<TopicPartition> partitions = partitions(admin);
            while (true) {
                List<Open> open = open(admin, partitions);
                Map<Long, TransactionDescription> coordinators = coordinators(admin, open);
                Verdict verdict = judge(open, coordinators);
                // a producer no coordinator lists yet: its __transaction_state partition may not be loaded yet,
                // and the transaction it left may be one the coordinator completed without markers
                boolean unlisted = open.stream().anyMatch(o -> !coordinators.containsKey(o.producer().producerId()));
                if ((!verdict.inFlight().isEmpty() || unlisted) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    continue;
                }
                if (!verdict.unknown().isEmpty()) {
                    LOG.info("{} partitions hold an open transaction whose coordinator does not say how it ends (a"
                            + " producer killed mid-transaction aborts its own when it starts again); checked again once"
                            + " the services run: {}; their coordinators: {}", verdict.unknown().size(), verdict.unknown(),
                            verdict.unknown().stream().map(o -> o.producer().producerId()).distinct()
                                    .collect(Collectors.toMap(id -> id, id -> describe(coordinators.get(id)))));
                }
                if (!verdict.inFlight().isEmpty()) {
                    LOG.warn("transactions still completing after {}: {}", patience, verdict.inFlight());
                }
                return new Repaired(writeMarkers(host, port, verdict.complete()), verdict.unknown());
            }
        } catch (ExecutionException | IOException e) {
            LOG.warn("could not check for hanging transactions; continuing", e);
            return Repaired.NOTHING;
        }
    }

    private static String describe(TransactionDescription txn) {
        return txn == null ? "none" : txn.state() + " epoch " + txn.producerEpoch() + " on " + txn.topicPartitions().size() + " partitions";
    }

    /** Those of {@code earlier} that are still open: the same producer, epoch and start offset on the same partition. */
    static List<Open> stillOpen(Admin admin, List<Open> earlier) throws InterruptedException, ExecutionException {
        if (earlier.isEmpty()) {
            return List.of();
        }
        List<TopicPartition> partitions = earlier.stream().map(Open::partition).distinct().toList();
        List<Open> now = open(admin, partitions);
        return earlier.stream().filter(e -> now.stream().anyMatch(n -> n.partition().equals(e.partition())
                && n.producer().producerId() == e.producer().producerId()
                && n.producer().producerEpoch() == e.producer().producerEpoch()
                && n.producer().currentTransactionStartOffset().equals(e.producer().currentTransactionStartOffset())))
                .toList();
    }

    private static List<TopicPartition> partitions(Admin admin) throws InterruptedException, ExecutionException {
        Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        List<TopicPartition> out = new ArrayList<>();
        for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
            d.partitions().forEach(p -> out.add(new TopicPartition(d.name(), p.partition())));
        }
        return out;
    }

    private static List<Open> open(Admin admin, List<TopicPartition> partitions)
            throws InterruptedException, ExecutionException {
        List<Open> open = new ArrayList<>();
        admin.describeProducers(partitions).all().get().forEach((tp, state) -> state.activeProducers().stream()
                .filter(p -> p.currentTransactionStartOffset().isPresent())
                .forEach(p -> open.add(new Open(tp, p))));
        return open;
    }

    private static Map<Long, TransactionDescription> coordinators(Admin admin, List<Open> open)
            throws InterruptedException, ExecutionException {
        if (open.isEmpty()) {
            return Map.of();
        }
        Set<Long> producers = open.stream().map(o -> o.producer().producerId()).collect(Collectors.toSet());
        Set<String> ids = new HashSet<>();
        for (TransactionListing t : admin.listTransactions().all().get()) {
            if (producers.contains(t.producerId())) {
                ids.add(t.transactionalId());
            }
        }
        Map<Long, TransactionDescription> out = new HashMap<>();
        if (!ids.isEmpty()) {
            admin.describeTransactions(ids).all().get().forEach((id, d) -> out.put(d.producerId(), d));
        }
        return out;
    }

    /**
     * Sends the markers in one {@code WriteTxnMarkers} request — the request a transaction coordinator
     * sends a partition leader, here the single broker itself. The Admin client only offers the abort half.
     */
    private static int writeMarkers(String host, int port, Map<Open, TransactionResult> complete) throws IOException {
        if (complete.isEmpty()) {
            return 0;
        }
        record Txn(long producerId, short epoch, int coordinatorEpoch, TransactionResult result) {}
        Map<Txn, List<TopicPartition>> byTxn = new LinkedHashMap<>();
        complete.forEach((o, result) -> byTxn.computeIfAbsent(new Txn(o.producer().producerId(),
                (short) o.producer().producerEpoch(), o.producer().coordinatorEpoch().orElse(-1), result),
                k -> new ArrayList<>()).add(o.partition()));
        List<WriteTxnMarkersRequest.TxnMarkerEntry> markers = new ArrayList<>();
        byTxn.forEach((t, tps) -> markers.add(new WriteTxnMarkersRequest.TxnMarkerEntry(t.producerId(), t.epoch(),
                t.coordinatorEpoch(), t.result(), tps, (short) 0)));
        short version = ApiKeys.WRITE_TXN_MARKERS.latestVersion();
        RequestHeader header = new RequestHeader(ApiKeys.WRITE_TXN_MARKERS, version, "tally-embedded-broker-repair", 1);
        ByteBuffer request = new WriteTxnMarkersRequest.Builder(markers).build(version).serializeWithHeader(header);
        WriteTxnMarkersResponse response;
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            response = (WriteTxnMarkersResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
        }
        Map<Long, Map<TopicPartition, Errors>> errors = response.errorsByProducerId();
        int done = 0;
        for (var e : complete.entrySet()) {
            Open o = e.getKey();
            TransactionResult result = e.getValue();
            Errors error = errors.getOrDefault(o.producer().producerId(), Map.of()).getOrDefault(o.partition(), Errors.NONE);
            if (error == Errors.NONE) {
                done++;
                LOG.warn("completed a hanging transaction with {}: producer {} epoch {} on {} (its coordinator had"
                                + " completed it without writing this marker)", result, o.producer().producerId(),
                        o.producer().producerEpoch(), o.partition());
            } else if (error == Errors.INVALID_PRODUCER_EPOCH || error == Errors.PRODUCER_FENCED) {
                // the partition already holds a newer epoch of this producer: it restarted and ended the
                // transaction itself between our look and our marker, so nothing hangs any more
                LOG.info("the transaction of producer {} epoch {} on {} was ended by its producer meanwhile ({})",
                        o.producer().producerId(), o.producer().producerEpoch(), o.partition(), error);
            } else {
                LOG.error("could not complete the hanging transaction of producer {} on {}: {}",
                        o.producer().producerId(), o.partition(), error);
            }
        }
        return done;
    }
}
