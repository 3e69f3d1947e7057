package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.common.TopicScan;
import dev.tally.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The views a reader sees: a viral item's cost in store writes, and the rankings artifact. */
class ViewsIT {
    private static TallyNode node;
    private static TallyClient client;
    private static Path dataDir;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws InterruptedException {
        dataDir = SharedBroker.dataDir("node");
        // a viral item is a burst by design here: no quarantine, so every vote is counted and measured
        node = WalkingSkeletonIT.startAll(WalkingSkeletonIT.env(dataDir).with("TALLY_RANKING_INTERVAL", "1s")
                .with("TALLY_BURST_FLOOR", "1000000"));
        client = new TallyClient(node.httpPort());
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    @Test
    void aViralItemCostsAFewStoreWritesNotOnePerVote() throws Exception {
        String item = "viral-" + run;
        int votes = 20_000;
        try (var producer = new KafkaProducer<>(node.runtime().kafka().producerProps("it-viral", Duration.ofSeconds(30)),
                Topics.VOTE_COMMANDS.keySerde().serializer(), Topics.VOTE_COMMANDS.valueSerde().serializer())) {
            for (int i = 0; i < votes; i++) {
                String voter = "viral-voter-" + i + "-" + run; // the Kafka-native path: already hashed-shaped ids
                producer.send(new ProducerRecord<>(Topics.VOTE_COMMANDS.name(), voter, Topics.batchOf(VoteCommand.newBuilder()
                        .setCommandId(UUID.randomUUID().toString()).setVoter(voter).setItemType("post").setItemId(item)
                        .setAction(CommandAction.VOTE).setVoteValue(1).setMode(VoteMode.SET).setRequestHash("")
                        .setReceivedAt(Instant.now()).build())));
            }
        }
        JsonNode counted = awaitUpvotes(item, votes);
        assertThat(counted.get("upvotes").asLong()).isEqualTo(votes);

        long deltas = recordsWithKey(Topics.COUNT_DELTAS.name(), "post:" + item);
        long storeWrites = recordsWithKey("tally-count-projector-item-counts-changelog", "post:" + item);
        System.out.printf("viral item: %d votes -> %d count-delta records (%.4f per vote), %d view store writes (%.5f per vote)%n",
                votes, deltas, deltas / (double) votes, storeWrites, storeWrites / (double) votes);
        assertThat(deltas).as("pre-aggregated: far fewer deltas than votes").isLessThan(votes / 10);
        assertThat(storeWrites).isLessThanOrEqualTo(deltas);
    }

    @Test
    void rankingsFollowSeed001AndAreServedAndWrittenAsAStaticFile() throws Exception {
        String type = "song" + run.replaceAll("[^a-z0-9]", "").substring(0, 4);
        // six items with 5..10 votes; item 5 has too few up-votes to be eligible
        int[][] upDown = {{9, 1}, {8, 0}, {6, 2}, {5, 0}, {5, 3}, {2, 4}};
        for (int i = 0; i < upDown.length; i++) {
            for (int u = 0; u < upDown[i][0] + upDown[i][1]; u++) {
                int value = u < upDown[i][0] ? 1 : -1;
                var r = client.vote("ranker" + u, "{\"item_type\":\"" + type + "\",\"item_id\":\"i" + i + "\",\"vote_value\":" + value + "}");
                assertThat(r.status()).isEqualTo(200);
            }
        }
        JsonNode ranking = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            ranking = client.get(null, "/v1/rankings/" + type + "/top").body();
            if (ranking.get("status").asText().equals("ready") && ranking.get("items").size() == 5) {
                break;
            }
            Thread.sleep(200);
        }
        assertThat(ranking.get("schemaVersion").asInt()).isEqualTo(1);
        assertThat(ranking.get("status").asText()).isEqualTo("ready");
        assertThat(ranking.get("items").findValuesAsText("item_id")).containsExactly("i0", "i1", "i2", "i3", "i4");
        assertThat(ranking.get("items").get(0).get("rank").asInt()).isEqualTo(1);
        Path file = dataDir.resolve("rankings").resolve(type).resolve("top.json");
        assertThat(Files.readString(file)).contains("\"status\":\"ready\"", "\"item_id\":\"i0\"");
        var empty = client.get(null, "/v1/rankings/nothing" + type + "/top").body();
        assertThat(empty.get("status").asText()).isEqualTo("insufficient-data");
        assertThat(empty.get("items").size()).isZero();
    }

    @Test
    void liveRankingsAnswerEverySortPagedThroughCursorsAndMoveWithAVote() throws Exception {
        String type = "clip" + run.replaceAll("[^a-z0-9]", "").substring(0, 4);
        // i0: 4 up; i1: 3 up 1 down; i2: 1 up 1 down; i3: 2 down
        int[][] upDown = {{4, 0}, {3, 1}, {1, 1}, {0, 2}};
        for (int i = 0; i < upDown.length; i++) {
            for (int u = 0; u < upDown[i][0] + upDown[i][1]; u++) {
                var r = client.vote("lister" + u, "{\"item_type\":\"" + type + "\",\"item_id\":\"i" + i
                        + "\",\"vote_value\":" + (u < upDown[i][0] ? 1 : -1) + "}");
                assertThat(r.status()).isEqualTo(200);
            }
        }
        String top = "/v1/rankings/" + type + "?sort=top&window=day";
        // the lists follow the event log a moment after the votes are answered: wait for the last vote to be in
        JsonNode page = awaitPage(top, p -> p.get("items").findValuesAsText("key").equals(List.of("4.0", "2.0", "0.0", "-2.0")));
        assertThat(page.get("items").findValuesAsText("item_id")).containsExactly("i0", "i1", "i2", "i3");
        assertThat(page.get("items").findValuesAsText("key")).containsExactly("4.0", "2.0", "0.0", "-2.0");
        assertThat(page.get("sort").asText()).isEqualTo("top");
        assertThat(page.get("window").asText()).isEqualTo("day");
        assertThat(page.get("policy").asText()).isEqualTo("trusted");
        assertThat(page.get("next_cursor").isNull()).isTrue();
        JsonNode first = page.get("items").get(0);
        assertThat(first.get("upvotes").asLong()).isEqualTo(4);
        assertThat(first.get("score").asLong()).isEqualTo(4);
        assertThat(first.get("rank").asInt()).isEqualTo(1);

        var firstPage = client.get(null, top + "&limit=3");
        assertThat(firstPage.header("Tally-Position")).matches("\\d+:\\d+(,\\d+:\\d+)*");
        String cursor = firstPage.body().get("next_cursor").asText();
        var second = client.get(null, top + "&limit=3&cursor=" + cursor).body();
        assertThat(second.get("items").findValuesAsText("item_id")).containsExactly("i3");
        assertThat(second.get("items").get(0).get("rank").asInt()).isEqualTo(4);

        assertThat(awaitItems("/v1/rankings/" + type + "?sort=controversial", 2).get("items").findValuesAsText("item_id"))
                .containsExactly("i2", "i1");
        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=rising").body().get("items").findValuesAsText("item_id"))
                .containsExactly("i0", "i1");
        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=best").body().get("items").findValuesAsText("item_id"))
                .containsExactly("i0", "i1", "i2", "i3");
        assertThat(client.get(null, "/v1/rankings/" + type).body().get("sort").asText()).isEqualTo("hot");
        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=new").body().get("items")).hasSize(4);

        // three more downvotes move i3's neighbour i2 below it in top
        for (int u = 0; u < 3; u++) {
            assertThat(client.vote("mover" + u, "{\"item_type\":\"" + type + "\",\"item_id\":\"i2\",\"vote_value\":-1}")
                    .status()).isEqualTo(200);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!client.get(null, top).body().get("items").findValuesAsText("item_id").equals(java.util.List.of("i0", "i1", "i3", "i2"))
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(client.get(null, top).body().get("items").findValuesAsText("item_id")).containsExactly("i0", "i1", "i3", "i2");

        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=hot&window=day").status()).isEqualTo(400);
        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=loud").body().get("detail").asText())
                .isEqualTo("sort must be one of hot, best, top, controversial, rising, new, got 'loud'");
        assertThat(client.get(null, "/v1/rankings/" + type + "?limit=101").status()).isEqualTo(400);
        assertThat(client.get(null, top + "&cursor=" + cursor.substring(1)).status()).isEqualTo(400);
        assertThat(client.get(null, "/v1/rankings/" + type + "?sort=top&window=week&cursor=" + cursor).status()).isEqualTo(400);
        assertThat(client.get(null, "/v1/rankings/" + type + "?policy=all").status()).isEqualTo(404);
        assertThat(client.get(null, "/v1/rankings/Bad").status()).isEqualTo(400);
    }

    private static JsonNode awaitItems(String path, int n) throws InterruptedException {
        return awaitPage(path, p -> p.get("items").size() >= n);
    }

    /** The page once it satisfies {@code until}, or as it is after 30 s (for the assertion to show). */
    private static JsonNode awaitPage(String path, java.util.function.Predicate<JsonNode> until) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = client.get(null, path).body();
            if (until.test(last)) {
                return last;
            }
            Thread.sleep(100);
        }
        return last;
    }

    private static JsonNode awaitUpvotes(String item, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = client.get(null, "/v1/votes/post/" + item).body();
            if (last.get("upvotes").asLong() >= expected) {
                return last;
            }
            Thread.sleep(200);
        }
        return last;
    }

    private static long recordsWithKey(String topic, String key) {
        long[] n = {0};
        TopicScan.readAll(node.runtime().kafka(), topic, new StringDeserializer(), new ByteArrayDeserializer(),
                r -> n[0] += key.equals(r.key()) ? 1 : 0);
        return n[0];
    }
}
