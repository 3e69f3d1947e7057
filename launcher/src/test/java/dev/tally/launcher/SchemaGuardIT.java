package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.schema.SchemaReader;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The API never acknowledges a command in a format a running processor cannot read. The node's own
 * Streams applications advertise what they decode; an "older processor" that reads only the single-vote
 * schema then appears: the API refuses every vote with 503 {@code processor-cannot-read} (synchronous and
 * {@code respond-async} alike) and appends nothing to {@code tally.vote-commands}; once that reader is
 * gone, votes are taken again. On the way, the records on the topics decode with the published
 * self-contained schemas alone, as a downstream team would read them.
 */
class SchemaGuardIT {
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aVoteNoRunningProcessorCouldReadIsRefusedAndNotAppended() throws Exception {
        TallyNode node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        KafkaSettings kafka = node.runtime().kafka();
        var topic = Topics.SCHEMA_READERS;
        String oldKey = "tally-vote-processor-old/it-" + run + "/" + Topics.VOTE_COMMANDS.name();
        try (var producer = new KafkaProducer<>(kafka.producerProps("schema-guard-it", Duration.ofSeconds(10)),
                topic.keySerde().serializer(), topic.valueSerde().serializer())) {
            try {
                TallyClient client = new TallyClient(node.httpPort());
                assertThat(client.vote("u-" + run, "guard-" + run, 1, "set").status()).isEqualTo(200);

                long written = Topics.VOTE_COMMANDS.fingerprints().orElseThrow().writtenFingerprint();
                String processor = VoteProcessorConfig.from(WalkingSkeletonIT.env(SharedBroker.dataDir("node"))).applicationId();
                assertThat(readers(kafka).values()).as("the node's vote-processor says what it reads")
                        .anySatisfy(r -> {
                            assertThat(r.getApplication()).isEqualTo(processor);
                            assertThat(r.getTopic()).isEqualTo(Topics.VOTE_COMMANDS.name());
                            assertThat(r.getFingerprints()).contains(written);
                        });

                decodesRealRecordsWithThePublishedSchemasAlone(kafka);

                List<Long> singlesOnly = new ArrayList<>(Topics.VOTE_COMMANDS.fingerprints().orElseThrow().readableFingerprints());
                singlesOnly.remove(written);
                producer.send(new ProducerRecord<>(topic.name(), oldKey, new SchemaReader("tally-vote-processor-old",
                        "it-" + run, Topics.VOTE_COMMANDS.name(), singlesOnly, Instant.now()))).get();

                TallyClient.Reply refused = awaitStatus(() -> client.vote("u-" + run, "guard-" + run, -1, "set"), 503);
                System.out.println("SchemaGuardIT: " + refused.body());
                assertThat(refused.body().toString()).contains("processor-cannot-read", "tally-vote-processor-old",
                        "nothing was accepted");
                assertThat(refused.header("Retry-After")).isNotNull();

                long before = commandsWritten(kafka);
                for (int i = 0; i < 5; i++) {
                    assertThat(client.vote("u-" + run + "-" + i, "guard-" + run, 1, "set").status()).isEqualTo(503);
                }
                TallyClient.Reply async = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes"))
                        .header("Content-Type", "application/json").header("X-Tally-User", "async-" + run)
                        .header("Prefer", "respond-async")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"guard-" + run
                                + "\",\"vote_value\":1,\"mode\":\"set\"}")));
                assertThat(async.status()).as("never 202 'will be applied' for what cannot be read").isEqualTo(503);
                assertThat(commandsWritten(kafka)).as("nothing appended to tally.vote-commands").isEqualTo(before);
            } finally {
                producer.send(new ProducerRecord<>(topic.name(), oldKey, null)).get(); // the older processor is gone
            }
            TallyClient client = new TallyClient(node.httpPort());
            assertThat(awaitStatus(() -> client.vote("u-" + run, "guard-" + run, -1, "set"), 200).status())
                    .as("taken again once the older reader is gone").isEqualTo(200);
            var item = client.awaitItem(null, "guard-" + run, b -> b.get("downvotes").asLong() == 1, Duration.ofSeconds(30));
            assertThat(item.body().get("upvotes").asLong()).as("only the votes taken count").isZero();
            assertThat(item.body().get("downvotes").asLong()).isEqualTo(1);
        } finally {
            node.close();
        }
    }

    /**
     * What a downstream team does with {@code schemas/published/} and nothing else of Tally's: each topic's
     * records, as they are on the topic, decoded with one file and Avro's generic reader.
     */
    private static void decodesRealRecordsWithThePublishedSchemasAlone(KafkaSettings kafka) throws Exception {
        Map<String, String> valueTypes = Map.of(Topics.VOTE_COMMANDS.name(), "VoteCommandBatch",
                Topics.VOTE_EVENTS.name(), "VoteEvent", Topics.VOTE_OUTCOMES.name(), "VoteOutcomeBatch",
                Topics.ITEM_COUNTS.name(), "ItemCounts", Topics.REACTION_TYPES.name(), "ReactionType",
                Topics.SCHEMA_READERS.name(), "SchemaReader");
        for (var e : valueTypes.entrySet()) {
            Schema alone = new Schema.Parser().parse(Path.of("../schemas/published", e.getValue() + ".avsc").toFile());
            long fingerprint = SchemaNormalization.parsingFingerprint64(alone);
            int[] decoded = {0};
            TopicScan.readAll(kafka, e.getKey(), new ByteArrayDeserializer(), new ByteArrayDeserializer(), r -> {
                byte[] v = r.value();
                if (v == null || decoded[0] >= 20 || AvroSerde.headerFingerprint(v).orElse(0) != fingerprint) {
                    return; // tombstones; older versions are the avro-history's business
                }
                try {
                    GenericRecord record = new GenericDatumReader<GenericRecord>(alone)
                            .read(null, DecoderFactory.get().binaryDecoder(v, 10, v.length - 10, null));
                    assertThat(record.getSchema().getName()).isEqualTo(e.getValue());
                    decoded[0]++;
                } catch (IOException ex) {
                    throw new AssertionError(e.getKey() + " offset " + r.offset() + " with " + e.getValue() + ".avsc", ex);
                }
            });
            assertThat(decoded[0]).as("records of %s decoded with published/%s.avsc", e.getKey(), e.getValue()).isPositive();
        }
    }

    private static TallyClient.Reply awaitStatus(java.util.function.Supplier<TallyClient.Reply> request, int status)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        TallyClient.Reply last;
        do {
            last = request.get();
            if (last.status() == status) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return last;
    }

    private static Map<String, SchemaReader> readers(KafkaSettings kafka) throws InterruptedException {
        try (var view = new CompactedTopicView<>(kafka, Topics.SCHEMA_READERS)) {
            view.awaitCaughtUp();
            return view.snapshot();
        }
    }

    private static long commandsWritten(KafkaSettings kafka) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("schema-guard-it-admin"))) {
            var partitions = admin.describeTopics(List.of(Topics.VOTE_COMMANDS.name())).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(Topics.VOTE_COMMANDS.name()).partitions();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            partitions.forEach(p -> latest.put(new TopicPartition(Topics.VOTE_COMMANDS.name(), p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).values().stream().mapToLong(i -> i.offset()).sum();
        }
    }
}
