package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.fillers;
import static dev.tally.projector.ranking.RankingFixtures.ready;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.schema.RankingArtifact;
import io.javalin.Javalin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The route on a real Javalin server, read with java.net.http. */
class RankingRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final String PLACEHOLDER =
            "{\"schemaVersion\":1,\"generatedAt\":\"2026-05-01T12:00:00.123Z\",\"status\":\"insufficient-data\",\"items\":[]}";

    private final Map<String, RankingArtifact> topic = new ConcurrentHashMap<>();
    private final HttpClient client = HttpClient.newHttpClient();
    private Javalin app;

    @BeforeEach
    void start() {
        app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = "127.0.0.1";
            cfg.jetty.port = 0;
            RankingRoutes.mount(cfg.routes, type -> Optional.ofNullable(topic.get(type)), INTERVAL.multipliedBy(3),
                    INTERVAL, Clock.fixed(NOW, ZoneOffset.UTC));
        }).start();
    }

    @AfterEach
    void stop() {
        app.stop();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheLatestValidArtifactCacheableForOneInterval() throws Exception {
        RankingArtifact artifact = Rankings.rank("post", fillers(), NOW.minusSeconds(5));
        topic.put("post", artifact);

        HttpResponse<String> res = get("/v1/rankings/post/top");

        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(res.headers().firstValue("Cache-Control")).hasValue("public, max-age=10");
        assertThat(res.body()).isEqualTo(new String(RankingJson.bytes(artifact), java.nio.charset.StandardCharsets.UTF_8));
        JsonNode json = JSON.readTree(res.body());
        assertThat(json.get("status").asText()).isEqualTo("ready");
        assertThat(json.get("items")).hasSize(5);
        assertThat(json.get("items").get(0).get("item_id").asText()).isEqualTo("filler-4");
    }

    @Test
    void aMissingArtifactIsAnEmptyListDatedNow() throws Exception {
        HttpResponse<String> res = get("/v1/rankings/video/top");

        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("Cache-Control")).hasValue("public, max-age=10");
        assertThat(res.body()).isEqualTo(PLACEHOLDER);
    }

    @Test
    void aStaleArtifactIsNotServed() throws Exception {
        topic.put("post", ready(5, NOW.minus(INTERVAL.multipliedBy(3)).minusMillis(1)));

        assertThat(get("/v1/rankings/post/top").body()).isEqualTo(PLACEHOLDER);
    }

    @Test
    void anArtifactFromTheFutureIsNotServed() throws Exception {
        topic.put("post", ready(5, NOW.plus(Duration.ofHours(2))));

        assertThat(get("/v1/rankings/post/top").body()).isEqualTo(PLACEHOLDER);
    }

    @Test
    void aMalformedArtifactIsNotServed() throws Exception {
        RankingArtifact gap = ready(5, NOW);
        gap.getItems().get(3).setRank(7);
        topic.put("post", gap);

        assertThat(get("/v1/rankings/post/top").body()).isEqualTo(PLACEHOLDER);
    }

    @Test
    void anArtifactStoredUnderAnotherTypeIsNotServed() throws Exception {
        topic.put("video", ready(5, NOW)); // an artifact of posts under the key "video"

        assertThat(get("/v1/rankings/video/top").body()).isEqualTo(PLACEHOLDER);
    }

    @Test
    void anItemTypeOutsideTheContractIsAProblem() throws Exception {
        for (String type : List.of("Post", "9lives", "a%20b", "x".repeat(33))) {
            HttpResponse<String> res = get("/v1/rankings/" + type + "/top");

            assertThat(res.statusCode()).as(type).isEqualTo(400);
            assertThat(res.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
            JsonNode problem = JSON.readTree(res.body());
            List<String> fields = new ArrayList<>();
            problem.fieldNames().forEachRemaining(fields::add);
            assertThat(fields).containsExactly("type", "title", "status", "detail");
            assertThat(problem.get("type").asText()).isEqualTo("https://tally.dev/problems/invalid-request");
            assertThat(problem.get("title").asText()).isEqualTo("Invalid request");
            assertThat(problem.get("status").asInt()).isEqualTo(400);
            assertThat(problem.get("detail").asText()).contains("item type must match");
        }
    }
}
