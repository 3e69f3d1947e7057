package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.common.TopicScan;
import dev.tally.schema.ItemState;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Topics;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The vote rules end to end on a real broker: concurrency, idempotency, registry, catalogue, the event log. */
class VoteSemanticsIT {
    private static TallyNode node;
    private static TallyClient client;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws InterruptedException {
        node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        client = new TallyClient(node.httpPort());
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private String item(String name) {
        return name + "-" + run;
    }

    @Test
    void twentyConcurrentIdenticalSetVotesFromOneVoterCountOnce() throws Exception {
        String item = item("concurrent");
        ExecutorService pool = Executors.newFixedThreadPool(20);
        List<Callable<TallyClient.Reply>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(() -> client.vote("greta", item, 1, "set"));
        }
        List<String> outcomes = new ArrayList<>();
        for (Future<TallyClient.Reply> f : pool.invokeAll(calls)) {
            TallyClient.Reply r = f.get();
            assertThat(r.status()).isEqualTo(200);
            outcomes.add(r.body().get("outcome").asText());
            assertThat(r.body().at("/counts/upvotes").asLong()).isEqualTo(1);
        }
        pool.shutdown();

        assertThat(outcomes).containsOnlyOnce("accepted").filteredOn("unchanged"::equals).hasSize(19);
        assertThat(awaitItem(item, b -> true).get("upvotes").asLong()).isEqualTo(1);
    }

    @Test
    void aRetriedToggleWithItsIdempotencyKeyAppliesOnce() {
        String item = item("retry");
        String body = "{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"vote_value\":1}";

        var first = client.send(post("hana", body).header("Idempotency-Key", "click-1"));
        var retry = client.send(post("hana", body.replace(",", " , ")).header("Idempotency-Key", "click-1"));
        var conflict = client.send(post("hana", body.replace("\"vote_value\":1", "\"vote_value\":-1"))
                .header("Idempotency-Key", "click-1"));

        assertThat(first.body().get("outcome").asText()).isEqualTo("accepted");
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.body().get("outcome").asText()).as("the first answer, not a second toggle").isEqualTo("accepted");
        assertThat(retry.body().at("/counts/upvotes").asLong()).isEqualTo(1);
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.body().get("type").asText()).endsWith("/idempotency-conflict");
        assertThat(client.get("hana", "/v1/votes/post/" + item).body().get("user_vote").asInt()).isEqualTo(1);
    }

    @Test
    void theAdminAddsAndRetiresAReactionAndHistoryKeepsItsCount() throws InterruptedException {
        String item = item("party");
        String code = "party" + run.replaceAll("[^a-z]", "x").substring(0, 4);
        var unauthorized = client.send(admin("PUT", code, "{\"label\":\"Party\"}", "wrong-token"));
        assertThat(unauthorized.status()).isEqualTo(401);

        var added = client.send(admin("PUT", code, "{\"label\":\"Party\",\"icon_url\":\"/icons/party.svg\"}", node.adminToken()));
        assertThat(added.status()).isEqualTo(200);
        assertThat(client.get(null, "/v1/reactions").body().findValuesAsText("code")).contains(code, "like", "angry");
        var reacted = client.vote("ivan", "{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"reaction\":\"" + code + "\"}");
        assertThat(reacted.status()).isEqualTo(200);
        assertThat(reacted.body().at("/counts/reactions/" + code).asLong()).isEqualTo(1);

        assertThat(client.send(admin("DELETE", code, null, node.adminToken())).status()).isEqualTo(200);
        var refused = client.vote("judy", "{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"reaction\":\"" + code + "\"}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().get("type").asText()).endsWith("/retired-reaction");
        assertThat(client.get(null, "/v1/reactions").body().findValuesAsText("code")).doesNotContain(code);
        assertThat(awaitItem(item, b -> b.at("/reactions/" + code).asLong() == 1).at("/reactions/" + code).asLong())
                .as("history keeps its counts").isEqualTo(1);
    }

    @Test
    void votesOnDeletedOrLockedItemsAreRefused() throws Exception {
        String locked = item("locked");
        String deleted = item("deleted");
        try (var producer = new KafkaProducer<>(node.runtime().kafka().producerProps("it-catalog", Duration.ofSeconds(10)),
                Topics.ITEM_CATALOG.keySerde().serializer(), Topics.ITEM_CATALOG.valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(Topics.ITEM_CATALOG.name(), "post:" + locked,
                    new ItemStatus("post", locked, ItemState.LOCKED, Instant.now()))).get();
            producer.send(new ProducerRecord<>(Topics.ITEM_CATALOG.name(), "post:" + deleted,
                    new ItemStatus("post", deleted, ItemState.DELETED, Instant.now()))).get();
        }

        // the catalogue reaches the API and the processor asynchronously: a new voter per attempt until it has
        var attempt = new java.util.concurrent.atomic.AtomicInteger();
        var refusedLocked = awaitStatus(() -> client.vote("kim" + attempt.incrementAndGet(), locked, 1, "set"), 409);
        assertThat(refusedLocked.body().get("type").asText()).endsWith("/item-locked");
        assertThat(client.vote("kim-after", locked, 1, "set").status()).as("stays refused").isEqualTo(409);
        long acceptedBeforeLock = attempt.get() - 1;
        assertThat(awaitItem(locked, b -> b.get("upvotes").asLong() == acceptedBeforeLock).get("upvotes").asLong())
                .as("only attempts before the lock arrived count").isEqualTo(acceptedBeforeLock);
        var refusedDeleted = awaitStatus(() -> client.vote("kim" + attempt.incrementAndGet(), deleted, 1, "set"), 404);
        assertThat(refusedDeleted.body().get("type").asText()).endsWith("/item-not-found");
        var wrongCatalogue = client.vote("kim", "{\"item_type\":\"post\",\"item_id\":\"" + item("x") + "\",\"vote_value\":1,\"catalog_version\":2}");
        assertThat(wrongCatalogue.status()).isEqualTo(409);
        assertThat(wrongCatalogue.body().get("type").asText()).endsWith("/catalog-version");
    }

    @Test
    void replayingTheEventLogFromTheStartRecomputesTheLiveCounts() throws Exception {
        List<String> items = List.of(item("log-a"), item("log-b"), item("log-c"));
        var random = new java.util.Random(7);
        for (int i = 0; i < 60; i++) {
            String it = items.get(random.nextInt(items.size()));
            String voter = "voter" + random.nextInt(6);
            if (random.nextBoolean()) {
                client.vote(voter, it, random.nextInt(3) - 1, random.nextBoolean() ? "toggle" : "set");
            } else {
                client.vote(voter, "{\"item_type\":\"post\",\"item_id\":\"" + it + "\",\"reaction\":\""
                        + List.of("like", "wow", "sad").get(random.nextInt(3)) + "\"}");
            }
        }

        Map<String, Map<String, Long>> replayed = replayEvents(items);
        for (String it : items) {
            Map<String, Long> expected = replayed.getOrDefault(it, Map.of());
            JsonNode live = awaitItem(it, b -> b.get("upvotes").asLong() == expected.getOrDefault("up", 0L)
                    && b.get("downvotes").asLong() == expected.getOrDefault("down", 0L));
            assertThat(live.get("upvotes").asLong()).as(it).isEqualTo(expected.getOrDefault("up", 0L));
            assertThat(live.get("downvotes").asLong()).as(it).isEqualTo(expected.getOrDefault("down", 0L));
            expected.forEach((k, v) -> {
                if (k.startsWith("r:")) {
                    assertThat(live.at("/reactions/" + k.substring(2)).asLong()).as(it + " " + k).isEqualTo(v);
                }
            });
        }
    }

    /** Folds every event of the given items, before → after, read committed from the start of the log. */
    private static Map<String, Map<String, Long>> replayEvents(List<String> items) {
        Map<String, Map<String, Long>> counts = new HashMap<>();
        TopicScan.readAll(node.runtime().kafka(), Topics.VOTE_EVENTS, r -> {
            VoteEvent e = r.value();
            if (!items.contains(e.getItemId())) {
                return;
            }
            Map<String, Long> c = counts.computeIfAbsent(e.getItemId(), k -> new HashMap<>());
            c.merge("up", (long) ((e.getAfter().getVote() == 1 ? 1 : 0) - (e.getBefore().getVote() == 1 ? 1 : 0)), Long::sum);
            c.merge("down", (long) ((e.getAfter().getVote() == -1 ? 1 : 0) - (e.getBefore().getVote() == -1 ? 1 : 0)), Long::sum);
            if (e.getBefore().getReaction() != null) {
                c.merge("r:" + e.getBefore().getReaction(), -1L, Long::sum);
            }
            if (e.getAfter().getReaction() != null) {
                c.merge("r:" + e.getAfter().getReaction(), 1L, Long::sum);
            }
        });
        return counts;
    }

    private static HttpRequest.Builder post(String user, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes"))
                .header("Content-Type", "application/json").header("X-Tally-User", user)
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private static HttpRequest.Builder admin(String method, String code, String body, String token) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/admin/reactions/" + code))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    }

    private static JsonNode awaitItem(String item, Predicate<JsonNode> until) throws InterruptedException {
        return client.awaitItem(null, item, until, Duration.ofSeconds(20)).body();
    }

    private static TallyClient.Reply awaitStatus(Callable<TallyClient.Reply> call, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        TallyClient.Reply last;
        do {
            last = call.call();
            if (last.status() == status) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return last;
    }
}
