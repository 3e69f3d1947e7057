package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fraud verdicts end to end: a cluster of voters in one /24 is challenged within the flags'
 * propagation lag (measured here), a solved challenge passes; a burst of brand-new voters on one item is
 * held out of the public counts until an admin releases it, which counts it exactly once.
 */
class FraudIT {
    private static TallyNode node;
    private static TallyClient client;
    private final String run = UUID.randomUUID().toString().substring(0, 6);

    @BeforeAll
    static void start() throws InterruptedException {
        node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        client = new TallyClient(node.httpPort());
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private TallyClient.Reply vote(String user, String forwardedFor, String item, String challenge) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes"))
                .header("Content-Type", "application/json").header("X-Forwarded-For", forwardedFor)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"vote_value\":1}"));
        if (user != null) {
            b.header("X-Tally-User", user);
        }
        if (challenge != null) {
            b.header("X-Tally-Challenge", challenge);
        }
        return client.send(b);
    }

    @Test
    void aClusterInOneNetworkIsChallengedAndASolvedChallengePasses() throws InterruptedException {
        String subnet = "198.51." + (100 + (int) (Math.random() * 50)) + ".";
        for (int i = 1; i <= 11; i++) {
            assertThat(vote("cluster-" + run + "-" + i, subnet + i, "cl-" + run + "-" + i, null).status()).isEqualTo(200);
        }
        long flaggedAt = System.nanoTime();
        TallyClient.Reply refused = null;
        int i = 12;
        while (System.nanoTime() - flaggedAt < Duration.ofSeconds(20).toNanos()) {
            refused = vote("cluster-" + run + "-" + i, subnet + (i % 250 + 1), "cl-" + run + "-" + i, null);
            i++;
            if (refused.status() == 403) {
                break;
            }
            Thread.sleep(20);
        }
        long lagMs = (System.nanoTime() - flaggedAt) / 1_000_000;
        System.out.println("FraudIT: challenge enforced " + lagMs + " ms after the 11th voter (flag propagation lag)");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body().get("type").asText()).endsWith("/challenge-required");

        var failed = vote("cluster-" + run + "-x", subnet + "200", "cl-" + run + "-x", "wrong");
        assertThat(failed.body().get("type").asText()).endsWith("/challenge-failed");
        assertThat(vote("cluster-" + run + "-y", subnet + "201", "cl-" + run + "-y", "dev-pass").status()).isEqualTo(200);
    }

    @Test
    void aBurstOfNewVotersIsHeldUntilReleasedAndThenCountedOnce() throws Exception {
        String item = "burst-" + run;
        int accepted = 0;
        TallyClient.Reply last = null;
        // New anonymous voters (no history), each from its own network, until the burst flag has reached the
        // vote-processor and one of them is held: 31 in the 5-minute window raise the flag, and how many more
        // arrive before it takes effect depends on the flags' propagation lag, which a slow machine stretches.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (heldOn(item).isEmpty() && System.nanoTime() < deadline) {
            last = vote(null, "203." + (accepted / 250) + "." + (accepted % 250 + 1) + ".7", item, null);
            assertThat(last.status()).isEqualTo(200);
            accepted++;
            if (accepted >= 45) {
                Thread.sleep(50);
            }
        }
        System.out.println("FraudIT: the first held vote after " + accepted + " voters on one item");
        assertThat(heldOn(item)).as("a burst of new voters is held").isNotEmpty();
        String cookie = last.header("Set-Cookie").substring(0, last.header("Set-Cookie").indexOf(';'));
        var own = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes/post/" + item))
                .header("Cookie", cookie).GET());
        assertThat(own.body().get("user_vote").asInt()).as("a held voter sees their own vote").isEqualTo(1);
        JsonNode counts = awaitCounts(item, 0);
        long counted = counts.get("upvotes").asLong();
        assertThat(counted).as("some were held out of the public counts").isLessThan(accepted);

        List<String> held = heldOn(item);
        for (long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                held.size() < accepted - counted && System.nanoTime() < until; held = heldOn(item)) {
            Thread.sleep(100); // the review API's list follows the quarantine topic, a moment behind the counts
        }
        assertThat(held).hasSize((int) (accepted - counted));
        for (String id : held) {
            var released = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort()
                    + "/v1/admin/quarantine/" + id + "/release")).header("Authorization", "Bearer " + node.adminToken())
                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(released.status()).isEqualTo(202);
        }
        assertThat(awaitCounts(item, accepted).get("upvotes").asLong()).as("released votes count once").isEqualTo(accepted);
        Thread.sleep(500);
        assertThat(client.get(null, "/v1/votes/post/" + item).body().get("upvotes").asLong()).isEqualTo(accepted);
    }

    /** The command ids of the votes on {@code item} the review API lists as held. */
    private static List<String> heldOn(String item) {
        var list = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/admin/quarantine"))
                .header("Authorization", "Bearer " + node.adminToken()).GET());
        List<String> held = new ArrayList<>();
        list.body().get("held").forEach(h -> {
            if (h.get("item_id").asText().equals(item)) {
                held.add(h.get("command_id").asText());
            }
        });
        return held;
    }

    private static JsonNode awaitCounts(String item, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode last = null;
        long stable = 0;
        long previous = -1;
        while (System.nanoTime() < deadline) {
            last = client.get(null, "/v1/votes/post/" + item).body();
            long up = last.get("upvotes").asLong();
            stable = up == previous ? stable + 1 : 0;
            previous = up;
            if (up >= atLeast && stable >= 5) {
                return last;
            }
            Thread.sleep(100);
        }
        return last;
    }
}
