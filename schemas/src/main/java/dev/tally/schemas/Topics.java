package dev.tally.schemas;

import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingLists;
import dev.tally.schema.SchemaReader;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schema.WebhookAttempt;
import dev.tally.schema.WebhookPosition;
import dev.tally.schema.WebhookSubscription;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The typed topic catalogue. Keys are UTF-8 strings; values are Avro in single-object encoding.
 *
 * The event log and the quarantine are kept forever: every count can be recomputed from them.
 *
 * <ul>
 *   <li>{@link #VOTE_COMMANDS}: batches of commands for one partition, keyed by a hashed voter; every voter of a
 *       batch maps to its partition, so one task sees all of a voter's commands in order.</li>
 *   <li>{@link #VOTE_EVENTS}: keyed by item ({@code type:id}); every resolved change, before and after.</li>
 *   <li>{@link #VOTE_OUTCOMES}: one batch of answers per command batch and waiting API instance, written to the
 *       partition that instance reads.</li>
 *   <li>{@link #COUNT_DELTAS}: batches of pre-aggregated count changes per vote-processor task, one delta per item, all
 *       items of a batch of one partition; keyed by the first delta's item.</li>
 *   <li>{@link #NETWORK_COMMANDS}: keyed by hashed network; the commands of each batch that carried a network, grouped
 *       by network, as the vote-processor read them: what the fraud-detector's network watch counts.</li>
 *   <li>{@link #ITEM_COUNTS}: keyed by item, compacted; latest counts per item.</li>
 *   <li>{@link #QUARANTINE}: keyed by command id; held commands and their fate.</li>
 *   <li>{@link #REACTION_TYPES}: keyed by code, compacted; the reaction registry (retired codes stay, inactive).</li>
 *   <li>{@link #ITEM_CATALOG}: keyed by item, compacted; item status published by the content system.</li>
 *   <li>{@link #RANKINGS}: keyed by item type, compacted; the latest ranking artifact per type.</li>
 *   <li>{@link #RANKING_LISTS}: keyed by ranking policy, compacted; the policies whose live ranked lists every node keeps.</li>
 *   <li>{@link #QUARANTINE_DECISIONS}: keyed by hashed voter (co-partitioned with the commands); release or discard of a held vote.</li>
 *   <li>{@link #FRAUD_FLAGS}: keyed by what is flagged, compacted; the fraud-detector's verdicts with their expiry.</li>
 *   <li>{@link #SCHEMA_READERS}: keyed by application/instance/topic, compacted; the writer schemas each running
 *       reader decodes, so the ingest API never appends a command its processors cannot read.</li>
 *   <li>{@link #WEBHOOK_SUBSCRIPTIONS}: keyed by subscription id, compacted; the webhook subscriptions.</li>
 *   <li>{@link #WEBHOOK_POSITIONS}: keyed by subscription id and partition, compacted; how far each subscription has
 *       delivered each partition of {@link #ITEM_COUNTS}.</li>
 *   <li>{@link #WEBHOOK_ATTEMPTS}: keyed by subscription id; every delivery attempt and its outcome.</li>
 *   <li>{@link #DEAD_LETTERS}: raw records a Streams application could not read or process.</li>
 * </ul>
 */
public final class Topics {
    private Topics() {}

    private static final Serde<String> KEY = Serdes.String();
    private static final long FOREVER = -1;

    private static long days(int n) {
        return n * 86_400_000L;
    }

    public static final Topic<String, VoteCommandBatch> VOTE_COMMANDS =
            new Topic<>("tally.vote-commands", KEY, WrappingSerde.of(VoteCommandBatch.class, VoteCommand.class,
                    Topics::batchOf), false, days(7));
    public static final Topic<String, VoteEvent> VOTE_EVENTS =
            new Topic<>("tally.vote-events", KEY, AvroSerde.of(VoteEvent.class), false, FOREVER);
    public static final Topic<String, VoteOutcomeBatch> VOTE_OUTCOMES =
            new Topic<>("tally.vote-outcomes", KEY, WrappingSerde.of(VoteOutcomeBatch.class, VoteOutcome.class,
                    o -> new VoteOutcomeBatch(new java.util.ArrayList<>(java.util.List.of(o)))), false, days(1));
    public static final Topic<String, CountDeltaBatch> COUNT_DELTAS =
            new Topic<>("tally.count-deltas", KEY, WrappingSerde.of(CountDeltaBatch.class, CountDelta.class,
                    Topics::batchOf), false, days(7));
    public static final Topic<String, VoteCommandBatch> NETWORK_COMMANDS =
            new Topic<>("tally.network-commands", KEY, AvroSerde.of(VoteCommandBatch.class), false, days(7));
    public static final Topic<String, ItemCounts> ITEM_COUNTS =
            new Topic<>("tally.item-counts", KEY, AvroSerde.of(ItemCounts.class), true, FOREVER);
    public static final Topic<String, QuarantineRecord> QUARANTINE =
            new Topic<>("tally.quarantine", KEY, AvroSerde.of(QuarantineRecord.class), false, FOREVER);

    public static final Topic<String, ReactionType> REACTION_TYPES =
            new Topic<>("tally.reaction-types", KEY, AvroSerde.of(ReactionType.class), true, FOREVER);
    public static final Topic<String, ItemStatus> ITEM_CATALOG =
            new Topic<>("tally.item-catalog", KEY, AvroSerde.of(ItemStatus.class), true, FOREVER);
    public static final Topic<String, RankingArtifact> RANKINGS =
            new Topic<>("tally.rankings", KEY, AvroSerde.of(RankingArtifact.class), true, FOREVER);

    public static final Topic<String, QuarantineRecord> QUARANTINE_DECISIONS =
            new Topic<>("tally.quarantine-decisions", KEY, AvroSerde.of(QuarantineRecord.class), false, days(7));
    public static final Topic<String, RankingLists> RANKING_LISTS =
            new Topic<>("tally.ranking-lists", KEY, AvroSerde.of(RankingLists.class), true, FOREVER);
    public static final Topic<String, FraudFlag> FRAUD_FLAGS =
            new Topic<>("tally.fraud-flags", KEY, AvroSerde.of(FraudFlag.class), true, FOREVER);

    /** What each running reader of a topic can decode ({@code application/instance/topic}): the API's format guard. */
    public static final Topic<String, SchemaReader> SCHEMA_READERS =
            new Topic<>("tally.schema-readers", KEY, AvroSerde.of(SchemaReader.class), true, FOREVER);

    public static final Topic<String, WebhookSubscription> WEBHOOK_SUBSCRIPTIONS =
            new Topic<>("tally.webhook-subscriptions", KEY, AvroSerde.of(WebhookSubscription.class), true, FOREVER);
    public static final Topic<String, WebhookPosition> WEBHOOK_POSITIONS =
            new Topic<>("tally.webhook-positions", KEY, AvroSerde.of(WebhookPosition.class), true, FOREVER);
    public static final Topic<String, WebhookAttempt> WEBHOOK_ATTEMPTS =
            new Topic<>("tally.webhook-attempts", KEY, AvroSerde.of(WebhookAttempt.class), false, days(7));

    /** Records a Streams application could not read or process, with the failure in their headers. */
    public static final Topic<byte[], byte[]> DEAD_LETTERS =
            new Topic<>("tally.dead-letters", Serdes.ByteArray(), Serdes.ByteArray(), false, days(30));

    /** Every topic Tally owns, in dataflow order, as the default namespace names them ({@link Namespace#topics()}). */
    public static final List<Topic<?, ?>> ALL =
            List.of(VOTE_COMMANDS, VOTE_EVENTS, VOTE_OUTCOMES, COUNT_DELTAS, NETWORK_COMMANDS, ITEM_COUNTS, QUARANTINE,
                    REACTION_TYPES, ITEM_CATALOG, RANKINGS, RANKING_LISTS, FRAUD_FLAGS, QUARANTINE_DECISIONS, SCHEMA_READERS,
                    WEBHOOK_SUBSCRIPTIONS, WEBHOOK_POSITIONS, WEBHOOK_ATTEMPTS, DEAD_LETTERS);

    /** The key of an item in every item-keyed topic and store ({@link ItemKey}'s wire form). */
    public static String itemKey(String itemType, String itemId) {
        return new ItemKey(itemType, itemId).toString();
    }

    /**
     * The catalogue's topic of this name in any namespace ({@code staging.vote-events} is {@link #VOTE_EVENTS}), for
     * its serdes and settings.
     */
    public static Topic<?, ?> byName(String name) {
        int dot = name.indexOf('.');
        String local = name.substring(dot + 1);
        return ALL.stream().filter(t -> dot > 0 && t.localName().equals(local)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown topic '" + name + "'; known: "
                        + ALL.stream().map(Topic::name).toList() + " (in any namespace)"));
    }

    /**
     * The partition of {@link #VOTE_COMMANDS} (and of everything co-partitioned with it) that a voter's
     * commands go to: where Kafka's default partitioner puts a record keyed by the hashed voter, so a batch
     * holds only voters of its partition and a voter's commands stay in one task, in order.
     */
    public static int voterPartition(String voter, int partitions) {
        return partition(voter, partitions);
    }

    /** The partition Kafka's default partitioner gives a record keyed by {@code key} (as UTF-8) in a topic of {@code partitions}. */
    public static int partition(String key, int partitions) {
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                key.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % partitions;
    }

    /** A batch of one delta: what a record written as a single delta reads as. */
    public static CountDeltaBatch batchOf(CountDelta delta) {
        return new CountDeltaBatch(new java.util.ArrayList<>(java.util.List.of(delta)));
    }

    /** A batch of one command: what a record written as a single command before batches reads as. */
    public static VoteCommandBatch batchOf(VoteCommand command) {
        return new VoteCommandBatch(new java.util.ArrayList<>(java.util.List.of(command)));
    }
}
