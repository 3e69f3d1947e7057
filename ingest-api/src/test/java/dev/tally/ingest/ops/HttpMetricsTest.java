package dev.tally.ingest.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.TallyMetrics;
import dev.tally.ingest.DemoPage;
import io.javalin.Javalin;
import io.javalin.http.ForbiddenResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link HttpMetrics} on a real Javalin: route templates as labels, histogram buckets, what is not timed. */
class HttpMetricsTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TallyMetrics metrics;
    private Javalin app;

    @BeforeEach
    void start() {
        metrics = new TallyMetrics();
        app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            HttpMetrics.install(cfg, metrics);
            cfg.routes.get("/x/{id}", ctx -> ctx.result("x " + ctx.pathParam("id")));
            cfg.routes.before("/guarded/{id}", ctx -> {
                throw new ForbiddenResponse("refused before the endpoint runs");
            });
            cfg.routes.get("/guarded/{id}", ctx -> ctx.result("never"));
            cfg.routes.sse("/events", client -> {
                client.sendEvent("counts", "{}");
                client.close();
            });
            OpsRoutes.mount(cfg.routes, metrics);
            DemoPage.mount(cfg);
        }).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        app.stop();
        metrics.close();
    }

    @Test
    void shouldLabelRequestsWithTheRouteTemplateNotThePath() throws Exception {
        assertThat(get("/x/1").statusCode()).isEqualTo(200);
        assertThat(get("/x/2").statusCode()).isEqualTo(200);

        String scrape = awaitScrape(s -> countOf(s, "route=\"/x/{id}\"").equals("2"));
        List<String> xLines = scrape.lines().filter(l -> l.startsWith("http_server_requests_seconds_count")
                && l.contains("/x/")).toList();
        assertThat(xLines).hasSize(1);
        assertThat(xLines.get(0)).contains("method=\"GET\"", "route=\"/x/{id}\"", "status=\"200\"");
        assertThat(scrape).containsPattern("http_server_requests_seconds_bucket\\{method=\"GET\",route=\"/x/\\{id}\",status=\"200\",le=\"[0-9.]+\"} 2")
                .contains("http_server_requests_seconds_sum{method=\"GET\",route=\"/x/{id}\",status=\"200\"}")
                .doesNotContain("/x/1").doesNotContain("/x/2");
    }

    @Test
    void shouldLabelUnmatchedRequestsNotFoundAndRefusedOnesWithTheirRoute() throws Exception {
        assertThat(get("/no/such/path/42").statusCode()).isEqualTo(404);
        assertThat(get("/guarded/7").statusCode()).isEqualTo(403);

        String scrape = awaitScrape(s -> countOf(s, "route=\"NOT_FOUND\"").equals("1")
                && countOf(s, "route=\"/guarded/{id}\"").equals("1"));
        assertThat(scrape).contains("status=\"404\"").contains("status=\"403\"")
                .doesNotContain("/no/such/path").doesNotContain("/guarded/7");
    }

    @Test
    void shouldLabelAStaticFileWithItsPathNotNotFound() throws Exception {
        assertThat(get("/").statusCode()).isEqualTo(200);
        assertThat(get("/app.js").statusCode()).isEqualTo(200);
        assertThat(get("/no-such-file.js").statusCode()).isEqualTo(404);

        String scrape = awaitScrape(s -> countOf(s, "route=\"/app.js\"").equals("1"));
        assertThat(countOf(scrape, "route=\"/\"")).isEqualTo("1");
        assertThat(scrape).doesNotContain("route=\"NOT_FOUND\",status=\"200\"").doesNotContain("/no-such-file.js");
    }

    @Test
    void shouldNotTimeTheScrapeOrLiveStreams() throws Exception {
        HttpResponse<String> stream = HTTP.send(HttpRequest.newBuilder(uri("/events")).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(stream.body()).contains("event: counts");
        get("/x/1");
        HttpResponse<String> metricsAnswer = get("/metrics");

        assertThat(metricsAnswer.headers().firstValue("Content-Type")).hasValue(TallyMetrics.CONTENT_TYPE);
        String scrape = awaitScrape(s -> countOf(s, "route=\"/x/{id}\"").equals("1"));
        assertThat(scrape).doesNotContain("route=\"/metrics\"").doesNotContain("route=\"/events\"");
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + app.port() + path);
    }

    /** The request logger runs just after the answer is written: a client can be a moment ahead of it. */
    private String awaitScrape(Predicate<String> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        String scrape = metrics.scrape();
        while (!done.test(scrape) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            scrape = metrics.scrape();
        }
        return scrape;
    }

    /** The value of {@code http_server_requests_seconds_count} of the series with this label, or "". */
    private static String countOf(String scrape, String label) {
        return scrape.lines().filter(l -> l.startsWith("http_server_requests_seconds_count{") && l.contains(label))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)).findFirst().orElse("");
    }
}
