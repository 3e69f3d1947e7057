package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.launcher.WebhooksIT.Delivery;
import dev.tally.launcher.WebhooksIT.Receiver;
import dev.tally.launcher.bench.ChildNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node SIGKILLed while it sends webhooks (its receiver slow, so requests are in flight, and votes still coming),
 * then started again on its data: every item changed before or after the kill arrives at the receiver with its final
 * counts, and no item is acknowledged an older {@code seq} after a newer one.
 */
class WebhookCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ITEMS = 20;
    private static final String TOKEN = "webhook-crash-admin-token-0123456789";

    @Test
    void aNodeKilledMidDeliverySendsEveryChangedItemsFinalCountsAfterItsRestart(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        Map<String, String> env = new HashMap<>(BenchCommand.benchEnv(dir, null));
        env.put("TALLY_ADMIN_TOKEN", TOKEN);
        HttpClient http = HttpClient.newHttpClient();
        try (ChildNode node = new ChildNode(dir, env); Receiver receiver = new Receiver()) {
            receiver.delayMillis = 1000; // deliveries stay in flight
            node.start();
            assertThat(node.awaitReady()).as("ready (log %s)", node.log(0)).isPositive();
            var created = send(http, HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v1/admin/webhooks"))
                    .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"url\":\"" + receiver.url()
                            + "\",\"item_types\":[\"post\"],\"coalesce_ms\":100}")));
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

            int voter = 0;
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < ITEMS; i++) {
                    vote(http, node, "v" + voter++, i);
                }
            }
            Thread.sleep(300); // some delivered, some in flight, some waiting
            int inFlight = receiver.inProgress.get();
            node.kill();
            int before = receiver.all().size();
            node.start();
            assertThat(node.awaitReady()).as("ready again (log %s)", node.log(1)).isPositive();
            for (int i = 0; i < ITEMS; i += 2) {
                vote(http, node, "v" + voter++, i); // items that change after the restart too
            }

            Map<String, Long> expected = new HashMap<>();
            for (int i = 0; i < ITEMS; i++) {
                JsonNode counts = JSON.readTree(send(http, HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v1/votes/post/c" + i))
                        .GET()).body());
                expected.put("post:c" + i, counts.get("upvotes").asLong());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            Map<String, Delivery> latest = receiver.latestByItem();
            while (System.nanoTime() < deadline && !expected.entrySet().stream()
                    .allMatch(e -> latest.containsKey(e.getKey()) && latest.get(e.getKey()).upvotes() == e.getValue())) {
                Thread.sleep(200);
                latest.clear();
                latest.putAll(receiver.latestByItem());
            }
            System.out.printf("WebhookCrashIT: %d deliveries before the kill (%d of them in flight), %d in all%n", before, inFlight,
                    receiver.all().size());
            for (var e : expected.entrySet()) {
                assertThat(latest.get(e.getKey())).as("%s delivered", e.getKey()).isNotNull();
                assertThat(latest.get(e.getKey()).upvotes()).as("%s: its final counts", e.getKey()).isEqualTo(e.getValue());
            }
            Map<String, Long> acknowledged = new HashMap<>();
            for (Delivery d : receiver.all()) {
                Long newest = acknowledged.get(d.item());
                assertThat(newest == null || d.seq() >= newest).as("%s: seq %d after %d was acknowledged", d.item(), d.seq(), newest)
                        .isTrue();
                acknowledged.merge(d.item(), d.seq(), Math::max);
            }
            assertThat(inFlight).as("requests the receiver was answering when the node was killed").isPositive();
        }
    }

    private static void vote(HttpClient http, ChildNode node, String voter, int item) throws Exception {
        var r = send(http, HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v1/votes")).header("Content-Type", "application/json")
                .header("X-Tally-User", voter)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"c" + item + "\",\"vote_value\":1}")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
