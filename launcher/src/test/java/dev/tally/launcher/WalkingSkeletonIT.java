package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.Env;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One vote goes HTTP → Kafka → Streams state store → count view → HTTP, on a real broker. */
class WalkingSkeletonIT {
    private final String item = "skeleton-" + UUID.randomUUID().toString().substring(0, 8);
    private Path dataDir;
    private TallyNode node;
    private TallyClient client;

    /** Every node of the test deployment shares the secret, so a voter hashes the same on each. */
    static Env env(Path dataDir) {
        return Env.of(Map.of(
                "TALLY_BOOTSTRAP", SharedBroker.get().bootstrap(),
                "TALLY_DATA_DIR", dataDir.toString(),
                "TALLY_SECRET", "integration-test-secret-0123456789abcdef",
                "TALLY_HTTP_PORT", "0",
                "TALLY_SYNC_TIMEOUT", "10s"));
    }

    static TallyNode startAll(Path dataDir) throws InterruptedException {
        return startAll(env(dataDir));
    }

    static TallyNode startAll(Env env) throws InterruptedException {
        TallyNode node = TallyNode.start(env, EnumSet.allOf(TallyNode.Service.class));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!node.ready() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(node.ready()).as("all Streams apps RUNNING within 60 s").isTrue();
        return node;
    }

    @BeforeEach
    void start() throws InterruptedException {
        dataDir = SharedBroker.dataDir("node");
        node = startAll(dataDir);
        client = new TallyClient(node.httpPort());
    }

    @AfterEach
    void stop() {
        node.close();
    }

    /**
     * The answer's promise (docs/api.md): its counts include this vote and the voter's own earlier votes on the item;
     * another voter's vote answered a moment before is in them once the view reflects it, as any read shows.
     */
    @Test
    void shouldAnswerAVoteWithCountsThatIncludeItAndTheVotersOwnEarlierVotes() throws InterruptedException {
        var accepted = client.vote("alice", item, 1, "toggle");

        assertThat(accepted.status()).isEqualTo(200);
        assertThat(accepted.body().get("outcome").asText()).isEqualTo("accepted");
        assertThat(accepted.body().get("user_vote").asInt()).isEqualTo(1);
        assertThat(accepted.body().at("/counts/upvotes").asLong()).isEqualTo(1);
        assertThat(accepted.body().at("/counts/score").asLong()).isEqualTo(1);

        var down = client.vote("bob", item, -1, "toggle");
        assertThat(down.body().at("/counts/downvotes").asLong()).as("bob's own vote").isEqualTo(1);
        assertThat(down.body().at("/counts/upvotes").asLong()).as("alice's, once the view has it").isBetween(0L, 1L);
        awaitRead("bob", body -> body.get("upvotes").asLong() == 1 && body.get("downvotes").asLong() == 1);

        var toggledOff = client.vote("alice", item, 1, "toggle");
        assertThat(toggledOff.body().get("outcome").asText()).isEqualTo("retracted");
        assertThat(toggledOff.body().at("/counts/upvotes").asLong()).as("alice's own retraction").isZero();
        assertThat(toggledOff.body().at("/counts/downvotes").asLong()).as("bob's, read before").isEqualTo(1);
    }

    @Test
    void shouldServeCountsAndTheCallersOwnVoteOnRead() throws InterruptedException {
        client.vote("carol", item, -1, "set");

        var read = awaitRead("carol", body -> body.get("downvotes").asLong() == 1);
        assertThat(read.body().get("user_vote").asInt()).isEqualTo(-1);
        assertThat(read.header("ETag")).isNotBlank();
        assertThat(read.header("Tally-Position")).isNotBlank();
        var anonymous = client.get(null, "/v1/votes/post/" + item);
        assertThat(anonymous.body().get("user_vote").asInt()).isZero();
        var never = client.get(null, "/v1/votes/post/never-voted-" + item);
        assertThat(never.status()).isEqualTo(200);
        assertThat(never.body().get("upvotes").asLong()).isZero();
    }

    @Test
    void shouldKeepCountsAndVoterStateAcrossAFullRestart() throws InterruptedException {
        client.vote("dave", item, 1, "toggle");
        client.vote("erin", item, 1, "toggle");

        node.close();
        node = startAll(dataDir);
        client = new TallyClient(node.httpPort());

        var read = awaitRead("dave", body -> body.get("upvotes").asLong() == 2);
        assertThat(read.body().get("user_vote").asInt()).isEqualTo(1);
        var again = client.vote("dave", item, 1, "toggle");
        assertThat(again.body().get("outcome").asText()).as("state survived: toggling again retracts").isEqualTo("retracted");
        assertThat(again.body().at("/counts/upvotes").asLong()).isEqualTo(1);
    }

    @Test
    void shouldRefuseInvalidVotesWithProblemDetailsAndCountNothing() throws InterruptedException {
        var bad = client.vote("frank", "{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"vote_value\":2}");

        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).startsWith("application/problem+json");
        assertThat(bad.body().get("detail").asText()).contains("vote_value");
        client.vote("frank", item, 1, "set");
        var read = awaitRead("frank", body -> body.get("upvotes").asLong() == 1);
        assertThat(read.body().get("upvotes").asLong()).isEqualTo(1);
    }

    private TallyClient.Reply awaitRead(String user, java.util.function.Predicate<com.fasterxml.jackson.databind.JsonNode> until)
            throws InterruptedException {
        return client.awaitItem(user, item, until, Duration.ofSeconds(20));
    }
}
