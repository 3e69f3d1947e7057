package dev.tally.ingest.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.TallyMetrics;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OpsRoutesTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldServeTheMetricsAndTheOpenApiDocument() throws Exception {
        try (TallyMetrics metrics = new TallyMetrics()) {
            metrics.recordOutcome("changed");
            Javalin app = Javalin.create(cfg -> {
                cfg.startup.showJavalinBanner = false;
                OpsRoutes.mount(cfg.routes, metrics);
            }).start("127.0.0.1", 0);
            try {
                HttpResponse<String> scrape = get(app, "/metrics");
                HttpResponse<byte[]> openapi = HTTP.send(HttpRequest.newBuilder(uri(app, "/openapi.json")).build(),
                        HttpResponse.BodyHandlers.ofByteArray());

                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
                assertThat(scrape.body()).contains("tally_votes_total{outcome=\"changed\"} 1.0", "jvm_memory_used_bytes");
                assertThat(openapi.statusCode()).isEqualTo(200);
                assertThat(openapi.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
                assertThat(openapi.body()).isEqualTo(OpsRoutes.openApiDocument());
                assertThat(new ObjectMapper().readTree(openapi.body()).path("openapi").asText()).startsWith("3.1.");
            } finally {
                app.stop();
            }
        }
    }

    private static HttpResponse<String> get(Javalin app, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(app, path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(Javalin app, String path) {
        return URI.create("http://127.0.0.1:" + app.port() + path);
    }
}
