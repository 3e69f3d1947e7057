package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import dev.tally.common.Env;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Webhooks from a real node to real receivers (Jetty, in this JVM): every delivery's signature verified with the
 * Standard Webhooks library and by hand, {@code seq} growing per item, a burst coalesced, a receiver down and back
 * (retried, then sent the newest counts), {@code 410} disabling, a rotation signing with both secrets, a redeliver, a
 * snapshot start, and every refusal of the admin API.
 */
class WebhooksIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static TallyNode node;
    private static TallyClient client;
    private static String token;

    @BeforeAll
    static void start() throws Exception {
        Env env = WalkingSkeletonIT.env(SharedBroker.dataDir("hooks")).with("TALLY_NAMESPACE", "hooks")
                .with("TALLY_BURST_FLOOR", "1000000").with("TALLY_CLUSTER_VOTERS", "1000000");
        node = WalkingSkeletonIT.startAll(env);
        client = new TallyClient(node.httpPort());
        token = node.adminToken();
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    @Test
    void aBurstOnOneItemIsCoalescedEverySignatureVerifiesAndSeqOnlyGrows() throws Exception {
        try (Receiver receiver = new Receiver()) {
            JsonNode sub = create("{\"url\":\"" + receiver.url() + "\",\"item_types\":[\"song\"],\"coalesce_ms\":1000}");
            String secret = sub.get("secret").asText();
            long t0 = System.nanoTime();
            int votes = 200;
            for (int i = 0; i < votes; i++) {
                vote("burst" + i, "song", "s1", 1);
            }
            vote("other", "post", "not-subscribed", 1);
            double seconds = (System.nanoTime() - t0) / 1e9;
            List<Delivery> s1 = receiver.await(d -> d.item().equals("song:s1") && d.upvotes() == votes, Duration.ofSeconds(20));
            assertThat(s1).as("the final counts of the burst arrive").isNotEmpty();
            Thread.sleep(1500); // anything still on its way
            List<Delivery> all = receiver.all();
            List<Delivery> burst = all.stream().filter(d -> d.item().equals("song:s1")).toList();
            assertThat(burst.size()).as("%d votes over %.1f s with coalesce_ms 1000", votes, seconds)
                    .isLessThanOrEqualTo((int) Math.ceil(seconds) + 2);
            assertThat(all).as("only the subscribed type").allMatch(d -> d.item().startsWith("song:"));
            assertThat(burst.get(burst.size() - 1).upvotes()).isEqualTo(votes);
            assertSeqGrows(burst);
            for (Delivery d : all) {
                verify(d, secret);
                assertThat(d.body().get("type").asText()).isEqualTo("item.counts");
                assertThat(d.body().get("counts").get("score").asLong()).isEqualTo(d.upvotes() - d.body().get("counts").get("downvotes").asLong());
                assertThat(d.body().get("position").asText()).matches("\\d+:\\d+(,\\d+:\\d+)*");
                assertThat(d.header("webhook-id")).matches("msg_[A-Za-z0-9_-]{22}");
                assertThat(d.header("content-type")).startsWith("application/json");
            }
            delete(sub);
        }
    }

    @Test
    void aReceiverDownAndBackIsRetriedThenSentTheNewestCountsAndNeverAnOlderOne() throws Exception {
        try (Receiver receiver = new Receiver()) {
            JsonNode sub = create("{\"url\":\"" + receiver.url() + "\",\"items\":[\"song:down1\"],\"coalesce_ms\":100}");
            receiver.stopServing();
            vote("d0", "song", "down1", 1);
            JsonNode failing = awaitSub(sub, s -> s.get("status").asText().equals("failing")
                    && s.get("lag").get("pending_items").asInt() == 1, Duration.ofSeconds(15));
            assertThat(failing.get("status").asText()).isEqualTo("failing");
            assertThat(failing.get("last_attempt").get("error").asText().toLowerCase()).contains("refused");
            assertThat(failing.get("last_attempt").get("next_attempt_at").isNull()).isFalse();
            assertThat(failing.get("lag").get("pending_items").asInt()).isEqualTo(1);
            for (int i = 1; i <= 4; i++) {
                vote("d" + i, "song", "down1", 1);
            }
            receiver.serveAgain(200); // before the first retry, about 5 s after the failure
            List<Delivery> got = receiver.await(d -> d.upvotes() == 5, Duration.ofSeconds(20));
            assertThat(got).as("the newest counts arrive on the retry").isNotEmpty();
            Thread.sleep(500);
            assertThat(receiver.all()).as("only the newest counts, once").hasSize(1);
            JsonNode deliveries = awaitDeliveries(sub, 2);
            assertThat(deliveries.get(0).get("http_status").asInt()).isEqualTo(200);
            assertThat(deliveries.get(0).get("attempt").asInt()).as("a retry").isEqualTo(2);
            assertThat(deliveries.get(1).get("error").asText().toLowerCase()).contains("refused");
            assertThat(retryWait(deliveries.get(1))).as("the first retry, 5 s ± 20 %").isBetween(4_000L, 6_000L);
            JsonNode healthy = awaitSub(sub, s -> s.get("status").asText().equals("active"), Duration.ofSeconds(10));
            assertThat(healthy.get("failing_since").isNull()).isTrue();
            delete(sub);
        }
    }

    @Test
    void aReceiversRetryAfterIsHonoured() throws Exception {
        try (Receiver receiver = new Receiver()) {
            JsonNode sub = create("{\"url\":\"" + receiver.url() + "\",\"items\":[\"song:later1\"],\"coalesce_ms\":0}");
            receiver.status.set(503);
            receiver.retryAfter = "1";
            vote("l0", "song", "later1", 1);
            receiver.await(d -> d.status() == 503, Duration.ofSeconds(10));
            receiver.status.set(200);
            assertThat(receiver.await(d -> d.status() == 200, Duration.ofSeconds(4))).as("retried after 1 s, not 5").isNotEmpty();
            JsonNode failed = awaitDeliveries(sub, 2).get(1);
            assertThat(failed.get("http_status").asInt()).isEqualTo(503);
            assertThat(retryWait(failed)).isBetween(900L, 1_500L);
            delete(sub);
        }
    }

    @Test
    void goneDisablesTheSubscriptionUntilItIsSetActiveAgain() throws Exception {
        try (Receiver receiver = new Receiver()) {
            JsonNode sub = create("{\"url\":\"" + receiver.url() + "\",\"items\":[\"song:gone1\"],\"coalesce_ms\":0}");
            receiver.status.set(410);
            vote("g0", "song", "gone1", 1);
            JsonNode disabled = awaitSub(sub, s -> s.get("status").asText().equals("disabled"), Duration.ofSeconds(15));
            assertThat(disabled.get("status").asText()).isEqualTo("disabled");
            assertThat(disabled.get("disabled_reason").asText()).contains("410");
            int seen = receiver.all().size();
            receiver.status.set(200);
            vote("g1", "song", "gone1", 1);
            Thread.sleep(2_000);
            assertThat(receiver.all()).as("nothing is sent while disabled").hasSize(seen);
            assertThat(admin("PATCH", "/v1/admin/webhooks/" + id(sub), "{\"status\":\"active\"}").status()).isEqualTo(200);
            assertThat(receiver.await(d -> d.upvotes() == 2 && d.status() == 200, Duration.ofSeconds(15)))
                    .as("set active again, it carries on from where it stopped").isNotEmpty();
            delete(sub);
        }
    }

    @Test
    void afterARotationBothSecretsVerifyAndRedeliverAndSnapshotSendTheCurrentCounts() throws Exception {
        for (int i = 0; i < 3; i++) {
            vote("snap" + i, "album", "a" + i, 1);
        }
        vote("snapx", "album", "a0", 1);
        Thread.sleep(1_500); // the counts are in tally.item-counts
        try (Receiver receiver = new Receiver()) {
            JsonNode sub = create("{\"url\":\"" + receiver.url() + "\",\"item_types\":[\"album\"],\"coalesce_ms\":100,\"start\":\"snapshot\"}");
            String first = sub.get("secret").asText();
            // each item is its own delivery, several in flight at once: they arrive in any order
            receiver.await(d -> d.item().equals("album:a1"), Duration.ofSeconds(20));
            receiver.await(d -> d.item().equals("album:a2"), Duration.ofSeconds(20));
            receiver.await(d -> d.item().equals("album:a0") && d.upvotes() == 2, Duration.ofSeconds(20));
            assertThat(receiver.latestByItem().keySet()).as("the snapshot: every album item").contains("album:a0", "album:a1", "album:a2");
            assertThat(receiver.latestByItem().get("album:a0").upvotes()).isEqualTo(2);
            receiver.all().forEach(d -> verify(d, first));

            JsonNode rotated = admin("POST", "/v1/admin/webhooks/" + id(sub) + "/rotate-secret", null).body();
            String second = rotated.get("secret").asText();
            assertThat(second).isNotEqualTo(first).startsWith("whsec_");
            assertThat(rotated.get("previous_secret_valid_until").isNull()).isFalse();
            int before = receiver.all().size();
            Thread.sleep(1_000); // the senders take up the new secret within a second (api.md)
            vote("snapy", "album", "a1", 1);
            List<Delivery> after = receiver.await(d -> d.item().equals("album:a1") && d.upvotes() == 2, Duration.ofSeconds(15));
            Delivery signedTwice = after.get(0);
            assertThat(signedTwice.header("webhook-signature").split(" ")).hasSize(2);
            verify(signedTwice, first);
            verify(signedTwice, second);

            Instant since = Instant.now().minus(Duration.ofMinutes(10));
            var asked = admin("POST", "/v1/admin/webhooks/" + id(sub) + "/redeliver", "{\"since\":\"" + since + "\"}");
            assertThat(asked.status()).isEqualTo(202);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && receiver.all().size() < before + 1 + 3) {
                Thread.sleep(100);
            }
            List<Delivery> again = receiver.all().subList(before + 1, receiver.all().size());
            assertThat(again).extracting(Delivery::item).as("redelivered: every album item changed since")
                    .contains("album:a0", "album:a1", "album:a2");
            assertThat(again.stream().filter(d -> d.item().equals("album:a1")).findFirst().orElseThrow().upvotes())
                    .as("with its current counts").isEqualTo(2);
            delete(sub);
        }
    }

    @Test
    void theAdminApiRefusesBadInputWithSpecificProblems() throws Exception {
        assertThat(client.send(HttpRequest.newBuilder(URI.create(base() + "/v1/admin/webhooks")).GET()).status()).isEqualTo(401);
        Map<String, String> refusals = new HashMap<>();
        refusals.put("{}", "'url' is required");
        refusals.put("{\"url\":\"ftp://example.com/x\"}", "must be https");
        refusals.put("{\"url\":\"http://example.com/x\"}", "must be https");
        refusals.put("{\"url\":\"https://10.1.2.3/x\"}", "10.0.0.0/8");
        refusals.put("{\"url\":\"https://169.254.169.254/latest\"}", "169.254.0.0/16");
        refusals.put("{\"url\":\"https://[::ffff:10.9.8.7]/x\"}", "10.0.0.0/8");
        refusals.put("{\"url\":\"https://[fd00::1]/x\"}", "fc00::/7");
        refusals.put("{\"url\":\"https://user:pw@example.com/x\"}", "user information");
        refusals.put("{\"url\":\"https://example.com/x\",\"coalesce_ms\":60001}", "'coalesce_ms' must be an integer from 0 to 60000");
        refusals.put("{\"url\":\"https://example.com/x\",\"coalesce_ms\":1.5}", "'coalesce_ms' must be an integer");
        refusals.put("{\"url\":\"https://example.com/x\",\"start\":\"yesterday\"}", "'start' must be");
        refusals.put("{\"url\":\"https://example.com/x\",\"item_types\":[\"Bad Type\"]}", "'item_types': each entry");
        refusals.put("{\"url\":\"https://example.com/x\",\"items\":[\"noid\"]}", "'items': each entry must be an item as type:id");
        refusals.put("{\"url\":\"https://example.com/x\",\"secret\":\"mine\"}", "unknown field 'secret'");
        for (var r : refusals.entrySet()) {
            var reply = admin("POST", "/v1/admin/webhooks", r.getKey());
            assertThat(reply.status()).as(r.getKey()).isEqualTo(400);
            assertThat(reply.body().get("detail").asText()).as(r.getKey()).contains(r.getValue());
        }
        assertThat(admin("GET", "/v1/admin/webhooks/wh_nope", null).status()).isEqualTo(404);
        assertThat(admin("GET", "/v1/admin/webhooks/wh_nope", null).body().get("type").asText()).endsWith("/unknown-webhook");
        JsonNode sub = create("{\"url\":\"https://example.com/hook\"}");
        assertThat(admin("PATCH", "/v1/admin/webhooks/" + id(sub), "{\"status\":\"disabled\"}").status()).isEqualTo(400);
        assertThat(admin("POST", "/v1/admin/webhooks/" + id(sub) + "/redeliver", "{\"since\":\"last week\"}").status()).isEqualTo(400);
        assertThat(admin("POST", "/v1/admin/webhooks/" + id(sub) + "/redeliver", "{\"since\":\"2999-01-01T00:00:00Z\"}").status()).isEqualTo(400);
        assertThat(admin("GET", "/v1/admin/webhooks/" + id(sub) + "/deliveries?limit=0", null).status()).isEqualTo(400);
        assertThat(admin("GET", "/v1/admin/webhooks/" + id(sub), null).body().has("secret")).as("the secret is shown once").isFalse();
        var listed = admin("GET", "/v1/admin/webhooks", null).body().get("webhooks");
        assertThat(listed.findValuesAsText("id")).contains(id(sub));
        assertThat(admin("DELETE", "/v1/admin/webhooks/" + id(sub), null).status()).isEqualTo(204);
        assertThat(admin("GET", "/v1/admin/webhooks/" + id(sub), null).status()).isEqualTo(404);
    }

    @Test
    void theCliDrivesTheSameRoutes() throws Exception {
        String[] node = {"--url", base(), "--admin-token", token};
        CliRun.Output created = cli("create", "https://hooks.example.com/tally", "--item-type", "post", "--coalesce-ms", "250",
                node[0], node[1], node[2], node[3]);
        assertThat(created.exit()).as(created.err()).isZero();
        JsonNode sub = JSON.readTree(created.text());
        assertThat(sub.get("secret").asText()).startsWith("whsec_");
        assertThat(sub.get("coalesce_ms").asInt()).isEqualTo(250);
        assertThat(cli("list", node[0], node[1], node[2], node[3]).text()).contains(id(sub));
        assertThat(JSON.readTree(cli("pause", id(sub), node[0], node[1], node[2], node[3]).text()).get("status").asText()).isEqualTo("paused");
        CliRun.Output refused = cli("redeliver", id(sub), "--since", "2026-01-01T00:00:00Z", node[0], node[1], node[2], node[3]);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("409").contains("paused");
        assertThat(JSON.readTree(cli("resume", id(sub), node[0], node[1], node[2], node[3]).text()).get("status").asText()).isEqualTo("active");
        assertThat(JSON.readTree(cli("rotate-secret", id(sub), node[0], node[1], node[2], node[3]).text()).get("secret").asText())
                .isNotEqualTo(sub.get("secret").asText());
        assertThat(cli("deliveries", id(sub), "--limit", "5", node[0], node[1], node[2], node[3]).exit()).isZero();
        assertThat(cli("delete", id(sub), node[0], node[1], node[2], node[3]).text()).contains("deleted " + id(sub));
        CliRun.Output gone = cli("show", id(sub), node[0], node[1], node[2], node[3]);
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.err()).contains("404");
    }

    private static CliRun.Output cli(String... args) {
        return CliRun.run(new WebhooksCommand(), args);
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private static void assertSeqGrows(List<Delivery> deliveries) {
        long last = -1;
        for (Delivery d : deliveries) {
            assertThat(d.seq()).as("seq of %s after %d", d.item(), last).isGreaterThan(last);
            last = d.seq();
        }
    }

    /** The signature checked by the Standard Webhooks library, and recomputed here from the secret's bytes. */
    private static void verify(Delivery d, String secret) {
        try {
            Map<String, List<String>> headers = Map.of("webhook-id", List.of(d.header("webhook-id")),
                    "webhook-timestamp", List.of(d.header("webhook-timestamp")),
                    "webhook-signature", List.of(d.header("webhook-signature")));
            new Webhook(secret).verify(d.raw(), headers);
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
            String expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal((d.header("webhook-id") + "."
                    + d.header("webhook-timestamp") + "." + d.raw()).getBytes(StandardCharsets.UTF_8)));
            assertThat(List.of(d.header("webhook-signature").split(" "))).contains(expected);
        } catch (Exception e) {
            throw new AssertionError("signature of " + d + " does not verify: " + e, e);
        }
    }

    private static void vote(String user, String type, String id, int value) {
        var r = client.vote("hook-" + user, "{\"item_type\":\"" + type + "\",\"item_id\":\"" + id + "\",\"vote_value\":" + value + "}");
        assertThat(r.status()).as(r.raw().body()).isEqualTo(200);
    }

    private static JsonNode create(String json) {
        var r = admin("POST", "/v1/admin/webhooks", json);
        assertThat(r.status()).as(r.raw().body()).isEqualTo(201);
        return r.body();
    }

    private static void delete(JsonNode sub) {
        assertThat(admin("DELETE", "/v1/admin/webhooks/" + id(sub), null).status()).isEqualTo(204);
    }

    private static String id(JsonNode sub) {
        return sub.get("id").asText();
    }

    private static JsonNode awaitSub(JsonNode sub, Predicate<JsonNode> until, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode last;
        do {
            last = admin("GET", "/v1/admin/webhooks/" + id(sub), null).body();
            if (until.test(last)) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return last;
    }

    /** How long a failed attempt waits for its retry, in milliseconds. */
    private static long retryWait(JsonNode attempt) {
        return Duration.between(Instant.parse(attempt.get("attempted_at").asText()),
                Instant.parse(attempt.get("next_attempt_at").asText())).toMillis();
    }

    /** The latest delivery attempts, newest first, once at least {@code n} are in the log. */
    private static JsonNode awaitDeliveries(JsonNode sub, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        JsonNode last;
        do {
            last = admin("GET", "/v1/admin/webhooks/" + id(sub) + "/deliveries?limit=10", null).body().get("deliveries");
            if (last.size() >= n) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return last;
    }

    private static String base() {
        return "http://127.0.0.1:" + node.httpPort();
    }

    private static TallyClient.Reply admin(String method, String path, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).header("Authorization", "Bearer " + token);
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return client.send(b);
    }

    /** One POST the receiver got, with the status it answered. */
    record Delivery(Map<String, String> headers, String raw, JsonNode body, int status) {
        String header(String name) {
            return headers.get(name.toLowerCase());
        }

        String item() {
            return body.get("item_type").asText() + ":" + body.get("item_id").asText();
        }

        long seq() {
            return body.get("seq").asLong();
        }

        long upvotes() {
            return body.get("counts").get("upvotes").asLong();
        }
    }

    /** A webhook receiver: Jetty on a port of its own, answering {@link #status}, keeping every request. */
    static final class Receiver implements AutoCloseable {
        final AtomicInteger status = new AtomicInteger(200);
        volatile String retryAfter;
        volatile int delayMillis;
        final AtomicInteger inProgress = new AtomicInteger();
        private final List<Delivery> got = new CopyOnWriteArrayList<>();
        private final int port;
        private Javalin server;

        Receiver() {
            server = start(0);
            port = server.port();
        }

        private Javalin start(int on) {
            return Javalin.create(cfg -> {
                cfg.startup.showJavalinBanner = false;
                cfg.jetty.host = "127.0.0.1";
                cfg.jetty.port = on;
                cfg.routes.post("/hook", ctx -> {
                    Map<String, String> headers = new HashMap<>();
                    ctx.headerMap().forEach((k, v) -> headers.put(k.toLowerCase(), v));
                    String raw = ctx.body();
                    int answer = status.get();
                    if (delayMillis > 0) {
                        inProgress.incrementAndGet();
                        try {
                            Thread.sleep(delayMillis);
                        } finally {
                            inProgress.decrementAndGet();
                        }
                    }
                    got.add(new Delivery(headers, raw, JSON.readTree(raw), answer));
                    ctx.status(answer);
                    if (answer != 200 && retryAfter != null) {
                        ctx.header("Retry-After", retryAfter);
                    }
                });
            }).start();
        }

        String url() {
            return "http://127.0.0.1:" + port + "/hook";
        }

        void stopServing() {
            server.stop();
        }

        void serveAgain(int answer) {
            status.set(answer);
            server = start(port);
        }

        List<Delivery> all() {
            return new ArrayList<>(got);
        }

        Map<String, Delivery> latestByItem() {
            Map<String, Delivery> out = new HashMap<>();
            got.forEach(d -> out.put(d.item(), d));
            return out;
        }

        /** The deliveries matching {@code until}, once one has arrived (or none after {@code timeout}). */
        List<Delivery> await(Predicate<Delivery> until, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                List<Delivery> match = got.stream().filter(until).toList();
                if (!match.isEmpty()) {
                    return match;
                }
                Thread.sleep(50);
            }
            return List.of();
        }

        @Override
        public void close() {
            server.stop();
        }
    }
}
